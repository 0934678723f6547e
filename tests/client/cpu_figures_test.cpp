// The CPU figures against independent readings, end to end: a real hitcost-server at full
// load, hitcost-load's library measuring it, and this test reading /proc itself.
// Timing-sensitive: registered RUN_SERIAL (tests/client/CMakeLists.txt).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "client/options.h"
#include "core/clock.h"
#include "measure/run_output.h"
#include "proc/proc.h"
#include "report/verdict.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/no_skip.h"
#include "tests/support/server_process.h"

using namespace hitcost::client;
using hitcost::testing::HttpConnection;
using hitcost::testing::MemcachedProcess;
using hitcost::testing::ServerProcess;

namespace {

bool two_cpus() { return hitcost::proc::online_cpus().size() >= 2; }

// The server pinned to CPU 0 and the load to CPU 1 where there are two: what the scripts do.
std::vector<std::string> server_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"--threads", "1", "--rows", "50"};
  if (two_cpus()) a.insert(a.end(), {"--cpus", "0"});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

LoadPlan full_load(int port, double seconds, double hit_ratio = 1.0) {
  LoadOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(port);
  o.warmup = "0";
  o.connections = 8;
  o.keys = 200;
  if (two_cpus()) o.cpus = "1";
  auto plan = build_plan(o, std::to_string(seconds) + "s", 0, hit_ratio, std::nullopt, "");
  EXPECT_TRUE(plan) << plan.error().message;
  return plan.value();
}

void warm(int port) {
  HttpConnection c(port);
  ASSERT_EQ(c.post("/admin/warm?from=0&to=200", "").status, 200);
}

}  // namespace

TEST(CpuFigures, ServerCpuPerRequestMatchesProcStatReadByTheTest) {
  ServerProcess server(server_args({"--store", "memory"}));
  warm(server.port());
  const LoadPlan plan = full_load(server.port(), 3.0);
  const auto before = hitcost::proc::read_process(server.pid());
  ASSERT_TRUE(before);
  const RunReport r = measure_run(plan, true, nullptr);
  const auto after = hitcost::proc::read_process(server.pid());
  ASSERT_TRUE(after && r.server) << r.server_error;
  ASSERT_GT(r.load.requests, 10000u) << "not a full-load run";
  const double proc_s = after->cpu_s - before->cpu_s;  // 10 ms ticks: ±0.5 % over 2.5 s of a busy core
  // At least 50 ticks, so that their 10 ms steps stay within 2 % (the machine may be shared).
  ASSERT_GT(proc_s, 0.5) << "the server was not busy";
  const double figure_s = *r.server_cpu_us_per_req() * double(r.server->requests) / 1e6;
  EXPECT_NEAR(figure_s, proc_s, 0.05 * proc_s) << "server_cpu_us_per_req " << *r.server_cpu_us_per_req();
}

// The same server measured as a foreign one (--server-pids: /proc, not its /stats), as the PHP
// backend is: the figure must agree with the test's reading and carry the client's counts.
TEST(CpuFigures, ServerPidsCpuMatchesProcStatReadByTheTest) {
  ServerProcess server(server_args({"--store", "memory"}));
  warm(server.port());
  const LoadPlan plan = full_load(server.port(), 3.0);
  MeasureOptions mo;
  mo.idle_ns = 500'000'000;
  mo.server_processes.pids = {server.pid()};
  const auto before = hitcost::proc::read_process(server.pid());
  ASSERT_TRUE(before);
  const RunReport r = measure_run(plan, mo, nullptr);
  const auto after = hitcost::proc::read_process(server.pid());
  ASSERT_TRUE(after && r.server) << r.server_error;
  ASSERT_GT(r.load.requests, 10000u) << "not a full-load run";
  EXPECT_EQ(r.server->backend, "processes: pids " + std::to_string(server.pid()));
  EXPECT_EQ(r.server->requests, r.load.requests);
  EXPECT_EQ(r.server->hits, r.load.hit.count());
  EXPECT_EQ(r.server->members_changed, 0);
  ASSERT_TRUE(r.idle) << "no idle baseline from /proc";
  EXPECT_LT(r.idle->server_cpu_s, 0.05) << "an idle server burned CPU";
  const double proc_s = after->cpu_s - before->cpu_s;  // includes the idle second around the run
  ASSERT_GT(proc_s, 0.5) << "the server was not busy";
  EXPECT_NEAR(r.server->cpu_s, proc_s, 0.05 * proc_s + 0.03);
  const auto cpu = r.cpu();
  ASSERT_TRUE(cpu);
  EXPECT_TRUE(r.server_local);
}

