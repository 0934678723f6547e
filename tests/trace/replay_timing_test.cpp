// The replay keeps the trace's inter-arrival times, as seen by the server: each request of a
// recorded trace reaches hitcost-server at its due time plus one offset, within the send lateness
// the run reports. Label timing (scripts/test-sanitizers.sh leaves it out: under ASan the server
// with a slow log on every request, and the load, fall behind a pace this one keeps).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "load/replay_schedule.h"
#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"
#include "tests/trace/php_recording.h"

namespace hitcost::trace {
namespace {

namespace fs = std::filesystem;
using hitcost::testing::CommandResult;
using hitcost::testing::run_command;

// The replay keeps the trace's times: every request reaches the server at its due time plus one
// offset, within the send lateness the run reports (and a little for loopback and the server's
// read). hitcost-server's slow log with a threshold of 0 times every request it serves.
TEST(Replay, RequestsReachTheServerAtTheTracesTimesWithinTheLatenessTheRunReports) {
  const fs::path dir = hitcost::testing::fresh_dir("trace-replay", "times");
  const fs::path trace = record_php_trace(dir, 3000);
  constexpr double kSpeed = 0.1;
  auto schedule = client::build_replay_schedule(trace.string(), kSpeed, 1, client::ReplayTarget{});
  ASSERT_TRUE(schedule) << schedule.error().message;
  const fs::path slow = dir / "slow.jsonl";
  hitcost::testing::ServerProcess server({"--store", "memory", "--threads", "1", "--slow-log", "0", "--slow-log-file",
                                          slow.string(), "--slow-log-rate", "1000000"});
  const CommandResult run =
      run_command({hitcost::testing::load_binary(), "--url", "http://127.0.0.1:" + std::to_string(server.port()),
                   "--trace", trace.string(), "--speed", "0.1", "--warmup", "1s", "--connections", "8", "--idle", "0",
                   "--no-floor", "--json", (dir / "run.json").string()},
                  {.timeout_ms = 120'000});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(slurp(dir / "run.json"));
  ASSERT_EQ(j.at("unsent").get<uint64_t>() + j.at("unfinished").get<uint64_t>(), 0u);
  const double lateness_max_us = j.at("send_lateness_us").at("max").get<double>();
  server.signal(SIGTERM);
  server.wait_exit(10'000);

  // Arrivals per page id, in order (a replay target carries ?rows=; the run's probes do not, or
  // ask ids no key gets): the server's start of each request, its end less its service time.
  std::map<uint32_t, std::vector<double>> arrivals_us;
  std::ifstream in(slow);
  std::string line;
  const std::regex replayed(R"re(^/page/(\d+)\?rows=\d+$)re");
  while (std::getline(in, line)) {
    const auto e = nlohmann::json::parse(line);
    std::smatch m;
    const std::string target = e.at("target").get<std::string>();
    if (!std::regex_match(target, m, replayed)) continue;
    arrivals_us[uint32_t(std::stoul(m[1].str()))].push_back(double(e.at("time_unix_ns").get<uint64_t>()) / 1e3 -
                                                            e.at("service_us").get<double>());
  }
  for (auto& [id, times] : arrivals_us) std::sort(times.begin(), times.end());
  // The prewarm's requests came first (in the warm-up); then each id's requests in the trace's order.
  std::map<uint32_t, size_t> next;
  for (const client::ReplayRequest& p : (*schedule)->prewarm) ++next[p.id];
  double lowest = 1e300, highest = -1e300;
  size_t matched = 0;
  for (const client::ReplayRequest& r : (*schedule)->per_thread[0]) {
    const std::vector<double>& times = arrivals_us[r.id];
    const size_t k = next[r.id]++;
    ASSERT_LT(k, times.size()) << "page " << r.id << ": fewer requests reached the server than scheduled";
    const double offset = times[k] - double(r.due_ns) / 1e3;
    lowest = std::min(lowest, offset);
    highest = std::max(highest, offset);
    ++matched;
  }
  EXPECT_EQ(matched, (*schedule)->per_thread[0].size());
  ASSERT_GT((*schedule)->span_ns, 1'000'000'000u);  // over a second: a replay sent at once would spread by it
  // One offset for all, within the lateness the run reported, 5 ms for loopback and the server's read.
  EXPECT_LE(highest - lowest, lateness_max_us + 5000)
      << "offsets " << lowest << ".." << highest << " us; send lateness max " << lateness_max_us << " us";
}

}  // namespace
}  // namespace hitcost::trace
