#pragma once
// HDR-style log-linear latency histogram (after HdrHistogram; own code, no package exists).
//
// Values are non-negative integers; hitcost records nanoseconds. Layout: 3 significant
// decimal digits → 2048 sub-buckets, i.e. every value lands in a bucket whose width is at
// most 1/1024 of the value, so percentiles are exact to within 0.1 % relative.
// Range 0 .. kHighestTrackable (2^42-1 ns ≈ 73 minutes); larger values are clamped to it and
// counted in clamped().
//
// Thread-safety: none. Use one histogram per thread and merge() at the end. The bucket
// layout is fixed at compile time, so merge() is exact: merging parts gives the same counts,
// min, max, sum and percentiles as recording every value into one histogram.
// record() is O(1) and never allocates (the 264 KiB counts array is allocated once).
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hitcost::client {

class Histogram {
 public:
  static constexpr int kSubBucketHalfCountMagnitude = 10;  // 1024
  static constexpr int64_t kSubBucketHalfCount = int64_t{1} << kSubBucketHalfCountMagnitude;
  static constexpr int64_t kSubBucketCount = 2 * kSubBucketHalfCount;  // 2048
  static constexpr int kBucketCount = 32;
  static constexpr size_t kCountsLen = size_t(kBucketCount + 1) * kSubBucketHalfCount;
  static constexpr uint64_t kHighestTrackable = (uint64_t(kSubBucketCount) << (kBucketCount - 1)) - 1;

  Histogram();

  void record(uint64_t value) noexcept { record_n(value, 1); }
  void record_n(uint64_t value, uint64_t n) noexcept {
    if (value > kHighestTrackable) {
      value = kHighestTrackable;
      clamped_ += n;
    }
    counts_[index_of(value)] += n;
    total_ += n;
    sum_ += value * n;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }
  void merge(const Histogram& other) noexcept;
  void reset() noexcept;

  uint64_t count() const noexcept { return total_; }
  uint64_t min() const noexcept { return total_ ? min_ : 0; }
  uint64_t max() const noexcept { return max_; }
  uint64_t sum() const noexcept { return sum_; }  // exact sum of recorded values
  uint64_t clamped() const noexcept { return clamped_; }
  double mean() const noexcept { return total_ ? double(sum_) / double(total_) : 0.0; }
  double stddev() const noexcept;  // from bucket midpoints
  // percent in [0,100]. Nearest-rank: the value of the ceil-ish (rounded) rank p/100*count,
  // reported as the top of its bucket but never above max(). 0 when empty.
  uint64_t value_at_percentile(double percent) const noexcept;

  // Bucket arithmetic (public for the report and for exact (de)serialisation).
  static size_t index_of(uint64_t value) noexcept {
    const int bucket = 53 - __builtin_clzll(value | uint64_t(kSubBucketCount - 1));
    const uint64_t sub = value >> bucket;
    return (size_t(bucket + 1) << kSubBucketHalfCountMagnitude) + size_t(sub) - size_t(kSubBucketHalfCount);
  }
  static uint64_t lowest_at_index(size_t index) noexcept;
  static uint64_t highest_at_index(size_t index) noexcept;  // inclusive
  const std::vector<uint64_t>& counts() const noexcept { return counts_; }

  // Rebuild from serialised parts (sparse index→count list); false when an index is out of
  // range. min/max/sum are taken as given so that a round trip is exact.
  bool restore(const std::vector<std::pair<size_t, uint64_t>>& sparse, uint64_t min, uint64_t max, uint64_t sum,
               uint64_t clamped);

  // HdrHistogram "percentile distribution" text (the format wrk2/HdrHistogram print and
  // HistogramLogAnalyzer/plotFiles read). Values divided by `unit_scale` (1000 → µs).
  void print_percentiles(std::FILE* out, double unit_scale, int ticks_per_half_distance = 5) const;
  std::string percentiles_text(double unit_scale, int ticks_per_half_distance = 5) const;

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  uint64_t clamped_ = 0;
};

}  // namespace hitcost::client
