// memcached's watch stream into trace events (trace/watch_events.h), on lines a live
// memcached 1.6.18 printed.
#include "trace/watch_events.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace hitcost::trace {
namespace {

struct Seen {
  TraceEvent event;
  std::string key;
};

std::vector<Seen> translate(const std::vector<std::string>& lines, WatchCounts* counts = nullptr) {
  std::vector<Seen> out;
  WatchTranslator t(KeyHasher(0, 0), [&](const TraceEvent& e, std::string_view key) {
    out.push_back({e, std::string(key)});
  });
  for (const std::string& line : lines) t.feed(line);
  t.finish();
  if (counts) *counts = t.counts();
  return out;
}

std::string name(const Seen& s) {
  return std::string(to_string(static_cast<Op>(s.event.op))) + " " + s.key + " " +
         to_string(static_cast<Outcome>(s.event.outcome));
}

TEST(WatchLine, TheFractionIsMicrosecondsUnpadded) {
  auto a = parse_watch_line("ts=1796601080.21047 gid=9 type=item_get key=k2 status=not_found clsid=0 cfd=25 size=0");
  auto b = parse_watch_line("ts=1796601080.71311 gid=11 type=item_get key=k3 status=not_found clsid=0 cfd=25 size=0");
  ASSERT_TRUE(a && b);
  // "80.21047" is 21,047 µs into the second and "80.71311" 71,311 µs: 50.264 ms apart, as the
  // commands were sent (read as decimals they would be 500 ms apart, in the wrong order).
  EXPECT_EQ(a->unix_us, 1796601080'021047ull);
  EXPECT_EQ(b->unix_us - a->unix_us, 50'264u);
  EXPECT_EQ(a->kind, WatchLine::Kind::item_get);
  EXPECT_EQ(a->key, "k2");
  EXPECT_EQ(a->cfd, 25);
}

TEST(WatchTranslator, KeysAreUrlDecodedAsTheApplicationWroteThem) {
  // memcached 1.6.18 printed these for `get u:1:p` and `get a%b`.
  const std::vector<Seen> seen =
      translate({"ts=1796602791.493982 gid=2 type=item_get key=u%3A1%3Ap status=not_found clsid=0 cfd=25 size=0",
                 "ts=1796602791.644630 gid=6 type=item_get key=a%25b status=not_found clsid=0 cfd=25 size=0"});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].key, "u:1:p");
  EXPECT_EQ(seen[0].event.key, KeyHasher(0, 0)("u:1:p"));
  EXPECT_EQ(seen[0].event.key_size, 5u);
  EXPECT_EQ(seen[1].key, "a%b");
}

TEST(WatchLine, MalformedLinesAreErrorsAndOtherTypesAreNot) {
  EXPECT_FALSE(parse_watch_line("ts=17.5 gid=x type=item_get key=a status=found clsid=1 cfd=3 size=1"));
  EXPECT_FALSE(parse_watch_line("ts=17.5 gid=2 type=item_get status=found clsid=1 cfd=3 size=1"));
  EXPECT_FALSE(parse_watch_line("ts=17.5000000 gid=2 type=item_get key=a status=found clsid=1 cfd=3 size=1"));
  EXPECT_FALSE(parse_watch_line("garbage"));
  auto other = parse_watch_line("ts=17.5 gid=2 type=eviction key=a fetch=no ttl=0 la=1 clsid=1");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->kind, WatchLine::Kind::other);
  auto skipped = parse_watch_line("skipped=37");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->skipped, 37u);
}

