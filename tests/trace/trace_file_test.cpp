// The trace file (trace/trace_file.h) and the keyed hash (trace/key_hash.h).
#include "trace/trace_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/fresh_dir.h"
#include "trace/key_hash.h"
#include "trace/trace_summary.h"

namespace hitcost::trace {
namespace {

namespace fs = std::filesystem;

TraceEvent event(uint64_t i) {
  TraceEvent e{};
  e.time_us = i * 10;
  e.key = i % 97;
  e.value_size = static_cast<uint32_t>(100 + i);
  e.op = static_cast<uint8_t>(i % 5 == 0 ? Op::set : Op::get);
  e.outcome = static_cast<uint8_t>(i % 5 == 0 ? Outcome::stored : (i % 3 == 0 ? Outcome::not_found : Outcome::found));
  e.client = static_cast<uint16_t>(i % 4);
  return e;
}

std::string write_trace(const fs::path& path, uint64_t n, WriterLimits limits = {}, TraceInfo info = {}) {
  auto w = TraceWriter::create(path.string(), limits);
  EXPECT_TRUE(w) << w.error().message;
  for (uint64_t i = 0; i < n; ++i)
    if (!w->append(event(i))) break;
  auto f = w->finish(info);
  EXPECT_TRUE(f) << f.error().message;
  return w->stopped_reason();
}

void flip_byte(const fs::path& path, uint64_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

// core/siphash.h against the paper's vectors: key 00..0f (k0, k1 little-endian), messages 00..
TEST(KeyHash, SipHash24MatchesThePapersVectors) {
  const uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;
  char message[15];
  for (size_t i = 0; i < sizeof message; ++i) message[i] = static_cast<char>(i);
  EXPECT_EQ(siphash24(k0, k1, std::string_view(message, 0)), 0x726fdb47dd0e0e31ull);
  EXPECT_EQ(siphash24(k0, k1, std::string_view(message, 8)), 0x93f5f5799a932462ull);
  EXPECT_EQ(siphash24(k0, k1, std::string_view(message, 15)), 0xa129ca6149be45e5ull);
}

TEST(KeyHash, TwoRecordingsDoNotShareKeyIds) {
  const KeyHasher a = KeyHasher::random(), b = KeyHasher::random();
  EXPECT_EQ(a("user:1"), a("user:1"));
  EXPECT_NE(a("user:1"), a("user:2"));
  EXPECT_NE(a("user:1"), b("user:1"));
}

TEST(TraceFile, EventsAndHeaderReadBackAsWritten) {
  const fs::path dir = testing::fresh_dir("trace", "roundtrip");
  TraceInfo info;
  info.source = TraceSource::twemcache;
  info.origin = "cluster52.0.zst";
  info.start_unix_us = 1'585'699'200'000'000;
  info.time_resolution_us = 1'000'000;
  info.malformed = 3;
  // 5,000 events: more than two of the writer's 2,048-event buffers.
  EXPECT_EQ(write_trace(dir / "t.hctrace", 5000, {}, info), "");
  EXPECT_FALSE(fs::exists(dir / "t.hctrace.tmp"));
  auto r = TraceReader::open((dir / "t.hctrace").string());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->events().size(), 5000u);
  size_t checked = 0;
  for (uint64_t i = 0; i < 5000; ++i) {
    const TraceEvent want = event(i), got = r->events()[i];
    ASSERT_EQ(got.time_us, want.time_us) << i;
    ASSERT_EQ(got.key, want.key) << i;
    ASSERT_EQ(got.value_size, want.value_size) << i;
    ASSERT_EQ(got.op, want.op) << i;
    ASSERT_EQ(got.outcome, want.outcome) << i;
    ASSERT_EQ(got.client, want.client) << i;
    ++checked;
  }
  EXPECT_EQ(checked, 5000u);
  EXPECT_EQ(r->header().duration_us, 4999u * 10);
  const TraceInfo back = r->info();
  EXPECT_EQ(back.source, TraceSource::twemcache);
  EXPECT_EQ(back.origin, "cluster52.0.zst");
  EXPECT_EQ(back.start_unix_us, 1'585'699'200'000'000u);
  EXPECT_EQ(back.time_resolution_us, 1'000'000u);
  EXPECT_EQ(back.malformed, 3u);
  EXPECT_EQ(r->file_bytes(), kTraceHeaderBytes + 5000 * sizeof(TraceEvent));
}

TEST(TraceFile, KeptKeysOnlyWhenAsked) {
  const fs::path dir = testing::fresh_dir("trace", "kept");
  auto w = TraceWriter::create((dir / "k.hctrace").string());
  ASSERT_TRUE(w);
  TraceEvent e = event(1);
  e.key = 42;
  ASSERT_TRUE(w->append(e));
  w->keep_key(42, "user:42:profile");
  TraceInfo info;
  info.flags = kKeysHashed | kKeysKept;
  ASSERT_TRUE(w->finish(info));
  auto r = TraceReader::open((dir / "k.hctrace").string());
  ASSERT_TRUE(r) << r.error().message;
  auto keys = r->kept_keys();
  ASSERT_TRUE(keys);
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ(keys->at(42), "user:42:profile");
  EXPECT_NE(r->header().flags & kKeysKept, 0u);
}

TEST(TraceFile, DamageIsFoundBeforeAnEventIsRead) {
  const fs::path dir = testing::fresh_dir("trace", "damage");
  const fs::path good = dir / "good.hctrace";
  write_trace(good, 100);
  struct Case {
    const char* name;
    std::function<void(const fs::path&)> damage;
    const char* says;
  };
  const Case cases[] = {
      {"a flipped event bit", [](const fs::path& p) { flip_byte(p, kTraceHeaderBytes + 77); }, "checksum"},
      {"a flipped header bit", [](const fs::path& p) { flip_byte(p, 20); }, "header is damaged"},
      {"cut short", [](const fs::path& p) { fs::resize_file(p, fs::file_size(p) - 10); }, "truncated"},
      {"cut inside the header", [](const fs::path& p) { fs::resize_file(p, 100); }, "shorter than its header"},
      {"another file", [](const fs::path& p) { std::ofstream(p) << std::string(300, 'x'); }, "no HCTRACE magic"},
  };
  size_t checked = 0;
  for (const Case& c : cases) {
    const fs::path p = dir / "bad.hctrace";
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    c.damage(p);
    auto r = TraceReader::open(p.string());
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().code, Errc::corrupt) << c.name;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << c.name << ": " << r.error().message;
    ++checked;
  }
  EXPECT_EQ(checked, std::size(cases));
}

TEST(TraceFile, LimitsStopTheWriterAndSayWhich) {
  const fs::path dir = testing::fresh_dir("trace", "limits");
  EXPECT_EQ(write_trace(dir / "e.hctrace", 1000, {.max_events = 300}), "max-events reached");
  auto e = TraceReader::open((dir / "e.hctrace").string());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->events().size(), 300u);
  EXPECT_EQ(write_trace(dir / "b.hctrace", 1000, {.max_bytes = kTraceHeaderBytes + 32 * 250 + 31}),
            "max-bytes reached");
  auto b = TraceReader::open((dir / "b.hctrace").string());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->events().size(), 250u);
}

