// `hitcost-load compare`: sweeps of two backends pooled into rows per backend grouped by
// strategy, each backend compared with the baseline backend strategy by strategy.
#include "report/compare.h"

#include <gtest/gtest.h>

using namespace hitcost::client;
using nlohmann::json;

namespace {
json run(const std::string& strategy, double per_hit, int round, const char* role = "capacity") {
  return {{"strategy", strategy},
          {"role", role},
          {"round", round},
          {"server_cpu_us_per_hit", per_hit},
          {"throughput_rps", 1e6 / per_hit},
          {"target_hit_ratio", 1.0},
          {"hit_ratio", 1.0},
          {"contaminated", false},
          {"errors", {{"total", 0}}}};
}

// One sweep JSON of `rounds` runs per strategy; CPU per hit = base × factor, with a little spread.
json sweep(double factor, int rounds) {
  json runs = json::array();
  for (int k = 0; k < rounds; ++k) {
    runs.push_back(run("html", factor * (40 + 0.2 * k), k));
    runs.push_back(run("struct:php", factor * (120 + 0.5 * k), k));
  }
  runs.push_back(run("html", 999, 9, "latency"));
  return {{"runs", runs}};
}
}  // namespace

TEST(Compare, LabelledInputsNeedBothSides) {
  auto ok = parse_labelled_input("php=out/a=b.json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->first, "php");
  EXPECT_EQ(ok->second, "out/a=b.json");
  EXPECT_FALSE(parse_labelled_input("a.json"));
  EXPECT_FALSE(parse_labelled_input("=a.json"));
  EXPECT_FALSE(parse_labelled_input("php="));
}

TEST(Compare, PoolsBackendsByStrategyAndComparesEachWithTheBaseline) {
  // Alternate inputs, as the script gives them: c++ then php, twice (3 + 3 runs each).
  auto pooled = pool_backend_runs(
      {{"c++", sweep(1.0, 3)}, {"php", sweep(3.0, 3)}, {"c++", sweep(1.0, 3)}, {"php", sweep(3.0, 3)}});
  ASSERT_TRUE(pooled) << pooled.error().message;
  EXPECT_EQ(pooled->size(), 4u * 3 * 2) << "latency runs are left out";
  for (const RunRecord& r : *pooled) {
    EXPECT_TRUE(r.strategy == "c++" || r.strategy == "php") << r.strategy;
    EXPECT_TRUE(r.sweep_store == "html" || r.sweep_store == "struct:php") << r.sweep_store.value_or("(none)");
  }
  const Summary s = summarize(*pooled, compare_options({"c++", "php", "c++", "php"}, "c++", VerdictOptions{}));
  ASSERT_EQ(s.rows.size(), 4u);  // 2 backends x 2 strategies
  int checked = 0;
  for (const SweepRow& row : s.rows) {
    EXPECT_EQ(row.used, 6) << row.store << " " << row.strategy;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  ASSERT_EQ(s.verdicts.size(), 2u);  // php against c++, on each strategy
  for (const auto& [strategy, v] : s.verdicts) {
    EXPECT_EQ(v.baseline, "c++") << strategy;
    EXPECT_EQ(v.subject, "php") << strategy;
    ASSERT_TRUE(v.ratio) << strategy;
    EXPECT_NEAR(*v.ratio, 3.0, 0.05) << strategy;
    EXPECT_EQ(v.kind, Verdict::Kind::costs) << v.text;
  }
  EXPECT_NE(format_summary(s).find("backend"), std::string::npos);
}

TEST(Compare, RefusesAnInputThatIsNotASweep) {
  const auto not_sweep = pool_backend_runs({{"c++", json{{"requests", 5}}}});
  ASSERT_FALSE(not_sweep);
  EXPECT_EQ(not_sweep.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(not_sweep.error().message, "input labelled 'c++' is not a sweep JSON (no \"runs\")");
  const auto empty = pool_backend_runs({{"c++", json{{"runs", json::array()}}}});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "no capacity run in the inputs");
}
