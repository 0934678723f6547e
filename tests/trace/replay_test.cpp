// A trace recorded from a real memcached that PHP's stock Memcached class drove, replayed by
// hitcost-load --trace against hitcost-server: every request of the schedule reaches the server
// (its access log, per page id and method), the reads hit as often as the trace's did, and the
// run record says which trace it replayed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "load/replay_schedule.h"
#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"
#include "tests/support/value_corpus.h"
#include "tests/trace/php_recording.h"
#include "trace/trace_file.h"

namespace hitcost::trace {
namespace {

namespace fs = std::filesystem;
using hitcost::testing::CommandResult;
using hitcost::testing::run_command;

using Requests = std::map<std::pair<std::string, uint32_t>, uint64_t>;  // (method, id) -> requests
const char* const kMethods[] = {"GET", "PUT", "DELETE"};

// What a schedule sends in its window, per method and id (not its prewarm).
Requests scheduled_requests(const client::ReplaySchedule& schedule) {
  Requests want;
  for (const auto& lane : schedule.per_thread)
    for (const client::ReplayRequest& r : lane) ++want[{kMethods[size_t(r.kind)], r.id}];
  return want;
}

// What the server's access log shows of the replay's route (/page/{id}?rows=R or /value/{n}), per
// method and id, less the schedule's prewarm requests. The run's own probes are not of that form
// (the first request's check asks /page/{id} without rows; the page sizing, ids no key gets).
Requests logged_requests(const fs::path& access_log, const client::ReplaySchedule& schedule) {
  Requests seen;
  std::ifstream log(access_log);
  std::string line;
  const std::regex request(schedule.values ? R"re("(GET|PUT|DELETE) /value/(\d+) HTTP)re"
                                           : R"re("(GET|PUT|DELETE) /page/(\d+)\?rows=\d+ HTTP)re");
  while (std::getline(log, line)) {
    std::smatch m;
    if (std::regex_search(line, m, request)) ++seen[{m[1].str(), uint32_t(std::stoul(m[2].str()))}];
  }
  for (const client::ReplayRequest& p : schedule.prewarm) --seen[{kMethods[size_t(p.kind)], p.id}];
  return seen;
}

// Every scheduled (method, id) was seen exactly as often; returns how many were compared.
size_t expect_same_requests(const Requests& want, Requests seen) {
  size_t checked = 0;
  for (const auto& [k, n] : want) {
    EXPECT_EQ(seen[k], n) << k.first << " " << k.second;
    ++checked;
  }
  return checked;
}

TEST(Replay, EveryScheduledRequestReachesTheServerAndReadsHitAsTheTraceDid) {
  const fs::path dir = hitcost::testing::fresh_dir("trace-replay", "php");
  const fs::path trace = record_php_trace(dir, 3000);
  // What the schedule holds per page id and kind (ids and kinds do not depend on page sizes).
  auto schedule = client::build_replay_schedule(trace.string(), 1.0, 1, client::ReplayTarget{});
  ASSERT_TRUE(schedule) << schedule.error().message;
  const Requests want = scheduled_requests(**schedule);
  uint64_t scheduled = 0;
  for (const auto& [k, n] : want) scheduled += n;
  ASSERT_GT(scheduled, 3000u);
  ASSERT_GT((*schedule)->counts.inferred_removes, 0u);  // PHP's deletes, seen as recorded misses

  hitcost::testing::ServerProcess server(
      {"--store", "memory", "--access-log", (dir / "access.log").string(), "--log-buffer", "0", "--threads", "1"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const CommandResult run =
      // A quarter of PHP's pace (~11k requests/s recorded): headroom for a busy machine, so
      // that every request is answered in time (checked next) and each can be counted.
      run_command(
          {hitcost::testing::load_binary(), "--url", url, "--trace", trace.string(), "--speed", "0.25", "--warmup",
           "1s", "--connections", "8", "--idle", "0", "--no-floor", "--json", (dir / "run.json").string()},
          {.timeout_ms = 120'000});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(slurp(dir / "run.json"));
  const auto& replay = j.at("replay");
  EXPECT_EQ(j.at("unsent").get<uint64_t>() + j.at("unfinished").get<uint64_t>(), 0u) << run.out;
  EXPECT_EQ(replay.at("trace").get<std::string>(), trace.string());
  EXPECT_EQ(replay.at("trace_crc32c").get<uint32_t>(), (*schedule)->trace_crc);
  EXPECT_EQ(replay.at("answered").at("read").get<uint64_t>(), (*schedule)->counts.reads);
  EXPECT_EQ(replay.at("answered").at("write").get<uint64_t>(),
            (*schedule)->counts.writes + (*schedule)->counts.inferred_writes);
  EXPECT_EQ(replay.at("answered").at("delete").get<uint64_t>(),
            (*schedule)->counts.removes + (*schedule)->counts.inferred_removes);
  EXPECT_EQ(j.at("errors").at("timeout").get<uint64_t>() + j.at("errors").at("status").get<uint64_t>(), 0u);

  // The server saw each scheduled request once, per id and method (the access log), besides the
  // run's own probes (the first request's check, the page sizing) and the prewarm PUTs.
  server.signal(SIGTERM);
  server.wait_exit(10'000);
  EXPECT_EQ(expect_same_requests(want, logged_requests(dir / "access.log", **schedule)), want.size());

  // The reads hit as the trace's did (the memory store holds everything). By the answers'
  // X-Cache, every read: the server's counters cover its window, not the reads answered in the
  // drain after it (late ones, on a busy machine).
  const double hit_reads = j.at("hit_latency_us").at("count").get<double>();
  const double hits = hit_reads / (hit_reads + j.at("miss_latency_us").at("count").get<double>());
  EXPECT_EQ(hit_reads + j.at("miss_latency_us").at("count").get<double>(), double((*schedule)->counts.reads));
  const auto& c = (*schedule)->counts;
  const double recorded = double(c.recorded_found) / double(c.recorded_found + c.recorded_not_found);
  EXPECT_NEAR(hits, recorded, 0.01) << "replay " << hits << ", trace " << recorded;
}

// --values: the recorded PHP trace replayed on a user's values (the corpus hitcost-server serves
// at /value/{n}): per id and method the server saw what the schedule holds, each id a value of
// its key's size class (or the nearest), and the reads hit as the trace's did. A server serving
// no corpus, or another one, is refused before anything is sent.
TEST(Replay, OnTheUsersValuesEachKeyAsksItsValueAndHitsAsTheTraceDid) {
  namespace vc = hitcost::testing::value_corpus;
  const fs::path dir = hitcost::testing::fresh_dir("trace-replay", "values");
  const fs::path trace = record_php_trace(dir, 2000);
  const std::string corpus = vc::write_corpus((dir / "values.hcorpus").string(), vc::good_values());
  uint64_t records = 0;
  auto sizes = client::served_value_sizes(corpus, records);
  ASSERT_TRUE(sizes) << sizes.error().message;
  client::ReplayTarget target;
  target.value_sizes = *sizes;
  auto schedule = client::build_replay_schedule(trace.string(), 1.0, 1, target);
  ASSERT_TRUE(schedule) << schedule.error().message;
  const auto& c = (*schedule)->counts;
  EXPECT_EQ(c.keys_in_class + c.keys_nearest, c.keys);
  const Requests want = scheduled_requests(**schedule);
  ASSERT_GT(want.size(), 50u);

  hitcost::testing::ServerProcess server({"--store", "memory", "--corpus", corpus, "--access-log",
                                          (dir / "access.log").string(), "--log-buffer", "0", "--threads", "1"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const CommandResult run = run_command(
      {hitcost::testing::load_binary(), "replay", trace.string(), "--values", corpus, "--url", url, "--speed", "0.25",
       "--warmup", "1s", "--connections", "8", "--idle", "0", "--no-floor", "--json", (dir / "run.json").string()},
      {.timeout_ms = 120'000});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("keys as /value/{n}"), std::string::npos) << run.err;
  const auto j = nlohmann::json::parse(slurp(dir / "run.json"));
  const auto& replay = j.at("replay");
  EXPECT_EQ(j.at("unsent").get<uint64_t>() + j.at("unfinished").get<uint64_t>(), 0u) << run.out;
  EXPECT_EQ(replay.at("route").get<std::string>(), "/value/{n}");
  EXPECT_EQ(replay.at("values_corpus").get<std::string>(), corpus);
  EXPECT_EQ(replay.at("answered").at("read").get<uint64_t>(), c.reads);
  EXPECT_EQ(j.at("errors").at("status").get<uint64_t>() + j.at("errors").at("timeout").get<uint64_t>(), 0u);

  server.signal(SIGTERM);
  server.wait_exit(10'000);
  EXPECT_EQ(expect_same_requests(want, logged_requests(dir / "access.log", **schedule)), want.size());

  const double hit_reads = j.at("hit_latency_us").at("count").get<double>();
  const double reads = hit_reads + j.at("miss_latency_us").at("count").get<double>();
  EXPECT_EQ(reads, double(c.reads));
  const double recorded = double(c.recorded_found) / double(c.recorded_found + c.recorded_not_found);
  EXPECT_NEAR(hit_reads / reads, recorded, 0.01);

  // No corpus on the server, then another corpus: refused (usage, exit 2), nothing sent.
  hitcost::testing::ServerProcess bare({"--store", "memory"});
  const CommandResult none =
      run_command({hitcost::testing::load_binary(), "replay", trace.string(), "--values", corpus, "--url",
                   "http://127.0.0.1:" + std::to_string(bare.port()), "--idle", "0", "--no-floor"});
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_NE(none.err.find("serves no corpus"), std::string::npos) << none.err;
  auto fewer = vc::good_values();
  fewer.pop_back();
  const std::string other = vc::write_corpus((dir / "other.hcorpus").string(), fewer);
  hitcost::testing::ServerProcess elsewhere({"--store", "memory", "--corpus", other});
  const CommandResult mismatch =
      run_command({hitcost::testing::load_binary(), "replay", trace.string(), "--values", corpus, "--url",
                   "http://127.0.0.1:" + std::to_string(elsewhere.port()), "--idle", "0", "--no-floor"});
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.out << mismatch.err;
  EXPECT_NE(mismatch.err.find("not the same corpus"), std::string::npos) << mismatch.err;
}

// sweep --trace: every run of every strategy replays the same trace (a twemcache file made here:
// 200 keys under a skew, gets, sets and deletes), interleaved in rounds, with the verdicts of
// any sweep. Each run holds the trace's identity and hits as the trace did.
TEST(Replay, SweepReplaysTheTraceUnderEveryStrategyAndGivesVerdicts) {
  const fs::path dir = hitcost::testing::fresh_dir("trace-replay", "sweep");
  {
    std::ofstream csv(dir / "cluster.csv");
    uint64_t x = 88172645463325252ull;  // xorshift: the same file every time
    auto next = [&] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
    for (int i = 0; i < 1500; ++i) {
      const uint64_t u = next() % 1000;
      const uint64_t key = (u * u) / 5000;  // 0..199, skewed to the low ones
      const uint64_t roll = next() % 100;
      const char* op = roll < 85 ? "get" : roll < 95 ? "set" : "delete";
      csv << 3000 + i / 1500 << ",key" << key << ",6," << 600 + key * 20 << "," << key % 3 << "," << op << ",0\n";
    }
  }
  const CommandResult import =
      run_command({hitcost::testing::corpus_binary(), "trace", "import", "--format", "twemcache",
                   (dir / "cluster.csv").string(), "-o", (dir / "t.hctrace").string()});
  ASSERT_EQ(import.exit_code, 0) << import.out << import.err;
  hitcost::testing::ServerProcess server({"--store", "memory", "--threads", "1"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const CommandResult sweep =
      run_command({hitcost::testing::load_binary(), "sweep", "--url", url, "--trace", (dir / "t.hctrace").string(),
                   "--strategies", "html,html+zlib,struct:json,struct:json+zlib", "--repeat", "3", "--warmup", "300ms",
                   "--idle", "0", "--no-floor", "--connections", "8", "--json", (dir / "sweep.json").string()},
                  {.timeout_ms = 240'000});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
  EXPECT_NE(sweep.out.find("replay " + (dir / "t.hctrace").string()), std::string::npos) << sweep.out;
  const auto j = nlohmann::json::parse(slurp(dir / "sweep.json"));
  std::map<std::string, int> runs_of;
  size_t checked = 0;
  for (const auto& run : j.at("runs")) {
    ++runs_of[run.at("strategy").get<std::string>()];
    const auto& replay = run.at("replay");
    EXPECT_EQ(replay.at("trace").get<std::string>(), (dir / "t.hctrace").string());
    EXPECT_EQ(replay.at("answered").at("read").get<uint64_t>(), replay.at("reads").get<uint64_t>());
    EXPECT_EQ(run.at("errors").at("validation").get<uint64_t>(), 0u);
    const double hit_reads = run.at("hit_latency_us").at("count").get<double>();
    const double reads = hit_reads + run.at("miss_latency_us").at("count").get<double>();
    EXPECT_EQ(reads, replay.at("reads").get<double>());
    EXPECT_NEAR(hit_reads / reads, run.at("target_hit_ratio").get<double>(), 0.01);
    ++checked;
  }
  EXPECT_EQ(checked, 12u);
  EXPECT_EQ(runs_of,
            (std::map<std::string, int>{{"html", 3}, {"html+zlib", 3}, {"struct:json", 3}, {"struct:json+zlib", 3}}));
  // A verdict for each strategy against the baseline, paired over the rounds.
  ASSERT_EQ(j.at("verdicts").size(), 3u);
  for (const auto& v : j.at("verdicts")) {
    EXPECT_EQ(v.at("baseline").get<std::string>(), "html");
    // Three rounds, so at most three pairs (fewer when a run was left out for other work beside it).
    EXPECT_LE(v.at("pairs").get<int>(), 3) << v.at("text");
    const std::string kind = v.at("kind").get<std::string>();
    EXPECT_TRUE(kind == "costs" || kind == "same" || kind == "undecided") << kind;
    EXPECT_FALSE(v.at("text").get<std::string>().empty());
  }
}

// `hitcost-load replay TRACE` is a plain run of the trace; --rate sets its pace instead of --speed
// (a trace of 400 gets over two whole seconds: 200/s; --rate 400 replays it at 2x), not both.
TEST(Replay, TheReplaySubcommandTakesARateInsteadOfASpeed) {
  const fs::path dir = hitcost::testing::fresh_dir("trace-replay", "rate");
  {
    std::ofstream csv(dir / "two-seconds.csv");
    for (int i = 0; i < 400; ++i) csv << 5000 + i / 200 << ",k" << i % 40 << ",3,500,0,get,0\n";
  }
  ASSERT_EQ(run_command({hitcost::testing::corpus_binary(), "trace", "import", "--format", "twemcache",
                         (dir / "two-seconds.csv").string(), "-o", (dir / "t.hctrace").string()})
                .exit_code,
            0);
  hitcost::testing::ServerProcess server({"--store", "memory"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const CommandResult both = run_command({hitcost::testing::load_binary(), "replay", (dir / "t.hctrace").string(),
                                          "--url", url, "--rate", "400", "--speed", "3"});
  EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("--rate and --speed"), std::string::npos) << both.err;
  // --as-recorded says the default pace out loud: not with a pace of its own; --values is a replay's.
  for (const char* pace : {"--speed", "--rate"}) {
    const CommandResult said = run_command({hitcost::testing::load_binary(), "replay", (dir / "t.hctrace").string(),
                                            "--url", url, "--as-recorded", pace, "2"});
    EXPECT_EQ(said.exit_code, 2) << pace << ": " << said.out << said.err;
    EXPECT_NE(said.err.find("--as-recorded"), std::string::npos) << said.err;
  }
  const CommandResult values_alone =
      run_command({hitcost::testing::load_binary(), "--url", url, "--values", (dir / "t.hctrace").string()});
  EXPECT_EQ(values_alone.exit_code, 2) << values_alone.out << values_alone.err;
  EXPECT_NE(values_alone.err.find("--values CORPUS is a replay's"), std::string::npos) << values_alone.err;
  const CommandResult run =
      run_command({hitcost::testing::load_binary(), "replay", (dir / "t.hctrace").string(), "--url", url, "--rate",
                   "400", "--warmup", "200ms", "--idle", "0", "--no-floor", "--json", (dir / "run.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(slurp(dir / "run.json"));
  EXPECT_DOUBLE_EQ(j.at("replay").at("speed").get<double>(), 2.0);
  EXPECT_EQ(j.at("replay").at("answered").at("read").get<uint64_t>(), 400u);
  EXPECT_NEAR(j.at("replay").at("span_s").get<double>(), 0.9975, 1e-6);  // the last of 2 x 200, at 2x
}

}  // namespace
}  // namespace hitcost::trace
