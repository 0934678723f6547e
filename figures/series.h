#pragma once
// The per-second view of a run: what the totals hide (a stall in second 7, a warm-up tail,
// throughput sagging as a store fills). Each load thread keeps its own Series (no sharing);
// they are merged at the end, and across client machines by `hitcost-load merge`.
//
// Per-second latency goes into a CoarseHistogram (log-linear, 32 sub-buckets per power of
// two: ≤ 3.2 % relative error, 5 KiB) instead of the 264 KiB HDR histogram, so a one-hour
// run costs 18 MiB per thread rather than 950 MiB. It merges exactly, like the HDR one.
//
// LiveProgress is the one structure another thread reads while the load runs (the progress
// line). It has a single writer per instance, so increments are relaxed load+store (plain
// moves on x86, no locked instructions); the reader sees a slightly stale but untorn value.
#include <array>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/counter.h"

namespace hitcost::client {

class CoarseHistogram {
 public:
  static constexpr int kSubBits = 5;                           // 32 sub-buckets per octave
  static constexpr size_t kSlots = 32 + (43 - kSubBits) * 32;  // values up to 2^43 ns

  static size_t slot_of(uint64_t v) noexcept {
    if (v < 32) return size_t(v);
    const int e = 63 - __builtin_clzll(v);  // 5..63
    const size_t slot = 32 + size_t(e - kSubBits) * 32 + size_t((v >> (e - kSubBits)) & 31);
    return slot < kSlots ? slot : kSlots - 1;
  }
  static uint64_t slot_high(size_t slot) noexcept;  // highest value in the slot

  void record(uint64_t v) noexcept {
    ++counts_[slot_of(v)];
    ++total_;
    if (v > max_) max_ = v;
  }
  void merge(const CoarseHistogram& o) noexcept;
  uint64_t count() const noexcept { return total_; }
  uint64_t max() const noexcept { return max_; }
  // Nearest rank as in Histogram::value_at_percentile: the slot's top, never above max().
  uint64_t value_at_percentile(double percent) const noexcept;
  nlohmann::json sparse_json() const;  // [[slot, count], ...]
  bool restore(const nlohmann::json& sparse, uint64_t max);

 private:
  std::array<uint32_t, kSlots> counts_{};
  uint64_t total_ = 0;
  uint64_t max_ = 0;
};

// One 1 s interval of the measured window, by the time the response (or error) arrived.
struct SeriesPoint {
  uint64_t requests = 0, ok = 0, errors = 0, hits = 0, misses = 0;
  CoarseHistogram latency;  // ns, same origin as the run's latency (intended send in open loop)
  void merge(const SeriesPoint& o) noexcept;
};

class Series {
 public:
  static constexpr uint64_t kIntervalNs = 1'000'000'000;
  // Interval of an event at `t` (>= start); grows the vector as needed.
  SeriesPoint& at(uint64_t start_ns, uint64_t t) {
    const size_t i = t > start_ns ? size_t((t - start_ns) / kIntervalNs) : 0;
    if (i >= points.size()) points.resize(i + 1);
    return points[i];
  }
  // Merges interval i of `o` into interval i + offset of this one.
  void merge(const Series& o, size_t offset = 0);
  std::vector<SeriesPoint> points;
};

// JSON: one object per interval with t_s, len_s, requests, throughput_rps, ok, errors, hits,
// misses, p50_us, p99_us, max_us and the sparse coarse histogram "h" (so merges stay exact).
// `window_s` trims the last interval's length (a 2.5 s window has a 0.5 s last interval).
nlohmann::json series_json(const Series& s, double window_s);
bool series_from_json(const nlohmann::json& j, Series* s);
// Terminal table, one line per second.
std::string format_series(const Series& s, double window_s);

struct LiveProgress {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> errors{0};
  std::array<std::atomic<uint32_t>, CoarseHistogram::kSlots> latency{};

  static void bump(std::atomic<uint64_t>& a) noexcept { owner_add<uint64_t>(a); }
  void record(uint64_t latency_ns) noexcept {
    owner_add<uint32_t>(latency[CoarseHistogram::slot_of(latency_ns)]);
    bump(requests);
  }
};

// What the progress line shows, summed over the threads.
struct ProgressSnapshot {
  double elapsed_s = 0;   // into the measured window
  uint64_t requests = 0;  // measured responses so far
  uint64_t errors = 0;
  double rps = 0;     // over the last tick
  double p99_us = 0;  // all measured responses so far
};
ProgressSnapshot read_progress(const std::vector<const LiveProgress*>& parts, double elapsed_s, uint64_t prev_requests,
                               double tick_s);
std::string format_progress(const ProgressSnapshot& p);

}  // namespace hitcost::client
