#include "bench/speed_verdict.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using hitcost::bench::judge_speed;
using hitcost::bench::kMinRepeats;

namespace {

struct Case {
  const char* name;
  std::vector<double> mmap_ns, read_ns;  // subject, baseline
  bool conclusive;
};

// Each case says whether the rule in bench/speed_verdict.h must call a winner.
const std::vector<Case> kCases = {
    {"mmap clearly faster", {10, 10.2, 10.5, 10.8, 11}, {25.5, 26, 26.5, 27, 28}, true},
    {"mmap clearly slower", {25.5, 26, 26.5, 27, 28}, {10, 10.2, 10.5, 10.8, 11}, true},
    {"unequal repeat counts", {10, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6}, {20, 21, 22, 23, 24}, true},
    {"ranges overlap", {10, 11, 12, 13, 14}, {13.5, 15, 16, 17, 18}, false},
    {"touching ends overlap", {10, 11, 12, 13, 14}, {14, 15, 16, 17, 18}, false},
    // Separated ranges, but one path scatters by far more than the gap between medians.
    {"spread wider than difference", {100, 101, 102, 103, 104}, {105, 106, 107, 108, 300}, false},
    {"too few repeats", {10, 10.2, 10.5}, {25.5, 26, 26.5}, false},
    {"identical", {10, 11, 12, 13, 14}, {10, 11, 12, 13, 14}, false},
    {"a repeat took no time", {0, 1, 1, 1, 1}, {5, 5, 5, 5, 5}, false},
    {"no repeats", {}, {}, false},
    // The VM's cold reads: seven interleaved pairs scattering around the same level.
    {"cold reads in a VM", {80, 95, 110, 130, 160, 90, 120}, {100, 140, 90, 170, 120, 150, 110}, false},
};

}  // namespace

TEST(SpeedVerdict, CallsAWinnerOnlyWhenRangesSeparateBeyondTheirSpread) {
  size_t checked = 0, conclusive = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const auto v = judge_speed("mmap", c.mmap_ns, "read", c.read_ns);
    EXPECT_EQ(v.conclusive, c.conclusive) << v.label;
    if (c.conclusive) {
      EXPECT_EQ(v.label.rfind("mmap/read speed ", 0), 0u) << v.label;
      EXPECT_LE(v.ratio_lo, v.ratio);
      EXPECT_LE(v.ratio, v.ratio_hi);
      // The whole range sits on one side of 1: no "faster" that might be "slower".
      EXPECT_TRUE(v.ratio_lo > 1 || v.ratio_hi < 1) << v.label;
      EXPECT_GT(v.difference_pct, v.spread_pct);
      ++conclusive;
    } else {
      EXPECT_EQ(v.label.rfind("inconclusive: ", 0), 0u) << v.label;
      EXPECT_EQ(v.ratio, 0) << "no ratio is quoted when inconclusive";
    }
    ++checked;
  }
  EXPECT_EQ(checked, 11u);
  EXPECT_EQ(conclusive, 3u);
}

TEST(SpeedVerdict, LabelGivesMedianRatioAndExtremeRatios) {
  const auto v = judge_speed("mmap", {10, 10.2, 10.5, 10.8, 11}, "read", {25.5, 26, 26.5, 27, 28});
  ASSERT_TRUE(v.conclusive);
  EXPECT_DOUBLE_EQ(v.ratio, 26.5 / 10.5);
  EXPECT_DOUBLE_EQ(v.ratio_lo, 25.5 / 11);
  EXPECT_DOUBLE_EQ(v.ratio_hi, 28.0 / 10);
  EXPECT_EQ(v.label, "mmap/read speed 2.52x [2.32..2.80]");
  const auto slower = judge_speed("mmap", {25.5, 26, 26.5, 27, 28}, "read", {10, 10.2, 10.5, 10.8, 11});
  EXPECT_EQ(slower.label, "mmap/read speed 0.40x [0.36..0.43]");
}

TEST(SpeedVerdict, InconclusiveLabelSaysWhy) {
  EXPECT_EQ(judge_speed("mmap", {100, 101, 102, 103, 104}, "read", {105, 106, 107, 108, 300}).label,
            "inconclusive: repeats spread 182% >= difference 5%");
  EXPECT_EQ(judge_speed("mmap", {10, 11, 12}, "read", {20, 21, 22}).label,
            "inconclusive: 3 and 3 repeats, need 5 each");
  EXPECT_EQ(judge_speed("mmap", {10, 11, 12, 13, 14}, "read", {13.5, 15, 16, 17, 18})
                .label.rfind("inconclusive: ranges overlap, ", 0),
            0u);
  EXPECT_EQ(kMinRepeats, 5u);
}
