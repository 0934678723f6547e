#include "figures/log2_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hitcost::client;

namespace {
void add_lognormal(Histogram& h, size_t n, double median_us, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median_us * 1000.0), sigma);
  for (size_t i = 0; i < n; ++i) h.record(uint64_t(d(rng)));
}
}  // namespace

TEST(Log2Histogram, SlotsFollowBccLayout) {
  EXPECT_EQ(Log2Histogram::slot_of_us(0), 0u);
  EXPECT_EQ(Log2Histogram::slot_of_us(1), 0u);
  EXPECT_EQ(Log2Histogram::slot_of_us(2), 1u);
  EXPECT_EQ(Log2Histogram::slot_of_us(3), 1u);
  EXPECT_EQ(Log2Histogram::slot_of_us(1023), 9u);
  EXPECT_EQ(Log2Histogram::slot_of_us(1024), 10u);
  Histogram h;
  h.record(5'000);  // 5 µs → slot 2 (4..7)
  h.record(6'999);
  const auto l = Log2Histogram::from_ns(h);
  ASSERT_GE(l.counts.size(), 3u);
  EXPECT_EQ(l.counts[2], 2u);
  EXPECT_EQ(l.total, 2u);
}

TEST(Log2Histogram, HitAndMissPeaksAreFoundInBimodalLatency) {
  Histogram h;
  add_lognormal(h, 95'000, 40, 0.3, 1);    // hits around 40 µs
  add_lognormal(h, 5'000, 3'000, 0.3, 2);  // misses around 3 ms
  const auto l = Log2Histogram::from_ns(h);
  const auto modes = find_bimodal(l);
  ASSERT_TRUE(modes.has_value());
  EXPECT_EQ(modes->hit_slot, Log2Histogram::slot_of_us(40));
  EXPECT_EQ(modes->miss_slot, Log2Histogram::slot_of_us(3'000));
  const std::string text = format_log2(l, h.mean() / 1000.0);
  EXPECT_NE(text.find("usecs"), std::string::npos);
  EXPECT_NE(text.find("<- hit peak"), std::string::npos);
  EXPECT_NE(text.find("<- miss peak"), std::string::npos);
  // mean ≈ 0.95*40 + 0.05*3000 ≈ 190 µs: in the gap
  EXPECT_NE(text.find("falls in the gap"), std::string::npos) << text;
}

TEST(Log2Histogram, UnimodalLatencyHasNoPeakMarks) {
  Histogram h;
  add_lognormal(h, 100'000, 60, 0.6, 3);
  const auto l = Log2Histogram::from_ns(h);
  EXPECT_FALSE(find_bimodal(l).has_value());
  const std::string text = format_log2(l, h.mean() / 1000.0);
  EXPECT_EQ(text.find("peak"), std::string::npos) << text;
  EXPECT_NE(text.find("|****************************************|"), std::string::npos);
}

TEST(Log2Histogram, AThinNoisyTailIsNotASecondMode) {
  Histogram h;
  add_lognormal(h, 100'000, 50, 0.2, 4);
  for (int i = 0; i < 3; ++i) h.record(40'000'000);  // three 40 ms outliers
  EXPECT_FALSE(find_bimodal(Log2Histogram::from_ns(h)).has_value());
}

TEST(Log2Histogram, TwoPeaksWithoutMissesAreNotCalledHitAndMiss) {
  Histogram h;
  add_lognormal(h, 90'000, 40, 0.3, 5);
  add_lognormal(h, 10'000, 5'000, 0.3, 6);
  const std::string text = format_log2(Log2Histogram::from_ns(h), h.mean() / 1000.0, false);
  EXPECT_EQ(text.find("miss peak"), std::string::npos) << text;
  EXPECT_NE(text.find("slow peak"), std::string::npos) << text;
}
