// merge: K client JSONs built from known samples must merge into exactly the figures of all
// samples together.
#include "report/merge.h"

#include <gtest/gtest.h>

#include <random>

#include "client/sweep.h"
#include "measure/run_output.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {
constexpr uint64_t kStart = 1'700'000'000'000'000'000ULL;

// A client's run JSON: `n` samples from its own distribution, `errors` status errors,
// started `offset_ms` after kStart, with a server /stats delta of `server_cpu_s`.
json client_run(uint64_t seed, int n, uint64_t errors, int offset_ms, double server_cpu_s, Histogram* all) {
  RunReport r;
  r.connections = 8;
  r.threads = 1;
  r.requested_strategy = "html";
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> hit(11.5, 0.4), miss(14.0, 0.3);
  for (int i = 0; i < n; ++i) {
    const bool is_miss = i % 20 == 0;
    const uint64_t v = uint64_t(is_miss ? miss(rng) : hit(rng));
    r.load.latency.record(v);
    (is_miss ? r.load.miss : r.load.hit).record(v);
    r.load.series.at(0, uint64_t(i) * 2'000'000'000ULL / uint64_t(n)).requests++;
    all->record(v);
  }
  r.load.requests = uint64_t(n);
  r.load.ok = uint64_t(n) - errors;
  r.load.errors.status = errors;
  r.load.errors.timeout = 1;
  r.load.window_s = 2.0;
  r.load.started_unix_ns = kStart + uint64_t(offset_ms) * 1'000'000ULL;
  r.client_cpu_s = 0.001 * double(n) / 1000.0;  // 1 µs per request
  ServerDelta d;
  d.requests = 3000;
  d.hits = 2850;
  d.misses = 150;
  d.cpu_s = server_cpu_s;
  d.phases = {{"fetch", 3000, 3'000'000}};
  r.server = d;
  return to_json(r);
}
}  // namespace