// On a 100 %-hit run every request but the two /stats is a hit: the server's sampled CPU per
// hit and its getrusage CPU per request must tell the same story.
void expect_sampled_matches_rusage(const std::vector<std::string>& args) {
  ServerProcess server(server_args(args));
  warm(server.port());
  const RunReport r = measure_run(full_load(server.port(), 2.5), true, nullptr);
  ASSERT_TRUE(r.server) << r.server_error;
  ASSERT_EQ(r.server->misses, 0u);
  ASSERT_GT(r.server->sampled_hit.whole_samples, 500u) << "too few samples to judge";
  ASSERT_GT(r.server->sampled_hit.samples, 500u);
  const auto f = r.cpu();
  ASSERT_TRUE(f && f->server_hit_sampled_us);
  // Within 8 %: getrusage also counts what no request's sample holds (epoll, accept, /stats, the
  // sampler itself). On a quiet host they were within 5 %; on a noisier one (stop 41's) the memory
  // store's short hits put them 1.6-5.3 % apart over ten runs, sampled always the lower. A sampler
  // that double-counted or lost a phase would be tens of percent off.
  const double sampled = *f->server_hit_sampled_us, rusage = *r.server_cpu_us_per_req();
  EXPECT_NEAR(sampled, rusage, 0.08 * rusage) << "sampled " << sampled << " us/hit, getrusage " << rusage << " us/req, "
                                              << r.server->sampled_hit.samples << " samples";
  // What the clean tiles took out (server/cpu_sampler.h), for whoever reads the log.
  std::printf("sampled %.2f us/hit (as sampled %.2f, %llu clean tiles), getrusage %.2f us/req\n", sampled,
              r.server->sampled_hit.cpu_us().value_or(0), static_cast<unsigned long long>(r.server->clean_tiles),
              rusage);
  // The parts add up to the whole, and the sampling stayed near its 1 % budget.
  double parts = 0;
  for (const auto& [name, ns] : r.server->sampled_hit.parts_cpu_ns) parts += ns;
  EXPECT_NEAR(parts, r.server->sampled_hit.cpu_ns, 1e-6 * std::abs(parts) + 1);
  ASSERT_TRUE(r.server->sampling_overhead());
  EXPECT_LT(*r.server->sampling_overhead(), 0.02);
}

TEST(CpuFigures, SampledCpuPerHitAgreesWithRusageOnAllHitsFromMemory) {
  expect_sampled_matches_rusage({"--store", "memory"});
}

TEST(CpuFigures, SampledCpuPerHitAgreesWithRusageOnAllHitsFromMemcached) {
  MemcachedProcess mc;
  expect_sampled_matches_rusage({"--store", "memcached:" + mc.address()});
}

