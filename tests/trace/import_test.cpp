// Public traces into trace files (trace/import.h): counts exact, bad lines reported by number.
#include "trace/import.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "tests/support/fresh_dir.h"
#include "trace/trace_summary.h"

namespace hitcost::trace {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

std::string zstd_compress_all(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// A twemcache CSV in the documented columns (timestamp, key, key size, value size, client, op,
// ttl), with what it holds counted as it is made.
struct Twemcache {
  std::string csv;
  std::map<std::pair<std::string, std::string>, uint64_t> want;  // (op, outcome) -> events
  uint64_t lines = 0;
};

Twemcache make_twemcache(uint64_t n) {
  Twemcache t;
  std::mt19937_64 rng(7);
  const char* ops[] = {"get", "get", "get", "gets", "set", "add", "delete", "incr", "cas"};
  for (uint64_t i = 0; i < n; ++i) {
    const char* op = ops[rng() % std::size(ops)];
    const uint64_t key = rng() % 50;
    const bool read = std::strcmp(op, "get") == 0 || std::strcmp(op, "gets") == 0;
    const uint64_t value = read && rng() % 4 == 0 ? 0 : 100 + rng() % 900;
    const bool write = std::strcmp(op, "set") == 0 || std::strcmp(op, "add") == 0 || std::strcmp(op, "cas") == 0;
    t.csv += std::to_string(1000 + i / 20) + ",nz:u:K" + std::to_string(key) + "," + std::to_string(8) + "," +
             std::to_string(value) + "," + std::to_string(rng() % 3) + "," + op + "," + (write ? "3600" : "0") + "\n";
    ++t.lines;
    const std::string op_name = std::strcmp(op, "delete") == 0 ? "delete" : op;
    t.want[{op_name, read ? (value > 0 ? "found" : "not_found") : "unknown"}]++;
  }
  return t;
}

TEST(ImportTwemcache, EveryLineBecomesOneEventWithItsOpAndOutcome) {
  const fs::path dir = testing::fresh_dir("trace", "twemcache");
  const Twemcache t = make_twemcache(3000);
  write_file(dir / "cluster.csv", t.csv);
  auto r = import_trace({.format = ImportFormat::twemcache,
                         .input_path = (dir / "cluster.csv").string(),
                         .output_path = (dir / "t.hctrace").string()});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->lines, 3000u);
  EXPECT_EQ(r->events, 3000u);
  EXPECT_EQ(r->bad_total(), 0u);
  auto trace = TraceReader::open((dir / "t.hctrace").string());
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(count_by_op_outcome(trace->events()), t.want);
  // Whole seconds: 20 lines a second, times in µs from the first.
  EXPECT_EQ(trace->header().time_resolution_us, 1'000'000u);
  EXPECT_EQ(trace->header().start_unix_us, 1000u * 1'000'000);
  EXPECT_EQ(trace->events()[2999].time_us, (2999u / 20) * 1'000'000);
  EXPECT_EQ(summarize(*trace).keys, 50u);
  EXPECT_EQ(summarize(*trace).clients, 3u);
}

TEST(ImportTwemcache, ZstdCompressedGivesTheSameEvents) {
  const fs::path dir = testing::fresh_dir("trace", "twemcache-zst");
  const Twemcache t = make_twemcache(20'000);  // more than one 1 MiB read of decompressed text
  write_file(dir / "cluster.0", t.csv);
  write_file(dir / "cluster.0.zst", zstd_compress_all(t.csv));
  auto plain = import_trace({.format = ImportFormat::twemcache,
                             .input_path = (dir / "cluster.0").string(),
                             .output_path = (dir / "plain.hctrace").string(),
                             .keep_keys = true});
  auto packed = import_trace({.format = ImportFormat::twemcache,
                              .input_path = (dir / "cluster.0.zst").string(),
                              .output_path = (dir / "packed.hctrace").string(),
                              .keep_keys = true});
  ASSERT_TRUE(plain && packed);
  EXPECT_FALSE(plain->compressed);
  EXPECT_TRUE(packed->compressed);
  EXPECT_EQ(packed->events, 20'000u);
  auto a = TraceReader::open((dir / "plain.hctrace").string());
  auto b = TraceReader::open((dir / "packed.hctrace").string());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(count_by_op_outcome(b->events()), t.want);
  // Each import hashes with its own secret: the same keys, told apart the same way.
  auto keys_a = a->kept_keys(), keys_b = b->kept_keys();
  ASSERT_TRUE(keys_a && keys_b);
  size_t checked = 0;
  for (size_t i = 0; i < a->events().size(); ++i) {
    ASSERT_EQ(keys_a->at(a->events()[i].key), keys_b->at(b->events()[i].key)) << i;
    ASSERT_EQ(a->events()[i].time_us, b->events()[i].time_us) << i;
    ++checked;
  }
  EXPECT_EQ(checked, 20'000u);
}

TEST(ImportTwemcache, BrokenLinesAreReportedByNumberAndTheGoodOnesKept) {
  const fs::path dir = testing::fresh_dir("trace", "twemcache-bad");
  std::string csv =
      "1,a,1,10,0,get,0\n"           // 1 ok
      "1,b,1,10,0,get\n"             // 2 six fields
      "1,c,1,10,0,fetch,0\n"         // 3 unknown op
      "x,d,1,10,0,get,0\n"           // 4 bad timestamp
      "2,e,1,-5,0,get,0\n"           // 5 bad size
      "\n"                           // 6 empty
      "2,f,1,0,0,get,0\n"            // 7 ok (a miss)
      "1,g,1,10,0,set,60\n"          // 8 ok, time backwards
      "3,h,1,10,0,delete,0,extra\n"  // 9 eight fields
      "3,,1,10,0,get,0\n"            // 10 empty key
      "3,i,1,10,0,get,0";            // 11 ok, no final newline
  write_file(dir / "bad.csv", csv);
  auto r = import_trace({.format = ImportFormat::twemcache,
                         .input_path = (dir / "bad.csv").string(),
                         .output_path = (dir / "bad.hctrace").string()});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->lines, 11u);
  EXPECT_EQ(r->events, 4u);
  EXPECT_EQ(r->time_backwards, 1u);
  EXPECT_EQ(r->bad_total(), 7u);
  EXPECT_EQ(r->bad.at("fields (not 7)").first_lines, (std::vector<uint64_t>{2, 9}));
  EXPECT_EQ(r->bad.at("op").first_lines, (std::vector<uint64_t>{3}));
  EXPECT_EQ(r->bad.at("timestamp").first_lines, (std::vector<uint64_t>{4}));
  EXPECT_EQ(r->bad.at("size").first_lines, (std::vector<uint64_t>{5}));
  EXPECT_EQ(r->bad.at("empty").first_lines, (std::vector<uint64_t>{6}));
  EXPECT_EQ(r->bad.at("key").first_lines, (std::vector<uint64_t>{10}));
  auto trace = TraceReader::open((dir / "bad.hctrace").string());
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->header().malformed, 7u);
  const auto mix = count_by_op_outcome(trace->events());
  EXPECT_EQ((mix.at({"get", "found"})), 2u);
  EXPECT_EQ((mix.at({"get", "not_found"})), 1u);
  EXPECT_EQ((mix.at({"set", "unknown"})), 1u);
  // Line 8's time went back to 1 s: written at 2 s, the time before it.
  EXPECT_EQ(trace->events()[2].time_us, 1'000'000u);
}

TEST(ImportTwemcache, ACutZstdStreamIsAnErrorNotAShortTrace) {
  const fs::path dir = testing::fresh_dir("trace", "twemcache-cut");
  const std::string packed = zstd_compress_all(make_twemcache(5000).csv);
  write_file(dir / "cut.zst", packed.substr(0, packed.size() / 2));
  auto r = import_trace({.format = ImportFormat::twemcache,
                         .input_path = (dir / "cut.zst").string(),
                         .output_path = (dir / "cut.hctrace").string()});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::decompress_failed);
  EXPECT_FALSE(fs::exists(dir / "cut.hctrace"));
  EXPECT_FALSE(fs::exists(dir / "cut.hctrace.tmp"));
}

std::string oracle_record(uint32_t ts, uint64_t id, uint32_t size, int64_t next) {
  std::string r(24, '\0');
  std::memcpy(r.data(), &ts, 4);
  std::memcpy(r.data() + 4, &id, 8);
  std::memcpy(r.data() + 12, &size, 4);
  std::memcpy(r.data() + 16, &next, 8);
  return r;
}

TEST(ImportOracleGeneral, RecordsBecomeReadsAndACutRecordIsReported) {
  const fs::path dir = testing::fresh_dir("trace", "oracle");
  std::string bin;
  std::map<uint64_t, uint64_t> per_id;
  for (uint32_t i = 0; i < 1000; ++i) {
    const uint64_t id = (i * 7919ull) % 120;
    bin += oracle_record(5000 + i / 100, id, 4096 + static_cast<uint32_t>(id), -1);
    ++per_id[id];
  }
  write_file(dir / "w.oracleGeneral.bin", bin);
  write_file(dir / "w.oracleGeneral.bin.zst", zstd_compress_all(bin + bin.substr(0, 10)));
  auto r = import_trace({.format = ImportFormat::oracle_general,
                         .input_path = (dir / "w.oracleGeneral.bin").string(),
                         .output_path = (dir / "o.hctrace").string()});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->events, 1000u);
  EXPECT_EQ(r->bad_total(), 0u);
  auto trace = TraceReader::open((dir / "o.hctrace").string());
  ASSERT_TRUE(trace);
  EXPECT_EQ((count_by_op_outcome(trace->events()).at({"get", "unknown"})), 1000u);
  const TraceSummary s = summarize(*trace);
  EXPECT_EQ(s.keys, per_id.size());
  EXPECT_DOUBLE_EQ(s.recorded_miss_ratio, -1);  // oracleGeneral records no outcome
  EXPECT_NEAR(s.compulsory_miss_ratio, double(per_id.size()) / 1000.0, 1e-12);
  EXPECT_EQ(trace->events()[999].time_us, 9u * 1'000'000);

  // Compressed, with 10 bytes of a 1,001st record at the end.
  auto cut = import_trace({.format = ImportFormat::oracle_general,
                           .input_path = (dir / "w.oracleGeneral.bin.zst").string(),
                           .output_path = (dir / "c.hctrace").string()});
  ASSERT_TRUE(cut) << cut.error().message;
  EXPECT_EQ(cut->events, 1000u);
  ASSERT_EQ(cut->bad.count("truncated record"), 1u);
  EXPECT_EQ(cut->bad.at("truncated record").first_lines, (std::vector<uint64_t>{1001}));
}

TEST(ImportFormat, NamesAreParsedAndOthersRefused) {
  EXPECT_EQ(*parse_import_format("twemcache"), ImportFormat::twemcache);
  EXPECT_EQ(*parse_import_format("oracleGeneral"), ImportFormat::oracle_general);
  auto bad = parse_import_format("csv");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("twemcache | oraclegeneral"), std::string::npos);
}

}  // namespace
}  // namespace hitcost::trace