// A write that fails midway (the file-size limit stands in for a full disk): the events that
// reached the disk are kept, the file is whole, and the writer says why it stopped.
TEST(TraceFile, AFailedWriteKeepsTheEventsBeforeIt) {
  const fs::path dir = testing::fresh_dir("trace", "full");
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = kTraceHeaderBytes + 3000 * sizeof(TraceEvent);  // room for one 2,048-event write, not two
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string reason = write_trace(dir / "f.hctrace", 10'000);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(reason.find("large"), std::string::npos) << reason;
  auto r = TraceReader::open((dir / "f.hctrace").string());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->events().size(), 2048u);
  EXPECT_EQ(r->events()[2047].time_us, event(2047).time_us);
}

TEST(TraceSummary, CountsMixMissRatiosAndAZipfFit) {
  const fs::path dir = testing::fresh_dir("trace", "summary");
  auto w = TraceWriter::create((dir / "s.hctrace").string());
  ASSERT_TRUE(w);
  // 200 keys, key k asked floor(2000 / k) times (Zipf, alpha 1): the first request of each a
  // miss, the rest hits; one write per key.
  uint64_t t = 0, reads = 0, writes = 0;
  for (uint64_t k = 1; k <= 200; ++k) {
    for (uint64_t i = 0; i < 2000 / k; ++i) {
      TraceEvent e{};
      e.time_us = t += 100;
      e.key = k;
      e.op = static_cast<uint8_t>(Op::get);
      e.outcome = static_cast<uint8_t>(i == 0 ? Outcome::not_found : Outcome::found);
      e.value_size = i == 0 ? 0 : 1000;
      ASSERT_TRUE(w->append(e));
      ++reads;
    }
    TraceEvent s{};
    s.time_us = t += 100;
    s.key = k;
    s.op = static_cast<uint8_t>(Op::set);
    s.outcome = static_cast<uint8_t>(Outcome::stored);
    s.value_size = 1000;
    ASSERT_TRUE(w->append(s));
    ++writes;
  }
  ASSERT_TRUE(w->finish({}));
  auto r = TraceReader::open((dir / "s.hctrace").string());
  ASSERT_TRUE(r);
  const TraceSummary s = summarize(*r);
  EXPECT_EQ(s.events, reads + writes);
  EXPECT_EQ(s.reads, reads);
  EXPECT_EQ(s.writes, writes);
  EXPECT_EQ(s.keys, 200u);
  EXPECT_EQ((s.by_op_outcome.at({"get", "not_found"})), 200u);
  EXPECT_EQ((s.by_op_outcome.at({"set", "stored"})), 200u);
  EXPECT_NEAR(s.recorded_miss_ratio, 200.0 / static_cast<double>(reads), 1e-12);
  EXPECT_NEAR(s.compulsory_miss_ratio, 200.0 / static_cast<double>(reads), 1e-12);
  EXPECT_NEAR(s.zipf_alpha, 1.0, 0.05);
  EXPECT_GT(s.zipf_r2, 0.95);
  EXPECT_EQ(s.interarrival_us.p50, 100u);
  EXPECT_EQ(s.value_bytes.p50, 1000u);
  EXPECT_NE(one_line(s).find("200 keys"), std::string::npos) << one_line(s);
}

}  // namespace
}  // namespace hitcost::trace