TEST(Merge, PercentilesEqualThoseOfAllSamplesAndCountsAddUp) {
  Histogram all;
  const std::vector<json> docs = {client_run(1, 1000, 3, 0, 0.030, &all), client_run(2, 2500, 5, 20, 0.060, &all),
                                  client_run(3, 700, 0, 40, 0.090, &all)};
  std::vector<std::string> warnings;
  auto m = merge_docs(docs, {"a.json", "b.json", "c.json"}, &warnings);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(warnings.empty());
  const json expect = latency_json(all);
  for (const char* p : {"p50", "p90", "p99", "p999", "p9999", "max", "min", "count"})
    EXPECT_EQ((*m)["latency_us"][p], expect[p]) << p;
  EXPECT_EQ((*m)["requests"], 4200);
  EXPECT_EQ((*m)["errors"]["status"], 8);
  EXPECT_EQ((*m)["errors"]["timeout"], 3);
  EXPECT_EQ((*m)["errors"]["total"], 11);
  EXPECT_NEAR((*m)["throughput_rps"].get<double>(), 4200 / 2.0, 1e-9);  // summed over clients
  EXPECT_NEAR((*m)["client_cpu_us_per_req"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR((*m)["hit_ratio"].get<double>(), double(all.count() - (50 + 125 + 35)) / double(all.count()), 1e-12);
  // Server CPU per request is one client's figure (not a sum): the middle client's window
  // covers the others best.
  EXPECT_EQ((*m)["merged"]["server_figures_from"], "b.json");
  EXPECT_NEAR((*m)["server_cpu_us_per_req"].get<double>(), 20.0, 1e-9);
  EXPECT_NEAR((*m)["merged"]["window_overlap_s"].get<double>(), 1.96, 1e-6);
  // per-second series aligned on the wall clock: all started within the same second
  EXPECT_EQ((*m)["series"].size(), 2u);
  EXPECT_EQ((*m)["series"][0]["requests"].get<uint64_t>() + (*m)["series"][1]["requests"].get<uint64_t>(), 4200u);
  // the merged JSON is itself mergeable and readable by the summary
  Histogram h;
  EXPECT_TRUE(histogram_from_json((*m)["histogram"], &h));
  EXPECT_EQ(h.count(), 4200u);
}

TEST(Merge, SendLatenessMergesExactlyNotTheFirstClientsAlone) {
  Histogram all, late_all;
  std::vector<json> docs = {client_run(1, 1000, 0, 0, 0.030, &all), client_run(2, 2000, 0, 10, 0.030, &all)};
  std::mt19937_64 rng(7);
  for (size_t c = 0; c < docs.size(); ++c) {
    Histogram late;  // client c's sends: ~2 µs late, the second client's tail much worse
    std::lognormal_distribution<double> d(7.6 + 1.5 * double(c), 0.8);
    for (int i = 0; i < 500 * int(c + 1); ++i) {
      const uint64_t v = uint64_t(d(rng));
      late.record(v);
      late_all.record(v);
    }
    docs[c]["histogram_send_lateness"] = histogram_to_json(late);
    docs[c]["send_lateness_us"] = latency_json(late);
  }
  std::vector<std::string> warnings;
  auto m = merge_docs(docs, {"a.json", "b.json"}, &warnings);
  ASSERT_TRUE(m) << m.error().message;
  const json expect = latency_json(late_all);
  ASSERT_EQ((*m)["send_lateness_us"]["count"], 1500u);
  for (const char* p : {"p50", "p99", "max", "min", "count"}) EXPECT_EQ((*m)["send_lateness_us"][p], expect[p]) << p;
  EXPECT_NE((*m)["send_lateness_us"]["p99"], docs[0]["send_lateness_us"]["p99"]);
  Histogram h;
  ASSERT_TRUE(histogram_from_json((*m)["histogram_send_lateness"], &h));
  EXPECT_EQ(h.count(), 1500u);
}

TEST(Merge, RunsThatDidNotOverlapAreFlagged) {
  Histogram all;
  const std::vector<json> docs = {client_run(1, 100, 0, 0, 0.03, &all), client_run(2, 100, 0, 5000, 0.03, &all)};
  std::vector<std::string> warnings;
  auto m = merge_docs(docs, {"a", "b"}, &warnings);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ((*m)["merged"]["window_overlap_s"], 0.0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("overlapped"), std::string::npos);
  EXPECT_EQ((*m)["series"].size(), 7u);  // second client's points start 5 s later
}

// topology.sh asks client 1 alone for the floor: the merged run has it whichever input is
// first, and says how late each client's load began after --start-at.
TEST(Merge, TheFloorComesFromTheInputThatHasOneAndEachClientsStartLatenessIsListed) {
  Histogram all;
  json with_floor = client_run(1, 100, 0, 0, 0.03, &all), without = client_run(2, 100, 0, 1, 0.03, &all);
  with_floor["floor"] = {{"floor_us", {{"total", 12.5}}}};
  with_floor["start_at"] = {{"unix_ns", kStart}, {"late_ms", 0.25}};
  without["floor_error"] = "not asked";
  without["start_at"] = {{"unix_ns", kStart}, {"late_ms", 40.0}};
  std::vector<std::string> warnings;
  auto m = merge_docs({without, with_floor}, {"c2", "c1"}, &warnings);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ((*m)["floor"]["floor_us"]["total"], 12.5) << m->dump();
  EXPECT_FALSE(m->contains("floor_error"));
  const json& clients = (*m)["merged"]["clients"];
  ASSERT_EQ(clients.size(), 2u);
  EXPECT_EQ(clients[0]["start_late_ms"], 40.0);
  EXPECT_EQ(clients[1]["start_late_ms"], 0.25);
  // Without --start-at: null, not 0 (no start time was asked).
  auto plain =
      merge_docs({client_run(3, 100, 0, 0, 0.03, &all), client_run(4, 100, 0, 1, 0.03, &all)}, {"a", "b"}, &warnings);
  ASSERT_TRUE(plain);
  EXPECT_TRUE((*plain)["merged"]["clients"][0]["start_late_ms"].is_null());
  EXPECT_FALSE(plain->contains("floor"));
}

TEST(Merge, SweepsMergeRunByStrategyStoreAndRepeat) {
  Histogram html_all, json_all, ignored;
  constexpr int kRepeats = 4;  // the fewest for which one comparison can reach 95 %
  // A clean run (no errors) with a server CPU that varies a little from repeat to repeat.
  auto clean = [](json j) {
    j["errors"] = {{"connect", 0}, {"read", 0},  {"write", 0},      {"timeout", 0},
                   {"status", 0},  {"parse", 0}, {"validation", 0}, {"total", 0}};
    return j;
  };
  auto sweep = [&](uint64_t seed) {
    json runs = json::array();
    for (int rep = 0; rep < kRepeats; ++rep) {
      json a = clean(
          client_run(seed * 10 + uint64_t(rep), 500, 0, 0, 0.03 * (1 + 0.01 * rep), rep == 0 ? &html_all : &ignored));
      a["strategy"] = "html";
      a["sweep_store"] = "memory";
      a["repeat"] = rep;
      json b = client_run(seed * 10 + 5 + uint64_t(rep), 400, 1, 0, 0.3 * (1 + 0.013 * rep),
                          rep == 0 ? &json_all : &ignored);
      if (rep > 0) b = clean(b);  // repeat 0 of struct:json has errors: left out of the verdict
      b["strategy"] = "struct:json";
      b["sweep_store"] = "memory";
      b["repeat"] = rep;
      runs.push_back(a);
      runs.push_back(b);
    }
    return json{{"runs", runs}};
  };
  std::vector<std::string> warnings;
  auto m = merge_docs({sweep(1), sweep(2)}, {"x", "y"}, &warnings);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ((*m)["runs"].size(), size_t(2 * kRepeats));
  const json& html0 = (*m)["runs"][0];
  EXPECT_EQ(html0["strategy"], "html");
  EXPECT_EQ(html0["repeat"], 0);
  EXPECT_EQ(html0["requests"], 1000);
  EXPECT_EQ((*m)["runs"][1]["errors"]["status"], 2);  // both clients' repeat 0 of struct:json
  EXPECT_EQ(html0["latency_us"]["p99"], latency_json(html_all)["p99"]);
  EXPECT_EQ((*m)["runs"][1]["latency_us"]["p50"], latency_json(json_all)["p50"]);
  EXPECT_TRUE(html0["contaminated"].is_null());  // not judged for merged clients
  ASSERT_EQ((*m)["summary"].size(), 2u);
  EXPECT_EQ((*m)["summary"][0]["runs"], kRepeats);
  EXPECT_EQ((*m)["summary"][0]["used"], kRepeats);
  EXPECT_EQ((*m)["summary"][1]["used"], kRepeats - 1);
  EXPECT_EQ((*m)["summary"][1]["excluded"]["errors"], 1);
  // 4 html runs against 3 struct:json runs: 3 rounds with both, paired; a 10× cost with 1 %
  // noise is decided at the first look (3 pairs).
  ASSERT_EQ((*m)["verdicts"].size(), 1u);
  EXPECT_EQ((*m)["verdicts"][0]["kind"], "costs") << (*m)["verdicts"][0]["text"];
  EXPECT_EQ((*m)["verdicts"][0]["pairs"], 3);
  // With all four struct:json runs clean it is a verdict: 10× (0.3 s vs 0.03 s per 3000 requests).
  auto all_clean = sweep(3);
  for (auto& r : all_clean["runs"]) r = clean(r);
  auto n = merge_docs({all_clean}, {"z"}, &warnings);
  ASSERT_TRUE(n) << n.error().message;
  ASSERT_EQ((*n)["verdicts"].size(), 1u);
  EXPECT_EQ((*n)["verdicts"][0]["kind"], "costs") << (*n)["verdicts"][0]["text"];
  EXPECT_NEAR((*n)["verdicts"][0]["ratio"].get<double>(), 10.0, 0.3);
}

TEST(Merge, MixedKindsAreRefused) {
  Histogram all;
  std::vector<std::string> warnings;
  const auto m =
      merge_docs({client_run(1, 10, 0, 0, 0.01, &all), json{{"runs", json::array()}}}, {"a", "b"}, &warnings);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(m.error().message, "cannot merge sweep JSONs with single-run JSONs");
}

// The same run given twice (one file twice, or a copy): merged, its requests would count
// twice. Refused, naming both inputs; two different runs of one second are not.
TEST(Merge, TheSameRunTwiceIsRefused) {
  Histogram all;
  const json a = client_run(1, 500, 0, 0, 0.03, &all);
  std::vector<std::string> warnings;
  const auto twice = merge_docs({a, a}, {"a.json", "copy.json"}, &warnings);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, hitcost::Errc::invalid_argument);
  EXPECT_NE(twice.error().message.find("a.json and copy.json hold the same run"), std::string::npos)
      << twice.error().message;
  const json sweep_a = {{"runs", json::array({a})}};
  const auto sweeps = merge_docs({sweep_a, sweep_a}, {"s1.json", "s2.json"}, &warnings);
  ASSERT_FALSE(sweeps);
  EXPECT_NE(sweeps.error().message.find("hold the same run"), std::string::npos) << sweeps.error().message;
  // Same start instant and count, other samples: two clients, merged.
  json b = client_run(2, 500, 0, 0, 0.03, &all);
  const auto two = merge_docs({a, b}, {"a.json", "b.json"}, &warnings);
  EXPECT_TRUE(two) << two.error().message;
}
