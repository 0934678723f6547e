#include "figures/series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "figures/histogram.h"

using namespace hitcost::client;

TEST(CoarseHistogram, PercentilesWithinThreePercentOfExact) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(12.0, 1.5);  // ~160 µs median, long tail
  CoarseHistogram coarse;
  std::vector<uint64_t> values;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t v = uint64_t(dist(rng));
    values.push_back(v);
    coarse.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const uint64_t exact = values[size_t(p / 100.0 * double(values.size()) + 0.5) - 1];
    const double got = double(coarse.value_at_percentile(p));
    EXPECT_GE(got, double(exact)) << p;          // the slot's top, never below the sample
    EXPECT_LE(got, double(exact) * 1.033) << p;  // 1/32 of an octave
  }
  EXPECT_EQ(coarse.max(), values.back());
  EXPECT_EQ(coarse.value_at_percentile(100), values.back());
}

TEST(CoarseHistogram, SlotsTileTheValueRange) {
  for (uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 63ull, 64ull, 1000ull, 123456789ull, 1ull << 40}) {
    const size_t s = CoarseHistogram::slot_of(v);
    EXPECT_LE(v, CoarseHistogram::slot_high(s)) << v;
    if (s > 0) {
      EXPECT_GT(v, CoarseHistogram::slot_high(s - 1)) << v;
    }
  }
}

TEST(Series, MergeAndJsonRoundTripAreExact) {
  Series a, b;
  for (uint64_t t = 0; t < 3'000'000'000ULL; t += 1'000'000) {
    SeriesPoint& p = a.at(0, t);
    ++p.requests;
    p.latency.record(t % 7919 + 100);
  }
  b.at(0, 500'000'000).requests = 5;
  b.at(0, 500'000'000).latency.record(42'000);
  Series merged = a;
  merged.merge(b, 1);  // b's second 0 lands in a's second 1
  ASSERT_EQ(merged.points.size(), 3u);
  EXPECT_EQ(merged.points[1].requests, a.points[1].requests + 5);
  EXPECT_EQ(merged.points[0].requests, a.points[0].requests);

  Series back;
  ASSERT_TRUE(series_from_json(series_json(merged, 2.5), &back));
  ASSERT_EQ(back.points.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.points[i].requests, merged.points[i].requests);
    EXPECT_EQ(back.points[i].latency.value_at_percentile(99), merged.points[i].latency.value_at_percentile(99));
    EXPECT_EQ(back.points[i].latency.max(), merged.points[i].latency.max());
  }
  const auto j = series_json(merged, 2.5);
  EXPECT_DOUBLE_EQ(j[2]["len_s"].get<double>(), 0.5);  // the last, partial second
  EXPECT_DOUBLE_EQ(j[2]["throughput_rps"].get<double>(), double(merged.points[2].requests) / 0.5);
}

TEST(Progress, SnapshotSumsThreadsAndFindsP99) {
  LiveProgress a, b;
  for (int i = 0; i < 99; ++i) a.record(1000);
  b.record(50'000'000);
  LiveProgress::bump(b.errors);
  const ProgressSnapshot p = read_progress({&a, &b}, 3.0, 40, 1.0);
  EXPECT_EQ(p.requests, 100u);
  EXPECT_EQ(p.errors, 1u);
  EXPECT_DOUBLE_EQ(p.rps, 60.0);
  EXPECT_NEAR(p.p99_us, 1.0, 0.05);  // rank 99 of 100 is still a 1 µs sample
  EXPECT_NE(format_progress(p).find("req/s"), std::string::npos);
}
