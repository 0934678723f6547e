// The floor beside CPU per hit (report/floor_summary.h): ratios taken per run, then their median
// (each run paired with its own calibration), per part too, and absent where there is no floor.
#include "report/floor_summary.h"

#include <gtest/gtest.h>

#include "report/run_record.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

json run(double per_hit, double floor_total, int round, double fetch_measured, double fetch_floor) {
  return {{"strategy", "html"},
          {"sweep_store", "memory"},
          {"role", "capacity"},
          {"round", round},
          {"server_cpu_us_per_hit", per_hit},
          {"throughput_rps", 1e6 / per_hit},
          {"target_hit_ratio", 0.99},
          {"hit_ratio", 0.99},
          {"contaminated", false},
          {"errors", {{"total", 0}}},
          {"cpu",
           {{"attribution", "sender-pays"},
            {"per_request_us", {{"attributed", {{"server", per_hit}}}}},
            {"server_hit_parts_us", {{"fetch", fetch_measured}, {"other", 2.0}}}}},
          {"floor",
           {{"floor_us", {{"total", floor_total}, {"fetch", fetch_floor}, {"other", 0.0}, {"render", 1.0}}},
            {"steps", json::array()}}}};
}

}  // namespace

TEST(FloorSummary, TheRatioIsThePerRunRatiosMedianNotTheMediansRatio) {
  // CPU per hit 100, 90, 120 against floors 80, 30, 60: per run 1.25, 3, 2 (median 2); the
  // medians' ratio would be 100 / 60 = 1.67.
  json runs = json::array({run(100, 80, 0, 20, 10), run(90, 30, 1, 30, 10), run(120, 60, 2, 60, 20)});
  const Summary s = summarize(runs, SummaryOptions{});
  ASSERT_EQ(s.rows.size(), 1u);
  const SweepRow& r = s.rows[0];
  ASSERT_TRUE(r.floor_hit.has_value());
  EXPECT_DOUBLE_EQ(r.floor_hit->median, 60);
  ASSERT_TRUE(r.floor_ratio.has_value());
  EXPECT_DOUBLE_EQ(r.floor_ratio->median, 2.0);
  EXPECT_DOUBLE_EQ(r.floor_ratio->min, 1.25);
  EXPECT_DOUBLE_EQ(r.floor_ratio->max, 3.0);
  ASSERT_EQ(r.floor_parts.size(), hit_parts().size());
  size_t checked = 0;
  for (const FloorPart& p : r.floor_parts) {
    if (p.part == "fetch") {
      // fetch 20/10, 30/10, 60/20: ratios 2, 3, 3 → median 3.
      ASSERT_TRUE(p.ratio.has_value());
      EXPECT_DOUBLE_EQ(p.ratio->median, 3.0);
      EXPECT_DOUBLE_EQ(p.measured_us->median, 30.0);
      ++checked;
    }
    if (p.part == "other") {
      // A floor of 0: measured shown, no ratio.
      EXPECT_FALSE(p.ratio.has_value());
      ASSERT_TRUE(p.measured_us.has_value());
      EXPECT_DOUBLE_EQ(p.measured_us->median, 2.0);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u);
  const json j = summary_json(s);
  EXPECT_DOUBLE_EQ(j["summary"][0]["floor"]["ratio"]["median"].get<double>(), 2.0);
  EXPECT_NE(format_summary(s).find("floor: server CPU per hit against the floor"), std::string::npos);
  const std::string csv = csv_summary(s);
  EXPECT_NE(csv.find("cpu_over_floor_median"), std::string::npos);
}

TEST(FloorSummary, RunsWithoutAFloorLeaveTheSummaryAsItWas) {
  json a = run(100, 80, 0, 20, 10), b = run(90, 30, 1, 30, 10);
  a.erase("floor");
  b.erase("floor");
  const Summary s = summarize(json::array({a, b}), SummaryOptions{});
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_FALSE(s.rows[0].floor_hit.has_value());
  EXPECT_TRUE(s.rows[0].floor_parts.empty());
  EXPECT_FALSE(summary_json(s)["summary"][0].contains("floor"));
  EXPECT_EQ(format_summary(s).find("floor:"), std::string::npos);
  EXPECT_EQ(csv_summary(s).find("floor"), std::string::npos);
}