TEST(CpuFigures, IdleBaselineIsSmallAndSubtracted) {
  ServerProcess server(server_args({"--store", "memory"}));
  warm(server.port());
  MeasureOptions mo;
  mo.idle_ns = 1'000'000'000;
  const RunReport r = measure_run(full_load(server.port(), 1.5), mo, nullptr);
  ASSERT_TRUE(r.idle && r.server);
  EXPECT_GE(r.idle->window_s, 1.0);
  const auto f = r.cpu();
  ASSERT_TRUE(f && f->idle_cores);
  // An idle server burns well under 5 % of a core (a 100 ms sweeper, the /stats answers).
  EXPECT_LT(f->idle_cores->server, 0.05);
  EXPECT_NEAR(f->net.server, f->raw.server - f->idle_cores->server * r.snapshot_window_s, 1e-9);
  // Same machine, found by the server's identity; the placement is what the test asked.
  EXPECT_TRUE(r.server_local);
  if (two_cpus()) {
    EXPECT_EQ(r.server->server_cpu_list(), std::vector<int>{0});
    EXPECT_EQ(r.client_cpus, std::vector<int>{1});
    EXPECT_NE(f->contamination.state, Contamination::State::unknown) << f->contamination.why;
  } else {
    hitcost::testing::unchecked("one CPU online: the placement (server on 0, client on 1) and contamination");
  }
}