// The commands, one connection, and what memcached 1.6.18 logged for them (captured).
TEST(WatchTranslator, AStoresOwnLookupIsDroppedAndEveryOtherLookupIsARead) {
  const std::vector<std::string> lines = {
      // get k1 (miss)
      "ts=1796601079.767291 gid=2 type=item_get key=k1 status=not_found clsid=0 cfd=25 size=0",
      // set k1
      "ts=1796601079.818142 gid=3 type=item_get key=k1 status=not_found clsid=0 cfd=25 size=0",
      "ts=1796601079.818173 gid=4 type=item_store key=k1 status=stored cmd=set ttl=0 clsid=1 cfd=25 size=3",
      // get k1, gets k1
      "ts=1796601079.870153 gid=5 type=item_get key=k1 status=found clsid=1 cfd=25 size=3",
      "ts=1796601079.920458 gid=6 type=item_get key=k1 status=found clsid=1 cfd=25 size=3",
      // add k1 (exists: not stored)
      "ts=1796601079.970752 gid=7 type=item_get key=k1 status=found clsid=1 cfd=25 size=3",
      "ts=1796601079.970753 gid=8 type=item_store key=k1 status=not_stored cmd=add ttl=0 clsid=1 cfd=25 size=1",
      // add k2
      "ts=1796601080.21047 gid=9 type=item_get key=k2 status=not_found clsid=0 cfd=25 size=0",
      "ts=1796601080.21053 gid=10 type=item_store key=k2 status=stored cmd=add ttl=0 clsid=1 cfd=25 size=1",
      // replace k3 (absent)
      "ts=1796601080.71311 gid=11 type=item_get key=k3 status=not_found clsid=0 cfd=25 size=0",
      "ts=1796601080.71311 gid=12 type=item_store key=k3 status=not_stored cmd=replace ttl=0 clsid=1 cfd=25 size=1",
      // cas k1 with a stale token
      "ts=1796601080.322580 gid=21 type=item_get key=k1 status=found clsid=1 cfd=25 size=3",
      "ts=1796601080.322581 gid=22 type=item_store key=k1 status=exists cmd=cas ttl=0 clsid=1 cfd=25 size=1",
      // delete k2, delete k2 again: lookups only (1.6.18 logs nothing more)
      "ts=1796601080.372850 gid=23 type=item_get key=k2 status=found clsid=1 cfd=25 size=4",
      "ts=1796601080.423212 gid=24 type=item_get key=k2 status=not_found clsid=0 cfd=25 size=0",
      // get k1 k2 n
      "ts=1796601080.779889 gid=32 type=item_get key=k1 status=found clsid=1 cfd=25 size=3",
      "ts=1796601080.779890 gid=33 type=item_get key=k2 status=not_found clsid=0 cfd=25 size=0",
  };
  WatchCounts counts;
  const std::vector<Seen> seen = translate(lines, &counts);
  const std::vector<std::string> want = {"get k1 not_found",      "set k1 stored",     "get k1 found",
                                         "get k1 found",          "add k1 not_stored", "add k2 stored",
                                         "replace k3 not_stored", "cas k1 exists",     "get k2 found",
                                         "get k2 not_found",      "get k1 found",      "get k2 not_found"};
  ASSERT_EQ(seen.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(name(seen[i]), want[i]) << i;
  EXPECT_EQ(counts.own_lookups_dropped, 5u);
  EXPECT_EQ(counts.events, want.size());
  EXPECT_EQ(counts.clients, 1u);
  // gids 2..33 with 17 seen: 15 missing (the capture left those lines out).
  EXPECT_EQ(counts.missing_by_gid(), 32u - lines.size());
  // Times from the first event, in µs; sizes as stored; a miss has none.
  EXPECT_EQ(seen[0].event.time_us, 0u);
  EXPECT_EQ(seen[1].event.time_us, 818173u - 767291u);  // the store's time, not its lookup's
  EXPECT_EQ(seen[1].event.value_size, 3u);
  EXPECT_EQ(seen[0].event.value_size, 0u);
  EXPECT_EQ(seen[0].event.key_size, 2u);
}

TEST(WatchTranslator, ConnectionsInterleavedOutOfTimeOrderComeOutInOrder) {
  // Two workers' buffers merged: connection 30's lines arrive after 31's later ones.
  const std::vector<std::string> lines = {
      "ts=100.500000 gid=5 type=item_get key=b status=found clsid=1 cfd=31 size=10",
      "ts=100.600000 gid=6 type=item_get key=b status=found clsid=1 cfd=31 size=10",
      "ts=100.100000 gid=3 type=item_get key=a status=found clsid=1 cfd=30 size=10",
      "ts=100.200000 gid=4 type=item_get key=a status=found clsid=1 cfd=30 size=10",
      // 3 s later: the window has passed, and a line from before it arrives late.
      "ts=103.600000 gid=8 type=item_get key=c status=found clsid=1 cfd=30 size=10",
      "ts=100.550000 gid=7 type=item_get key=d status=found clsid=1 cfd=32 size=10",
  };
  WatchCounts counts;
  const std::vector<Seen> seen = translate(lines, &counts);
  ASSERT_EQ(seen.size(), 6u);
  std::vector<std::string> keys;
  for (const Seen& s : seen) keys.push_back(s.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "a", "b", "b", "d", "c"}));
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].event.time_us, seen[i - 1].event.time_us) << i;
  EXPECT_EQ(counts.late, 1u);
  // d (100.55 s) came after b (100.6 s) was written: it is written at b's time, not before it.
  EXPECT_EQ(seen[4].event.time_us, seen[3].event.time_us);
  EXPECT_EQ(seen[5].event.time_us, 3'500'000u);
  EXPECT_EQ(counts.clients, 3u);
  EXPECT_EQ(counts.missing_by_gid(), 0u);
}

TEST(WatchTranslator, SkippedAndMalformedLinesAreCountedNotHidden) {
  WatchCounts counts;
  const std::vector<Seen> seen =
      translate({"ts=1.000001 gid=1 type=item_get key=a status=found clsid=1 cfd=5 size=1", "skipped=12",
                 "ts=1.000002 gid=14 type=item_get key=a status=found clsid=1 cfd=5 size=1", "ts=1.000003 gid=oops"},
                &counts);
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(counts.skipped, 12u);
  EXPECT_EQ(counts.missing_by_gid(), 12u);
  EXPECT_EQ(counts.malformed, 1u);
  ASSERT_EQ(counts.malformed_examples.size(), 1u);
  EXPECT_NE(counts.malformed_examples[0].find("gid=oops"), std::string::npos);
}

}  // namespace
}  // namespace hitcost::trace
