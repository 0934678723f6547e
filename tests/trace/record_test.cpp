// Recording a real memcached (trace/recorder.h, hitcost-corpus record) while PHP's stock
// Memcached class drives it with a known mix: the recording's counts equal what PHP did, per key.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "corpus/corpus_file.h"
#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"
#include "tests/trace/php_recording.h"
#include "trace/recorder.h"
#include "trace/trace_summary.h"

namespace hitcost::trace {
namespace {

namespace fs = std::filesystem;
using hitcost::testing::CommandResult;
using hitcost::testing::MemcachedProcess;
using hitcost::testing::run_command;

struct Did {
  uint64_t get_found = 0, get_missed = 0, sets = 0, deletes_found = 0, deletes_missed = 0;
};

std::map<std::string, Did> read_did(const fs::path& tsv) {
  std::map<std::string, Did> did;
  std::ifstream in(tsv);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream cols(line);
    std::string key;
    Did d;
    cols >> key >> d.get_found >> d.get_missed >> d.sets >> d.deletes_found >> d.deletes_missed;
    did[key] = d;
  }
  return did;
}

// PHP runs while the recorder watches; the recorder is stopped once PHP is done and its last
// lines had time to arrive.
struct Recorded {
  RecordResult result;
  std::map<std::string, Did> did;
};

Recorded record_php_traffic(const MemcachedProcess& mc, const fs::path& dir, bool keep_keys, int requests,
                            size_t top_keys = 0) {
  Recorded out;
  auto r = trace::record_php_traffic(mc, dir, keep_keys, requests, 11, top_keys);
  EXPECT_TRUE(r) << r.error().message;
  if (r) out.result = *r;
  out.did = read_did(dir / "did.tsv");
  return out;
}

TEST(Record, CountsByKeyOperationAndOutcomeEqualWhatPhpDid) {
  MemcachedProcess mc(64, roomy_watch_buffers());
  const fs::path dir = hitcost::testing::fresh_dir("trace-record", "per-key");
  const Recorded rec = record_php_traffic(mc, dir, /*keep_keys=*/true, 4000, /*top_keys=*/10);
  ASSERT_FALSE(rec.did.empty());
  EXPECT_EQ(rec.result.stopped_by, "interrupted");
  EXPECT_EQ(rec.result.watch.skipped, 0u);
  EXPECT_EQ(rec.result.watch.missing_by_gid(), 0u);
  EXPECT_EQ(rec.result.watch.malformed, 0u);

  auto trace = TraceReader::open((dir / "t.hctrace").string());
  ASSERT_TRUE(trace) << trace.error().message;
  auto keys = trace->kept_keys();
  ASSERT_TRUE(keys) << keys.error().message;
  // Per key: lookups found = PHP's hits + deletes that found the key (1.6.18 logs a delete as
  // its lookup); not found = misses + deletes of absent keys; sets stored = sets.
  std::map<std::string, Did> seen;
  for (const TraceEvent& e : trace->events()) {
    Did& d = seen[keys->at(e.key)];
    const auto op = static_cast<Op>(e.op);
    const auto outcome = static_cast<Outcome>(e.outcome);
    if (op == Op::get && outcome == Outcome::found) ++d.get_found;
    if (op == Op::get && outcome == Outcome::not_found) ++d.get_missed;
    if (op == Op::set && outcome == Outcome::stored) ++d.sets;
  }
  uint64_t total_requests = 0;
  size_t checked = 0;
  for (const auto& [key, did] : rec.did) {
    const Did& got = seen[key];
    EXPECT_EQ(got.get_found, did.get_found + did.deletes_found) << key;
    EXPECT_EQ(got.get_missed, did.get_missed + did.deletes_missed) << key;
    EXPECT_EQ(got.sets, did.sets) << key;
    total_requests += did.get_found + did.get_missed + did.sets + did.deletes_found + did.deletes_missed;
    ++checked;
  }
  EXPECT_EQ(checked, rec.did.size());
  EXPECT_EQ(seen.size(), rec.did.size());  // no key PHP did not ask
  EXPECT_EQ(trace->events().size(), total_requests);
  EXPECT_GE(total_requests, 4000u);  // each of the 4,000 steps made one request, a miss two

  // memcached's own counters over the window name what the stream cannot: the deletes.
  uint64_t get_hits = 0, get_misses = 0, sets = 0, del_hits = 0, del_misses = 0;
  for (const auto& [key, d] : rec.did)
    get_hits += d.get_found, get_misses += d.get_missed, sets += d.sets, del_hits += d.deletes_found,
        del_misses += d.deletes_missed;
  auto counter = [&](const char* name) { return rec.result.counters.at(name); };
  EXPECT_EQ(counter("get_hits"), get_hits);
  EXPECT_EQ(counter("get_misses"), get_misses);
  EXPECT_EQ(counter("cmd_set"), sets);
  EXPECT_EQ(counter("delete_hits"), del_hits);
  EXPECT_EQ(counter("delete_misses"), del_misses);
  EXPECT_GT(del_hits + del_misses, 0u);
  EXPECT_EQ(rec.result.recording.commands, get_hits + get_misses + sets + del_hits + del_misses);
  EXPECT_EQ(rec.result.recorded, count_by_op_outcome(trace->events()));

  // The ten most-read keys (--values 10): PHP's reads of each are its gets and its deletes (both
  // lookups in the stream). 97-odd keys fit the summary: every count exact, and certain.
  std::map<std::string, uint64_t> reads;
  for (const auto& [key, d] : rec.did) reads[key] = d.get_found + d.get_missed + d.deletes_found + d.deletes_missed;
  std::vector<std::pair<uint64_t, std::string>> by_reads;
  for (const auto& [key, n] : reads) by_reads.emplace_back(n, key);
  std::sort(by_reads.begin(), by_reads.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  const TopKeys::Top& top = rec.result.top_keys;
  ASSERT_EQ(top.keys.size(), 10u);
  EXPECT_TRUE(top.certain);
  for (size_t i = 0; i < top.keys.size(); ++i) {
    EXPECT_EQ(top.keys[i].key, by_reads[i].second) << "rank " << i;
    EXPECT_EQ(top.keys[i].count, by_reads[i].first) << top.keys[i].key;
    EXPECT_EQ(top.keys[i].error, 0u);
  }
  uint64_t all_reads = 0;
  for (const auto& [key, n] : reads) all_reads += n;
  EXPECT_EQ(rec.result.top_reads, all_reads);
}

TEST(Record, NoKeyIsInTheFileUnlessAskedFor) {
  MemcachedProcess mc(64, roomy_watch_buffers());
  size_t checked = 0;
  for (const bool keep : {false, true}) {
    const fs::path dir = hitcost::testing::fresh_dir("trace-record", keep ? "kept" : "hashed");
    const Recorded rec = record_php_traffic(mc, dir, keep, 300);
    ASSERT_FALSE(rec.did.empty());
    const std::string bytes = slurp(dir / "t.hctrace");
    size_t in_clear = 0;
    for (const auto& [key, did] : rec.did) in_clear += bytes.find(key) != std::string::npos;
    if (keep) {
      EXPECT_EQ(in_clear, rec.did.size());  // the check finds keys when they are there
    } else {
      EXPECT_EQ(in_clear, 0u);
      EXPECT_EQ(bytes.find("user:"), std::string::npos);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

// The program: a recording of a few raw commands, its JSON, and `trace show` on the file.
TEST(RecordCli, RecordsForItsDurationThenShowSummarizesTheFile) {
  MemcachedProcess mc(64, roomy_watch_buffers());
  const fs::path dir = hitcost::testing::fresh_dir("trace-record", "cli");
  std::atomic<bool> done{false};
  std::thread traffic([&] {
    // Traffic from a second connection while hitcost-corpus records for 2 s (its watcher connects
    // within the first second: the baseline is 0 s).
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    hitcost::testing::memcached_raw(mc.port(), "set a 0 0 5\r\nhello\r\n", "STORED\r\n");
    for (int i = 0; i < 10; ++i) hitcost::testing::memcached_raw(mc.port(), "get a\r\n", "END\r\n");
    hitcost::testing::memcached_raw(mc.port(), "get nope\r\n", "END\r\n");
    done = true;
  });
  // --values 2: the two keys read ("a" ten times, "nope" once) fetched into a corpus beside the
  // trace; "nope" is not in the cache: counted gone.
  const CommandResult r = run_command(
      {hitcost::testing::corpus_binary(), "record", "--from", "memcached:" + mc.address(), "--duration", "2500ms",
       "--baseline", "0", "-o", (dir / "t.hctrace").string(), "--json", (dir / "r.json").string(), "--values", "2"});
  traffic.join();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(done);
  EXPECT_NE(r.out.find("stopped by duration"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(dir / "r.json"));
  EXPECT_EQ(j.at("events").get<uint64_t>(), 12u);
  EXPECT_EQ(j.at("counters").at("get_hits").get<uint64_t>(), 10u);
  EXPECT_EQ(j.at("values").at("corpus").get<std::string>(), (dir / "t.hcorpus").string());
  EXPECT_EQ(j.at("values").at("keys").get<uint64_t>(), 2u);
  EXPECT_EQ(j.at("values").at("values").get<uint64_t>(), 1u);
  EXPECT_EQ(j.at("values").at("gone").get<uint64_t>(), 1u);
  EXPECT_EQ(j.at("values").at("reads_of_keys").get<uint64_t>(), 11u);
  auto values = corpus::read_corpus((dir / "t.hcorpus").string());
  ASSERT_TRUE(values) << values.error().message;
  ASSERT_EQ(values->records.size(), 1u);
  EXPECT_EQ(values->records[0].key, "a");
  EXPECT_EQ(values->records[0].value, "hello");
  EXPECT_NE(r.out.find("corpus " + (dir / "t.hcorpus").string() + ": 1 values"), std::string::npos) << r.out;

  const CommandResult show = run_command({hitcost::testing::corpus_binary(), "trace", "show",
                                          (dir / "t.hctrace").string(), "--json", (dir / "s.json").string()});
  ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s.at("events").get<uint64_t>(), 12u);
  EXPECT_EQ(s.at("keys").get<uint64_t>(), 2u);
  EXPECT_EQ(s.at("writes").get<uint64_t>(), 1u);
  EXPECT_NEAR(s.at("recorded_miss_ratio").get<double>(), 1.0 / 11.0, 1e-9);
  EXPECT_NE(show.out.find("summary"), std::string::npos) << show.out;

  // A memcached that is not there: exit 1 with the address named, no file left behind.
  const CommandResult gone =
      run_command({hitcost::testing::corpus_binary(), "record", "--from", "memcached:127.0.0.1:1", "--duration", "1s",
                   "-o", (dir / "gone.hctrace").string()});
  EXPECT_EQ(gone.exit_code, 1) << gone.out << gone.err;
  EXPECT_NE(gone.err.find("127.0.0.1:1"), std::string::npos) << gone.err;
  EXPECT_FALSE(fs::exists(dir / "gone.hctrace"));
  EXPECT_FALSE(fs::exists(dir / "gone.hctrace.tmp"));
}

}  // namespace
}  // namespace hitcost::trace
