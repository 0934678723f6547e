// Sampling a live memcached (corpus/sampler.h, corpus/memcached_text.h) against real memcached
// processes: the listing, exact values and flags, the bounds, recency weighting, keys that vanish,
// key files, a frozen node, and that the source is only read.
#include "corpus/sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "corpus/corpus_file.h"
#include "corpus/memcached_text.h"
#include "tests/stores/test_util.h"
#include "tests/support/memcached_process.h"

namespace hitcost::corpus {
namespace {

using hitcost::testing::memcached_raw;
using hitcost::testing::MemcachedProcess;
using hitcost::testing::TempDir;

struct Planted {
  uint32_t node = 0;
  uint32_t flags = 0;
  std::string value;
};

void plant(const MemcachedProcess& mc, const std::string& key, uint32_t flags, const std::string& value) {
  const std::string reply = memcached_raw(
      mc.port(),
      "set " + key + " " + std::to_string(flags) + " 0 " + std::to_string(value.size()) + "\r\n" + value + "\r\n",
      "\r\n");
  ASSERT_EQ(reply, "STORED\r\n") << key;
}

// A value with every kind of byte in it, including the protocol's own "\r\nEND\r\n".
std::string binary_value(size_t i, size_t len) {
  std::string v = "\r\nEND\r\nVALUE x 0 1\r\n";
  v += std::string(1, '\0');
  for (size_t j = 0; v.size() < len; ++j) v.push_back(static_cast<char>((i * 131 + j * 7) & 0xff));
  v.resize(len);
  return v;
}

uint64_t stat_of(const MemcachedProcess& mc, const std::string& name) {
  const std::string reply = memcached_raw(mc.port(), "stats\r\n", "END\r\n");
  const std::string needle = "STAT " + name + " ";
  const size_t at = reply.find(needle);
  if (at == std::string::npos) return UINT64_MAX;
  return std::stoull(reply.substr(at + needle.size()));
}

// The number of items a raw metadump lists (the crawl is not a snapshot: items moving between
// LRUs can be missed, so tests wait until the listing is whole before sampling).
size_t dump_count(const MemcachedProcess& mc) {
  const std::string reply = memcached_raw(mc.port(), "lru_crawler metadump all\r\n", "END\r\n");
  size_t n = 0;
  for (size_t at = 0; (at = reply.find("key=", at)) != std::string::npos; ++at) ++n;
  return n;
}

void wait_for_whole_dump(const MemcachedProcess& mc, size_t items) {
  for (int i = 0; i < 200; ++i) {
    if (dump_count(mc) == items) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  FAIL() << "metadump never listed all " << items << " items";
}

SampleOptions options_for(const std::vector<const MemcachedProcess*>& nodes, const std::string& out) {
  SampleOptions o;
  for (const auto* n : nodes) o.nodes.push_back(n->address());
  o.output_path = out;
  return o;
}

TEST(MemcachedText, MetadumpListsEveryKeyDecodedWithSizeAndLastAccess) {
  MemcachedProcess mc;
  auto c = MemcachedTextClient::connect(mc.address());
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto empty = c->metadump_all();
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->empty()) << "an empty cache lists nothing";

  const int64_t before = std::time(nullptr);
  std::map<std::string, size_t> planted;
  for (int i = 0; i < 50; ++i) {
    const std::string key = "user/" + std::to_string(i) + "%x=" + std::to_string(i);  // '/', '%', '=' are encoded
    planted[key] = 10 + static_cast<size_t>(i);
    plant(mc, key, 0, std::string(10 + static_cast<size_t>(i), 'v'));
  }
  const int64_t after = std::time(nullptr);
  wait_for_whole_dump(mc, 50);
  auto dump = c->metadump_all();  // the same connection again, after a first END
  ASSERT_TRUE(dump.ok()) << dump.error().message;
  ASSERT_EQ(dump->size(), 50u);
  std::set<std::string> seen;
  for (const DumpEntry& e : *dump) {
    ASSERT_EQ(planted.count(e.key), 1u) << "undecoded or unknown key " << e.key;
    seen.insert(e.key);
    EXPECT_GE(e.size, planted[e.key] + e.key.size()) << "size counts the whole item";
    EXPECT_LE(e.size, planted[e.key] + e.key.size() + 128);
    // memcached's clock ticks once a second and starts a little behind: allow 3 s either way.
    EXPECT_GE(e.last_access_unix_s, before - 3);
    EXPECT_LE(e.last_access_unix_s, after + 3);
  }
  EXPECT_EQ(seen.size(), 50u);
  auto version = c->version();
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->rfind("1.", 0), 0u) << *version;
}

TEST(MemcachedText, MetadumpWithTheCrawlerDisabledSaysItIsNotAvailable) {
  MemcachedProcess mc(64, {"-o", "no_lru_crawler"});
  auto c = MemcachedTextClient::connect(mc.address());
  ASSERT_TRUE(c.ok());
  auto dump = c->metadump_all();
  ASSERT_FALSE(dump.ok());
  EXPECT_EQ(dump.error().code, Errc::server_error);
  EXPECT_NE(
      dump.error().message.find("lru_crawler metadump not available (memcached >= 1.4.31 with lru_crawler enabled)"),
      std::string::npos)
      << dump.error().message;
  EXPECT_NE(dump.error().message.find(mc.address()), std::string::npos);
  EXPECT_NE(dump.error().message.find("lru crawler disabled"), std::string::npos) << dump.error().message;
}

TEST(MemcachedText, GetManyGivesExactFlagsAndBytesAcrossBatchesAndLeavesMissingKeysOut) {
  MemcachedProcess mc;
  std::map<std::string, Planted> planted;
  std::vector<std::string> keys;
  for (size_t i = 0; i < 250; ++i) {  // three get lines
    const std::string key = "k" + std::to_string(i);
    Planted p{0, i == 0 ? 0xffffffffu : static_cast<uint32_t>(i * 977), binary_value(i, i % 7 == 0 ? 0 : 30 + i * 3)};
    plant(mc, key, p.flags, p.value);
    planted[key] = p;
    keys.push_back(key);
    if (i % 50 == 0) keys.push_back("missing" + std::to_string(i));
  }
  auto c = MemcachedTextClient::connect(mc.address());
  ASSERT_TRUE(c.ok());
  auto got = c->get_many(keys);
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->size(), 250u);
  size_t checked = 0;
  for (const FetchedValue& v : *got) {
    ASSERT_EQ(planted.count(v.key), 1u) << v.key;
    EXPECT_EQ(v.flags, planted[v.key].flags) << v.key;
    EXPECT_EQ(v.value, planted[v.key].value) << v.key;
    ++checked;
  }
  EXPECT_EQ(checked, 250u);
  auto refused = c->get_many({"has space"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
}

TEST(MemcachedText, AnUnreachableNodeIsAConnectionErrorNamingIt) {
  const std::string address = "127.0.0.1:" + std::to_string(hitcost::testing::free_loopback_port());
  auto c = MemcachedTextClient::connect(address);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::connection);
  EXPECT_NE(c.error().message.find(address), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find(std::strerror(ECONNREFUSED)), std::string::npos) << c.error().message;
}

TEST(Sampler, AUniformSampleOfAllKeysOnTwoNodesGetsEveryValueExactlyAndWritesNothingToTheSource) {
  MemcachedProcess a, b;
  std::map<std::string, Planted> planted;
  for (uint32_t node = 0; node < 2; ++node) {
    for (size_t i = 0; i < 60; ++i) {
      const std::string key = (node == 0 ? "a:" : "b:") + std::to_string(i);
      Planted p{node, static_cast<uint32_t>(i * 3 + node), binary_value(i + node * 1000, i == 5 ? 0 : 20 + i * 11)};
      plant(node == 0 ? a : b, key, p.flags, p.value);
      planted[key] = p;
    }
  }
  wait_for_whole_dump(a, 60);
  wait_for_whole_dump(b, 60);
  const uint64_t sets_a = stat_of(a, "cmd_set"), sets_b = stat_of(b, "cmd_set");
  const uint64_t items_a = stat_of(a, "curr_items"), items_b = stat_of(b, "curr_items");
  ASSERT_EQ(sets_a, 60u);

  TempDir dir;
  SampleOptions o = options_for({&a, &b}, dir.file("c.corpus"));
  o.seed = 7;
  std::vector<SampleProgress> calls;
  auto r = sample(o, [&](const SampleProgress& p) { calls.push_back(p); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->manifest.keys_seen, 120u);
  EXPECT_EQ(r->manifest.keys_eligible, 120u);
  EXPECT_EQ(r->manifest.values, 120u);
  EXPECT_EQ(r->manifest.gone, 0u);
  EXPECT_EQ(r->manifest.source, "memcached:" + a.address() + "," + b.address());
  EXPECT_EQ(r->manifest.nodes, (std::vector<std::string>{a.address(), b.address()}));
  EXPECT_EQ(r->manifest.sampling, "uniform");
  EXPECT_EQ(r->manifest.scheme, "php-memcached");
  ASSERT_FALSE(calls.empty());
  EXPECT_TRUE(calls.back().done);
  EXPECT_EQ(calls.back().keys_listed, 120u);
  EXPECT_EQ(calls.back().values_fetched, 120u);

  auto corpus = read_corpus(o.output_path);
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  EXPECT_EQ(corpus->manifest, r->manifest);
  std::set<std::string> seen;
  uint64_t bytes = 0;
  for (const CorpusRecord& rec : corpus->records) {
    ASSERT_EQ(planted.count(rec.key), 1u) << rec.key;
    const Planted& p = planted[rec.key];
    EXPECT_EQ(rec.node, p.node) << rec.key;
    EXPECT_EQ(rec.flags, p.flags) << rec.key;
    EXPECT_EQ(rec.value, p.value) << rec.key;
    EXPECT_GT(rec.last_access_unix_s, 1700000000u) << rec.key;
    seen.insert(rec.key);
    bytes += rec.value.size();
  }
  EXPECT_EQ(seen.size(), 120u);
  EXPECT_EQ(corpus->manifest.value_bytes, bytes);

  // Read only: no set of any kind reached either node, and nothing was added or removed.
  EXPECT_EQ(stat_of(a, "cmd_set"), sets_a);
  EXPECT_EQ(stat_of(b, "cmd_set"), sets_b);
  EXPECT_EQ(stat_of(a, "curr_items"), items_a);
  EXPECT_EQ(stat_of(b, "curr_items"), items_b);
  EXPECT_EQ(stat_of(a, "cmd_touch"), 0u);
  EXPECT_EQ(stat_of(a, "delete_hits") + stat_of(a, "delete_misses"), 0u);
}

TEST(Sampler, CountAndByteBudgetBoundTheSampleAndASeedReproducesIt) {
  MemcachedProcess mc;
  for (int i = 0; i < 100; ++i) plant(mc, "k" + std::to_string(i), 1, std::string(1000, 'a' + i % 26));
  wait_for_whole_dump(mc, 100);
  TempDir dir;
  auto keys_of = [](const std::string& path) {
    std::vector<std::string> ks;
    auto c = read_corpus(path);
    EXPECT_TRUE(c.ok());
    if (c.ok())
      for (const auto& r : c->records) ks.push_back(r.key);
    return ks;
  };

  SampleOptions o = options_for({&mc}, dir.file("count.corpus"));
  o.count = 10;
  o.seed = 11;
  auto r = sample(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->manifest.values, 10u);
  EXPECT_EQ(r->manifest.requested_count, 10u);
  const auto first = keys_of(o.output_path);
  EXPECT_EQ(first.size(), 10u);

  o.output_path = dir.file("again.corpus");
  ASSERT_TRUE(sample(o).ok());
  EXPECT_EQ(keys_of(o.output_path), first) << "the same seed, the same sample in the same order";
  o.output_path = dir.file("other.corpus");
  o.seed = 12;
  ASSERT_TRUE(sample(o).ok());
  EXPECT_NE(keys_of(o.output_path), first) << "another seed, another sample";

  o.output_path = dir.file("budget.corpus");
  o.count = 1000;
  o.byte_budget = 25500;
  r = sample(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->manifest.values, 25u);
  EXPECT_EQ(r->manifest.value_bytes, 25000u);
  EXPECT_EQ(r->manifest.byte_budget, 25500u);
  ASSERT_FALSE(r->manifest.notes.empty());
  EXPECT_NE(r->manifest.notes.back().find("byte budget"), std::string::npos);
}

TEST(Sampler, ValuesOverTheSizeLimitAreSkippedAndCounted) {
  MemcachedProcess mc;
  for (int i = 0; i < 10; ++i) plant(mc, "small" + std::to_string(i), 0, std::string(100, 's'));
  for (int i = 0; i < 4; ++i) plant(mc, "big" + std::to_string(i), 0, std::string(5000, 'b'));   // dump size says so
  for (int i = 0; i < 3; ++i) plant(mc, "edge" + std::to_string(i), 0, std::string(1010, 'e'));  // only the get does
  wait_for_whole_dump(mc, 17);
  TempDir dir;
  SampleOptions o = options_for({&mc}, dir.file("c.corpus"));
  o.max_value_bytes = 1000;
  auto r = sample(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->manifest.keys_seen, 17u);
  EXPECT_EQ(r->manifest.keys_eligible, 13u);
  EXPECT_EQ(r->manifest.too_large, 7u);
  EXPECT_EQ(r->manifest.values, 10u);
}

// A sample's own gets move what it reads (memcached bumps an item's last access from its second
// read on), so every recency trial has a memcached of its own, untouched by earlier trials.
TEST(Sampler, RecencyWeightingPrefersRecentlyReadKeys) {
  constexpr int kTrials = 16;
  std::vector<std::unique_ptr<MemcachedProcess>> nodes;
  std::string sets;
  for (int i = 0; i < 200; ++i) sets += "set k" + std::to_string(i) + " 0 0 1 noreply\r\nv\r\n";
  for (int t = 0; t < kTrials; ++t) {
    nodes.push_back(std::make_unique<MemcachedProcess>());
    ASSERT_EQ(memcached_raw(nodes.back()->port(), sets + "version\r\n", "\r\n").rfind("VERSION ", 0), 0u);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  // memcached moves an item's last access only from its second read on (the first marks it
  // fetched): read the touched keys twice.
  std::set<std::string> touched;
  std::string get = "get";
  for (int i = 0; i < 200; i += 10) {
    touched.insert("k" + std::to_string(i));
    get += " k" + std::to_string(i);
  }
  for (auto& mc : nodes)
    for (int round = 0; round < 2; ++round) memcached_raw(mc->port(), get + "\r\n", "END\r\n");

  // w = 1/(1 + age) with ages 0 (touched: now = their access time) and >= 2 (the rest) weighs
  // a touched key at least 3x: a recency sample of 20 of the 200 keys holds ~4.6 touched ones
  // (16 trials: ~75 in all, 52 the least in 2000 simulated runs), a uniform one 2 (~32, 48 the
  // most).
  TempDir dir;
  size_t recency_hits = 0, uniform_hits = 0, records = 0;
  for (int t = 0; t < kTrials; ++t) {
    const MemcachedProcess& mc = *nodes[static_cast<size_t>(t)];
    wait_for_whole_dump(mc, 200);
    auto c = MemcachedTextClient::connect(mc.address());
    ASSERT_TRUE(c.ok());
    auto dump = c->metadump_all();
    ASSERT_TRUE(dump.ok());
    int64_t newest = 0, oldest_touched = INT64_MAX, newest_untouched = 0;
    for (const auto& e : *dump) {
      newest = std::max(newest, e.last_access_unix_s);
      if (touched.count(e.key))
        oldest_touched = std::min(oldest_touched, e.last_access_unix_s);
      else
        newest_untouched = std::max(newest_untouched, e.last_access_unix_s);
    }
    ASSERT_GE(oldest_touched - newest_untouched, 2) << "the touched keys' last access did not move";
    ASSERT_EQ(oldest_touched, newest);

    for (Weighting w : {Weighting::recency, Weighting::uniform}) {  // recency first: uniform reads move la
      SampleOptions o = options_for({&mc}, dir.file("c" + std::to_string(t) + to_string(w)));
      o.count = 20;
      o.seed = static_cast<uint64_t>(t) + 1;
      o.weighting = w;
      o.now_unix_s = newest;
      auto r = sample(o);
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(r->manifest.sampling, to_string(w));
      auto corpus = read_corpus(o.output_path);
      ASSERT_TRUE(corpus.ok());
      ASSERT_EQ(corpus->records.size(), 20u);
      for (const auto& rec : corpus->records) {
        (w == Weighting::recency ? recency_hits : uniform_hits) += touched.count(rec.key);
        ++records;
      }
    }
  }
  EXPECT_EQ(records, 2u * 20u * kTrials);
  RecordProperty("recency_hits", static_cast<int>(recency_hits));
  RecordProperty("uniform_hits", static_cast<int>(uniform_hits));
  EXPECT_GE(recency_hits, 50u) << "uniform drew " << uniform_hits;
  EXPECT_LT(uniform_hits, 50u) << "recency drew " << recency_hits;
}

TEST(Sampler, RecencyOrderWithClearlyOlderKeysTakesTheRecentOnes) {
  // The ranking alone, with ages memcached cannot make in a test's time: 20 keys read now,
  // 180 an hour ago (weights 1 and 1/3601).
  std::vector<int64_t> la(200, 1733146400);
  for (size_t i = 0; i < 200; i += 10) la[i] = 1733150000;
  size_t checked = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const auto order = sample_order(la, Weighting::recency, seed, 1733150000);
    ASSERT_EQ(order.size(), 200u);
    size_t recent = 0;
    for (size_t i = 0; i < 20; ++i) recent += order[i] % 10 == 0 ? 1 : 0;
    EXPECT_GE(recent, 15u) << "seed " << seed;
    std::vector<size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < 200; ++i) ASSERT_EQ(sorted[i], i) << "not a permutation";
    ++checked;
  }
  EXPECT_EQ(checked, 10u);
  EXPECT_EQ(sample_order(la, Weighting::uniform, 3, 0), sample_order(la, Weighting::uniform, 3, 0));
  EXPECT_NE(sample_order(la, Weighting::uniform, 3, 0), sample_order(la, Weighting::uniform, 4, 0));
}

TEST(Sampler, AKeyDeletedBetweenTheDumpAndTheGetCountsAsGone) {
  MemcachedProcess mc;
  for (int i = 0; i < 30; ++i) plant(mc, "k" + std::to_string(i), 0, "value" + std::to_string(i));
  wait_for_whole_dump(mc, 30);
  TempDir dir;
  SampleOptions o = options_for({&mc}, dir.file("c.corpus"));
  int hook_calls = 0;
  o.after_listing = [&] {
    ++hook_calls;
    for (int i = 0; i < 5; ++i) memcached_raw(mc.port(), "delete k" + std::to_string(i) + "\r\n", "\r\n");
  };
  auto r = sample(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(hook_calls, 1);
  EXPECT_EQ(r->manifest.keys_seen, 30u);
  EXPECT_EQ(r->manifest.gone, 5u);
  EXPECT_EQ(r->manifest.values, 25u);
  auto corpus = read_corpus(o.output_path);
  ASSERT_TRUE(corpus.ok());
  for (const auto& rec : corpus->records) EXPECT_EQ(rec.value, "value" + rec.key.substr(1));
}

TEST(Sampler, AKeyFileNamesTheKeysAndEachIsFoundOnItsNode) {
  MemcachedProcess a, b;
  for (int i = 0; i < 10; ++i) plant(a, "a" + std::to_string(i), 100 + i, "A" + std::to_string(i));
  for (int i = 0; i < 5; ++i) plant(b, "b" + std::to_string(i), 200 + i, "B" + std::to_string(i));
  plant(a, "not-listed", 0, "x");
  TempDir dir;
  const std::string key_file = dir.file("keys.txt");
  {
    std::ofstream f(key_file);
    for (int i = 0; i < 10; ++i) f << "a" << i << "\n";
    for (int i = 0; i < 5; ++i) f << "b" << i << "\r\n";
    f << "gone1\ngone2\n\na3\nhas space\n";  // two missing, a blank, a duplicate, an unfetchable
  }
  SampleOptions o = options_for({&a, &b}, dir.file("c.corpus"));
  o.key_file = key_file;
  auto r = sample(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->manifest.keys_seen, 18u);
  EXPECT_EQ(r->manifest.keys_eligible, 17u);
  EXPECT_EQ(r->manifest.values, 15u);
  EXPECT_EQ(r->manifest.gone, 2u);
  auto corpus = read_corpus(o.output_path);
  ASSERT_TRUE(corpus.ok());
  size_t checked = 0;
  for (const auto& rec : corpus->records) {
    const bool on_a = rec.key[0] == 'a';
    EXPECT_EQ(rec.node, on_a ? 0u : 1u) << rec.key;
    EXPECT_EQ(rec.flags, (on_a ? 100u : 200u) + std::stoul(rec.key.substr(1))) << rec.key;
    EXPECT_EQ(rec.value, (on_a ? "A" : "B") + rec.key.substr(1));
    EXPECT_EQ(rec.last_access_unix_s, 0u) << "unknown with a key file";
    ++checked;
  }
  EXPECT_EQ(checked, 15u);
  std::string notes;
  for (const auto& n : r->manifest.notes) notes += n + "\n";
  EXPECT_NE(notes.find("key file"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 duplicate"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 keys skipped"), std::string::npos) << notes;

  o.weighting = Weighting::recency;
  auto refused = sample(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
}

TEST(Sampler, AFrozenMemcachedGivesATimeoutNotAHangAndLeavesNoFile) {
  MemcachedProcess mc;
  for (int i = 0; i < 10; ++i) plant(mc, "k" + std::to_string(i), 0, "v");
  TempDir dir;
  SampleOptions o = options_for({&mc}, dir.file("c.corpus"));
  o.io_timeout_ms = 500;
  mc.pause();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sample(o);
  const auto took = std::chrono::steady_clock::now() - t0;
  mc.resume();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::timeout) << r.error().message;
  EXPECT_NE(r.error().message.find(mc.address()), std::string::npos) << r.error().message;
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_FALSE(std::filesystem::exists(o.output_path));
  EXPECT_FALSE(std::filesystem::exists(o.output_path + ".tmp"));

  // Frozen during the gets (after the listing): the same, and the half-written file is gone.
  o.after_listing = [&] { mc.pause(); };
  r = sample(o);
  mc.resume();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::timeout) << r.error().message;
  EXPECT_FALSE(std::filesystem::exists(o.output_path + ".tmp"));
  EXPECT_FALSE(std::filesystem::exists(o.output_path));
}

}  // namespace
}  // namespace hitcost::corpus
