#include "figures/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hitcost::client {

Histogram::Histogram() : counts_(kCountsLen, 0) {}

void Histogram::merge(const Histogram& other) noexcept {
  for (size_t i = 0; i < kCountsLen; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_ += other.sum_;
  clamped_ += other.clamped_;
  if (other.total_) {
    if (other.min_ < min_) min_ = other.min_;
    if (other.max_ > max_) max_ = other.max_;
  }
}

void Histogram::reset() noexcept {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = sum_ = max_ = clamped_ = 0;
  min_ = UINT64_MAX;
}

uint64_t Histogram::lowest_at_index(size_t index) noexcept {
  int bucket = int(index >> kSubBucketHalfCountMagnitude) - 1;
  uint64_t sub = (index & size_t(kSubBucketHalfCount - 1)) + uint64_t(kSubBucketHalfCount);
  if (bucket < 0) {  // the first half-bucket pair is linear with width 1
    sub -= uint64_t(kSubBucketHalfCount);
    bucket = 0;
  }
  return sub << bucket;
}

uint64_t Histogram::highest_at_index(size_t index) noexcept {
  const int bucket = index < size_t(kSubBucketCount) ? 0 : int(index >> kSubBucketHalfCountMagnitude) - 1;
  return lowest_at_index(index) + (uint64_t{1} << bucket) - 1;
}

double Histogram::stddev() const noexcept {
  if (total_ == 0) return 0.0;
  const double m = mean();
  double acc = 0.0;
  for (size_t i = 0; i < kCountsLen; ++i) {
    if (!counts_[i]) continue;
    const double mid = 0.5 * (double(lowest_at_index(i)) + double(highest_at_index(i)));
    acc += double(counts_[i]) * (mid - m) * (mid - m);
  }
  return std::sqrt(acc / double(total_));
}

uint64_t Histogram::value_at_percentile(double percent) const noexcept {
  if (total_ == 0) return 0;
  if (percent <= 0.0) return min();
  if (percent > 100.0) percent = 100.0;
  // Same rounding as HdrHistogram: rank = round(p * n), at least 1.
  uint64_t rank = uint64_t(percent / 100.0 * double(total_) + 0.5);
  if (rank < 1) rank = 1;
  if (rank > total_) rank = total_;
  uint64_t seen = 0;
  for (size_t i = 0; i < kCountsLen; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const uint64_t v = highest_at_index(i);
      return v < max_ ? (v > min() ? v : min()) : max_;
    }
  }
  return max_;
}

bool Histogram::restore(const std::vector<std::pair<size_t, uint64_t>>& sparse, uint64_t min, uint64_t max,
                        uint64_t sum, uint64_t clamped) {
  reset();
  for (const auto& [index, n] : sparse) {
    if (index >= kCountsLen) return false;
    counts_[index] += n;
    total_ += n;
  }
  min_ = total_ ? min : UINT64_MAX;
  max_ = max;
  sum_ = sum;
  clamped_ = clamped;
  return true;
}

std::string Histogram::percentiles_text(double unit_scale, int ticks_per_half_distance) const {
  std::string out;
  char line[160];
  auto emit = [&](uint64_t value, double pct, uint64_t cumulative, bool last) {
    const double p = pct / 100.0;
    if (last)
      std::snprintf(line, sizeof line, "%12.3f %2.12f %10llu\n", double(value) / unit_scale, p,
                    static_cast<unsigned long long>(cumulative));
    else
      std::snprintf(line, sizeof line, "%12.3f %2.12f %10llu %14.2f\n", double(value) / unit_scale, p,
                    static_cast<unsigned long long>(cumulative), 1.0 / (1.0 - p));
    out += line;
  };
  std::snprintf(line, sizeof line, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  out += line;
  if (total_) {
    // Percentile iteration as in HdrHistogram: report levels get denser towards 100 %,
    // `ticks_per_half_distance` lines per halving of the remaining distance.
    double next_pct = 0.0;
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kCountsLen; ++i) {
      if (!counts_[i]) continue;
      cumulative += counts_[i];
      const double current = 100.0 * double(cumulative) / double(total_);
      const uint64_t value = std::min(highest_at_index(i), max_);
      const bool final_index = cumulative == total_;
      while (next_pct <= current) {
        emit(value, next_pct, cumulative, false);
        const double halvings = std::floor(std::log2(100.0 / (100.0 - next_pct))) + 1;
        next_pct += 100.0 / (double(ticks_per_half_distance) * std::pow(2.0, halvings));
        if (final_index) break;  // HdrHistogram prints one level at the last value, then 100 %
      }
    }
    emit(max_, 100.0, total_, true);
  }
  std::snprintf(line, sizeof line, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean() / unit_scale,
                stddev() / unit_scale);
  out += line;
  std::snprintf(line, sizeof line, "#[Max     = %12.3f, Total count    = %12llu]\n", double(max_) / unit_scale,
                static_cast<unsigned long long>(total_));
  out += line;
  std::snprintf(line, sizeof line, "#[Buckets = %12d, SubBuckets     = %12lld]\n", kBucketCount,
                static_cast<long long>(kSubBucketCount));
  out += line;
  return out;
}

void Histogram::print_percentiles(std::FILE* out, double unit_scale, int ticks) const {
  const std::string text = percentiles_text(unit_scale, ticks);
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace hitcost::client
