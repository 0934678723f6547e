#include "figures/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "measure/run_output.h"

using hitcost::client::Histogram;

namespace {
// Nearest rank with HdrHistogram's rounding: rank = round(p/100 * n), at least 1.
uint64_t exact_percentile(std::vector<uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  uint64_t rank = uint64_t(p / 100.0 * double(v.size()) + 0.5);
  rank = std::clamp<uint64_t>(rank, 1, v.size());
  return v[rank - 1];
}
std::vector<uint64_t> lognormal_samples(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(50'000.0), 1.2);  // ~50 µs median, in ns
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = uint64_t(d(rng)) + 1;
  return v;
}
}  // namespace

TEST(Histogram, PercentilesWithinOneTenthPercentOfExact) {
  const auto samples = lognormal_samples(200'000, 7);
  Histogram h;
  for (auto v : samples) h.record(v);
  for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double exact = double(exact_percentile(samples, p));
    const double got = double(h.value_at_percentile(p));
    EXPECT_LE(std::abs(got - exact) / exact, 0.001) << "p" << p << " exact " << exact << " got " << got;
  }
  EXPECT_EQ(h.count(), samples.size());
  EXPECT_EQ(h.max(), *std::max_element(samples.begin(), samples.end()));
  EXPECT_EQ(h.min(), *std::min_element(samples.begin(), samples.end()));
  long double sum = 0;
  for (auto v : samples) sum += v;
  EXPECT_NEAR(h.mean(), double(sum / samples.size()), 1e-6 * h.mean());
}

TEST(Histogram, SmallValuesAreExactAndIndexLayoutIsContiguous) {
  for (uint64_t v : {0ULL, 1ULL, 2047ULL}) EXPECT_EQ(Histogram::lowest_at_index(Histogram::index_of(v)), v);
  // every value maps into a bucket that contains it, with width <= value/1024
  for (uint64_t v = 1; v < (1ULL << 40); v = v * 3 + 1) {
    const size_t i = Histogram::index_of(v);
    ASSERT_LT(i, Histogram::kCountsLen);
    EXPECT_LE(Histogram::lowest_at_index(i), v);
    EXPECT_GE(Histogram::highest_at_index(i), v);
    EXPECT_LE(double(Histogram::highest_at_index(i) - Histogram::lowest_at_index(i)), double(v) / 1024.0 + 1);
  }
  EXPECT_EQ(Histogram::index_of(Histogram::kHighestTrackable), Histogram::kCountsLen - 1);
  EXPECT_GE(Histogram::kHighestTrackable, 3600ULL * 1'000'000'000ULL);  // at least one hour in ns
}

TEST(Histogram, ValuesAboveRangeAreClampedAndCounted) {
  Histogram h;
  h.record(Histogram::kHighestTrackable + 1000);
  EXPECT_EQ(h.clamped(), 1u);
  EXPECT_EQ(h.max(), Histogram::kHighestTrackable);
}

TEST(Histogram, MergeOfPartsEqualsHistogramOfAll) {
  const auto samples = lognormal_samples(50'000, 11);
  Histogram all, a, b, c;
  for (size_t i = 0; i < samples.size(); ++i) {
    all.record(samples[i]);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).record(samples[i]);
  }
  Histogram merged;
  merged.merge(a);
  merged.merge(b);
  merged.merge(c);
  EXPECT_EQ(merged.counts(), all.counts());
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_EQ(merged.sum(), all.sum());
  for (double p : {50.0, 99.0, 99.99}) EXPECT_EQ(merged.value_at_percentile(p), all.value_at_percentile(p));
}

TEST(Histogram, MergeWithEmptyKeepsMinimum) {
  Histogram a, empty;
  a.record(500);
  a.merge(empty);
  EXPECT_EQ(a.min(), 500u);
  empty.merge(a);
  EXPECT_EQ(empty.min(), 500u);
}

TEST(Histogram, JsonRoundTripIsExact) {
  const auto samples = lognormal_samples(10'000, 3);
  Histogram h, back;
  for (auto v : samples) h.record(v);
  ASSERT_TRUE(hitcost::client::histogram_from_json(hitcost::client::histogram_to_json(h), &back));
  EXPECT_EQ(back.counts(), h.counts());
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.min(), h.min());
  EXPECT_EQ(back.max(), h.max());
  EXPECT_EQ(back.sum(), h.sum());
}

TEST(Histogram, PercentileDistributionTextHasHdrShape) {
  Histogram h;
  for (uint64_t v = 1; v <= 10'000; ++v) h.record(v * 1000);  // 1 µs .. 10 ms
  const std::string text = h.percentiles_text(1000.0);
  std::istringstream in(text);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("Value"), std::string::npos);
  EXPECT_NE(header.find("Percentile"), std::string::npos);
  EXPECT_NE(header.find("TotalCount"), std::string::npos);
  EXPECT_NE(header.find("1/(1-Percentile)"), std::string::npos);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(line.empty());
  double last_value = -1, last_pct = -1;
  uint64_t last_count = 0;
  int rows = 0;
  bool saw_final = false;
  while (std::getline(in, line) && line.rfind("#[", 0) != 0) {
    std::istringstream fields(line);
    double value = 0, pct = 0;
    uint64_t count = 0;
    ASSERT_TRUE(fields >> value >> pct >> count) << line;
    EXPECT_GE(value, last_value);
    EXPECT_GE(pct, last_pct);
    EXPECT_GE(count, last_count);
    last_value = value;
    last_pct = pct;
    last_count = count;
    ++rows;
    if (pct == 1.0) saw_final = true;
  }
  EXPECT_GT(rows, 50);
  EXPECT_TRUE(saw_final);
  EXPECT_EQ(last_count, 10'000u);
  EXPECT_NEAR(last_value, 10'000.0, 10.0);
  EXPECT_EQ(line.rfind("#[Mean    =", 0), 0u) << line;
  EXPECT_NE(text.find("#[Max     ="), std::string::npos);
  EXPECT_NE(text.find("Total count    =        10000]"), std::string::npos);
  EXPECT_NE(text.find("#[Buckets ="), std::string::npos);
  EXPECT_NE(text.find("    5000.500"), std::string::npos);  // mean in µs
}