// Two clients given one --start-at (what topology.sh and the Kubernetes Job do): each takes
// its idle baseline in the idle_ns before that time, while neither loads, and both loads start
// at it, so their windows are one. Client 2 asks no floor (the server's threads stay free).
TEST(CpuFigures, TwoClientsStartedAtOneWallTimeMeasureOneWindowEachWithItsIdleBaseline) {
  ServerProcess server(server_args({"--store", "memory"}));
  warm(server.port());
  const uint64_t start_at = hitcost::unix_now_ns() + 1'800'000'000;
  MeasureOptions first, second;
  first.idle_ns = second.idle_ns = 500'000'000;
  first.start_at_unix_ns = second.start_at_unix_ns = start_at;
  second.floor = false;
  RunReport other;
  std::thread client2([&] { other = measure_run(full_load(server.port(), 1.5), second, nullptr); });
  const RunReport mine = measure_run(full_load(server.port(), 1.5), first, nullptr);
  client2.join();
  size_t checked = 0;
  for (const RunReport* r : {&mine, static_cast<const RunReport*>(&other)}) {
    ASSERT_GT(r->load.requests, 1000u) << "not a load";
    EXPECT_EQ(r->start_at_unix_ns, start_at);
    // On a quiet machine 0.1 ms: the idle window ends 50 ms early, leaving its snapshot room.
    EXPECT_LT(r->start_late_ms, 50.0) << "the load began late";
    EXPECT_GE(r->load.started_unix_ns, start_at);
    EXPECT_TRUE(r->idle_error.empty()) << r->idle_error;
    ASSERT_TRUE(r->idle) << "no idle baseline";
    EXPECT_GT(r->idle->window_s, 0.25);
    EXPECT_EQ(r->idle->server_pages, 0u) << "the other client loaded the server during this one's idle";
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
  const double apart_ms = std::abs(double(int64_t(mine.load.started_unix_ns - other.load.started_unix_ns))) / 1e6;
  EXPECT_LT(apart_ms, 50.0) << "the two windows started apart";
  EXPECT_TRUE(mine.floor.is_object()) << mine.floor_error;
  EXPECT_FALSE(other.floor.is_object()) << "client 2 asked for a floor";
}

// An idle window another client's load runs through is no baseline: its CPU is that load's.
// It is dropped, the figures are not net of it, and the run says why.
TEST(CpuFigures, AnIdleWindowUnderAnotherClientsLoadIsNoBaselineAndSaysWhy) {
  ServerProcess server(server_args({"--store", "memory"}));
  warm(server.port());
  RunReport busy;
  std::thread other([&] { busy = measure_run(full_load(server.port(), 3.0), true, nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  MeasureOptions mo;
  mo.idle_ns = 500'000'000;
  mo.floor = false;
  const RunReport r = measure_run(full_load(server.port(), 1.0), mo, nullptr);
  other.join();
  ASSERT_GT(busy.load.requests, 1000u) << "the other client did not load the server";
  EXPECT_FALSE(r.idle) << "a window with another client's load was taken as idle";
  EXPECT_NE(r.idle_error.find("not idle: the server answered"), std::string::npos) << r.idle_error;
  const auto f = r.cpu();
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->idle_cores);
  EXPECT_NEAR(f->net.server, f->raw.server, 1e-12) << "something was taken off as idle";
  const RunRecord rec = record_of(r);
  ASSERT_TRUE(rec.idle_error);
  EXPECT_EQ(*rec.idle_error, r.idle_error);
  EXPECT_NE(format_terminal(r, false).find("idle          none: not idle"), std::string::npos);
}

// CPU per hit must not move with the hit ratio through the accounting (figures/cpu_accounting.h,
// 4: the idle and the receive work moved are shared between hits and misses by what each
// costs). On memcached a miss goes to the origin and sets the value: several hits' CPU. Rounds
// of 100, 90 and 99 % hits, the order turning each round, judged as a sweep judges strategies
// (report/verdict.h: paired by round, looked at after every round from the third):
// - the corrections per hit (headline − sampled) agree at every ratio to a small fraction of
//   the figure: the accounting adds nothing that depends on the hit ratio;
// - at 90 % hits, CPU per hit stays below what billing the misses to the hits would make it.
//   That mistake adds (CPU per miss × misses / hits) to every hit: 150 µs / 9 hits on a 45 µs
//   hit, +37 %, measured in the same runs. The interval's low end must lie below half of it.
//   Measured here (14 rounds, quiet): 1.07× [1.00..1.14]. One request in ten is a miss
//   (origin, encode, a 30 KB set) and the hits after it find their caches cold. That is a real
//   cost of hits at that ratio, not the accounting's; a fixed bar at 1.10 left it little room
//   on a noisy host (stop 43's CI failed in this test, most likely beside a container build
//   left running; its log does not say which check);
// - at 99 % (a sweep's default) the same mistake adds 3 %, below what rounds of these runs can
//   resolve (one ratio's runs spread 38..57 µs/hit here, quiet). The check is that the interval
//   does not show 99 % costing more than the band (5 %). On a quiet machine it read "the same
//   within 5 %"; on a noisy one, 0.98× [0.86..1.11], undecided after 14 rounds. "Costs" needs
//   only an estimate past 1.05 with an interval off 1, which the cold caches can earn;
//   "the same" is not what the test can demand.
TEST(CpuFigures, CpuPerHitIsTheSameAt90And99And100PercentHitsFromMemcached) {
  MemcachedProcess mc;
  ServerProcess server(server_args({"--store", "memcached:" + mc.address()}));
  warm(server.port());
  (void)measure_run(full_load(server.port(), 1.0, 0.9), MeasureOptions{}, nullptr);  // settles caches and clocks
  MeasureOptions mo;
  mo.idle_ns = 300'000'000;
  const std::vector<double> ratios = {1.0, 0.9, 0.99};
  std::vector<Sample> per_hit = {{"100 %", {}, {}}, {"90 %", {}, {}}, {"99 %", {}, {}}};
  VerdictOptions vo;
  vo.design.max_rounds = 14;
  std::vector<Verdict> verdicts;
  // headline + idle share − sampled, per run: what the accounting adds per hit besides the idle
  // baseline. The idle share is time-based CPU spread over the run's hits, so it grows where
  // throughput falls (90 % hits, slow misses): on a host whose idle server costs 0.2–1.1 µs per
  // hit it moved the bare difference by 3 % between ratios while the rest stayed within 0.01 µs.
  std::vector<double> corrections;
  std::vector<double> miss_us_per_hit_at_90;  // CPU per miss × misses / hits, each 90 % run
  size_t figures = 0;
  for (int round = 0; round < vo.design.max_rounds; ++round) {
    for (size_t k = 0; k < ratios.size(); ++k) {
      const size_t i = (k + size_t(round)) % ratios.size();
      const RunReport r = measure_run(full_load(server.port(), 2.0, ratios[i]), mo, nullptr);
      ASSERT_TRUE(r.server) << r.server_error;
      ASSERT_EQ(r.load.errors.total(), 0u);
      ASSERT_GT(r.server->sampled_hit.whole_samples, 100u)
          << "too few samples to judge at " << ratios[i] << ": " << r.load.requests << " requests";
      EXPECT_NEAR(r.hit_ratio(), ratios[i], 0.01);
      EXPECT_EQ(r.server->misses > 0, ratios[i] < 1) << r.server->misses << " misses at " << ratios[i];
      const auto f = r.cpu();
      ASSERT_TRUE(f && f->server_hit_us) << ratios[i];
      if (ratios[i] < 1) {
        EXPECT_TRUE(f->shared_by_cost) << "hits and misses sampled at " << ratios[i];
      }
      if (ratios[i] == 0.9) {
        ASSERT_TRUE(f->server_miss_us && r.server->hits > 0) << "no CPU per miss at 90 %";
        miss_us_per_hit_at_90.push_back(*f->server_miss_us * double(r.server->misses) / double(r.server->hits));
      }
      per_hit[i].values.push_back(*f->server_hit_us);
      per_hit[i].rounds.push_back(round);
      corrections.push_back(*f->server_hit_us + f->idle_server_us_per_hit - f->server_hit_sampled_us.value_or(0));
      ++figures;
      std::printf(
          "round %d, hit ratio %.2f (measured %.3f): %.2f us/hit (sampled %.2f, idle share %.3f), %.2f us/miss\n",
          round, ratios[i], r.hit_ratio(), *f->server_hit_us, f->server_hit_sampled_us.value_or(0),
          f->idle_server_us_per_hit, f->server_miss_us.value_or(0));
    }
    verdicts = compare_to_baseline(per_hit, "100 %", "server CPU per hit", vo);
    if (std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.decided(); })) break;
  }
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(figures % 3, 0u);
  EXPECT_GE(figures, 9u);
  for (const Verdict& v : verdicts) std::printf("%s\n", v.text.c_str());
  // The order of compare_to_baseline's verdicts is the samples': 90 %, then 99 %.
  EXPECT_EQ(verdicts[1].subject, "99 %");
  EXPECT_GE(verdicts[1].pairs, 3u) << verdicts[1].text;
  ASSERT_TRUE(verdicts[1].low) << verdicts[1].text;
  EXPECT_LT(*verdicts[1].low, 1.0 + vo.min_effect) << verdicts[1].text;
  EXPECT_EQ(verdicts[0].subject, "90 %");
  ASSERT_TRUE(verdicts[0].low) << verdicts[0].text;
  // What billing the misses to the hits would add at 90 %, as a fraction of a 100 % hit: the
  // median of the 90 % runs' miss CPU per hit over the median 100 % hit. It must be large
  // enough for the bar below to tell the mistake from the cold caches, or the check is empty.
  const auto miss_share = Range::of(miss_us_per_hit_at_90), hit_at_100 = Range::of(per_hit[0].values);
  ASSERT_TRUE(miss_share && hit_at_100);
  const double misbilled = miss_share->median / hit_at_100->median;
  ASSERT_GT(misbilled, 0.2) << "misses too cheap to tell billing them to the hits from noise";
  EXPECT_LT(*verdicts[0].low, 1.0 + misbilled / 2)
      << verdicts[0].text << "; billing misses to hits adds " << 100 * misbilled << " %";
  // What the accounting itself adds per hit (the idle share apart), at each ratio: within 1 % of
  // the figure of each other.
  ASSERT_EQ(corrections.size(), figures);
  const auto [lo, hi] = std::minmax_element(corrections.begin(), corrections.end());
  EXPECT_LT(*hi - *lo, 0.01 * per_hit[0].values.front()) << *lo << " .. " << *hi << " us";
}
