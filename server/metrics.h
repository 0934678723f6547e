#pragma once
// Per-thread counters and phase histograms for hitcost-server.
//
// Each io thread owns one ThreadMetrics and is its only writer. Writes are a relaxed
// load + store (a plain add, no locked instruction); readers (/stats on any thread)
// take relaxed loads and sum over threads. A reset never writes into a thread's
// counters (that would race with its owner): it records a baseline that later
// snapshots subtract.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/counter.h"
#include "core/log2.h"
#include "core/result.h"
#include "wire/server_counters.h"

namespace hitcost::server {

// Where a page request spends its time. `write` is the response send (syscall); `log` the
// request's access log line (formatting it, and its write(2) and fdatasync when the mode makes them).
enum class Phase : uint8_t { fetch, unwrap, decode, render, origin, store_set, write, log, count_ };
const char* to_string(Phase) noexcept;
constexpr size_t kPhases = static_cast<size_t>(Phase::count_);

struct PhaseHistogram {
  OwnedCounter count, sum_ns;
  std::array<OwnedCounter, kLog2Buckets> buckets;
  void record(uint64_t ns) noexcept {
    count.add();
    sum_ns.add(ns);
    buckets[log2_bucket(ns)].add();
  }
};

// ---- CPU per request, sampled (server/cpu_sampler.h fills these) ----------------------------
// What a sampled request is, by its outcome: a page hit, a page miss, anything else.
enum class Outcome : uint8_t { hit, miss, other, count_ };
const char* to_string(Outcome) noexcept;
constexpr size_t kOutcomes = static_cast<size_t>(Outcome::count_);

// Where a sampled request's CPU goes. `receive` runs from the previous request's end on the
// thread to this request's handler (event loop, recv, HTTP parse); the page phases follow in
// Phase's order; `other` is the rest of the handler (routing, response headers).
enum class CpuPart : uint8_t { receive, fetch, unwrap, decode, render, origin, store_set, write, log, other, count_ };
const char* to_string(CpuPart) noexcept;
constexpr size_t kCpuParts = static_cast<size_t>(CpuPart::count_);
constexpr CpuPart cpu_part(Phase p) noexcept { return static_cast<CpuPart>(static_cast<size_t>(p) + 1); }
static_assert(cpu_part(Phase::log) == CpuPart::log && cpu_part(Phase::fetch) == CpuPart::fetch);

// Sums over sampled requests of one outcome. Each sample is weighted by the sampling period N
// in force when it was taken (it stands for N requests), so means stay unbiased while N adapts.
// CPU sums are two's complement: a part corrected for the clock's own cost can be below 0.
// Two kinds of samples (server/cpu_sampler.h): "whole" ones read the clock only at both ends
// (the figure per request), detailed ones at every part boundary as well (where it goes).
struct SampledCpu {
  OwnedCounter whole_samples, whole_weight, whole_cpu_ns;  // whole samples: count, Σ N, Σ N × CPU
  OwnedCounter samples;                                    // detailed samples
  OwnedCounter weight;                                     // Σ N
  OwnedCounter cpu_ns;                                     // Σ N × the request's CPU (ns)
  std::array<OwnedCounter, kCpuParts> part_cpu_ns;         // Σ N × CPU by part
  std::array<OwnedCounter, kCpuParts> part_wall_ns;        // Σ N × wall time by part (receive: none)
  std::array<OwnedCounter, kLog2Buckets> cpu_log2;         // one request's CPU, whole samples, log2 ns (unweighted)
};

struct SamplerGauges {
  OwnedCounter clock_reads;    // thread-clock reads made for sampling (their cost is overhead)
  OwnedCounter period;         // N now: about 1 in N requests is sampled
  OwnedCounter clock_read_ns;  // measured CPU cost of one thread-clock read
  // Clean tiles: runs of CpuSampler::kTileCuts consecutive requests timed as one, with no
  // sample's clock read inside: the thread's CPU per request undisturbed by the sampling.
  OwnedCounter clean_tiles, clean_tile_cuts, clean_tile_cpu_ns;
};

// HTTP statuses other than 200 that the server answers, counted by code.
// 401: an admin route asked by a remote peer without a token. 409: GET /value on a store that
// cannot hold value trees (memory:objects), PUT /value of a value the strategy cannot write.
constexpr std::array<int, 11> kCountedStatuses = {400, 401, 403, 404, 405, 408, 409, 413, 431, 500, 503};

struct ThreadMetrics {
  // requests, pages, hits, ... partial_writes: one OwnedCounter per row of wire/server_counters.h.
#define HITCOST_COUNTER_MEMBER(field, ...) OwnedCounter field;
  HITCOST_SERVER_COUNTERS(HITCOST_COUNTER_MEMBER)
#undef HITCOST_COUNTER_MEMBER
  std::array<OwnedCounter, kErrcCount> decode_errors_by_kind, store_errors_by_kind;
  std::array<OwnedCounter, kCountedStatuses.size()> status_counts;
  std::array<PhaseHistogram, kPhases> phases;
  std::array<SampledCpu, kOutcomes> sampled;
  SamplerGauges sampler;

  // An error moves its total and its kind together, so /stats' by-kind figures add up to the
  // total. Errc::count_ sizes the by-kind arrays, so every kind there is has its slot.
  void count_decode_error(Errc kind) noexcept {
    decode_errors.add();
    decode_errors_by_kind[static_cast<size_t>(kind)].add();
  }
  void count_store_error(Errc kind) noexcept {
    store_errors.add();
    store_errors_by_kind[static_cast<size_t>(kind)].add();
  }

  void count_status(int status) noexcept {
    for (size_t i = 0; i < kCountedStatuses.size(); ++i)
      if (kCountedStatuses[i] == status) status_counts[i].add();
  }
};

// A plain, summed copy of all threads' metrics (or a difference of two).
struct MetricsSnapshot {
  // One sum per row of wire/server_counters.h.
#define HITCOST_COUNTER_MEMBER(field, ...) uint64_t field = 0;
  HITCOST_SERVER_COUNTERS(HITCOST_COUNTER_MEMBER)
#undef HITCOST_COUNTER_MEMBER
  std::array<uint64_t, kErrcCount> decode_errors_by_kind{}, store_errors_by_kind{};
  std::array<uint64_t, kCountedStatuses.size()> status_counts{};
  struct Phase {
    uint64_t count = 0, sum_ns = 0;
    std::array<uint64_t, kLog2Buckets> buckets{};
  };
  std::array<Phase, kPhases> phases{};
  struct Sampled {
    uint64_t whole_samples = 0, whole_weight = 0, whole_cpu_ns = 0;
    uint64_t samples = 0, weight = 0, cpu_ns = 0;
    std::array<uint64_t, kCpuParts> part_cpu_ns{}, part_wall_ns{};
    std::array<uint64_t, kLog2Buckets> cpu_log2{};
  };
  std::array<Sampled, kOutcomes> sampled{};
  uint64_t clock_reads = 0;
  uint64_t clean_tiles = 0, clean_tile_cuts = 0, clean_tile_cpu_ns = 0;
  // Gauges, not summed into deltas: the largest period and clock cost over the threads.
  uint64_t sample_period = 0, clock_read_ns = 0;

  uint64_t bad_requests() const noexcept;  // every 4xx
  MetricsSnapshot minus(const MetricsSnapshot& base) const;
};

// A row of wire/server_counters.h with the members it names: what total(), minus(), /stats and
// /metrics loop over.
struct CounterRow {
  OwnedCounter ThreadMetrics::*per_thread;
  uint64_t MetricsSnapshot::*summed;
  std::string_view field;
  std::string_view json_group, json_key;                          // /stats
  std::string_view prom_name, prom_labels, prom_type, prom_help;  // /metrics
};
inline constexpr CounterRow kCounterRows[] = {
#define HITCOST_COUNTER_ROW(field, group, key, name, labels, type, csv, help) \
  {&ThreadMetrics::field, &MetricsSnapshot::field, #field, group, key, name, labels, type, help},
    HITCOST_SERVER_COUNTERS(HITCOST_COUNTER_ROW)
#undef HITCOST_COUNTER_ROW
};
constexpr size_t kCounters = std::size(kCounterRows);

// Owns every thread's metrics; threads are registered at start-up.
class MetricsRegistry {
 public:
  explicit MetricsRegistry(size_t threads);
  ThreadMetrics& thread(size_t i) { return *threads_[i]; }
  MetricsSnapshot total() const;        // since start
  MetricsSnapshot since_reset() const;  // since the last reset()
  void reset();
  // When the last reset happened (start-up counts as one) and the process CPU then (s).
  std::chrono::steady_clock::time_point reset_at() const;
  double cpu_user_at_reset() const;
  double cpu_system_at_reset() const;

 private:
  std::vector<std::unique_ptr<ThreadMetrics>> threads_;
  mutable std::mutex mu_;  // guards baseline_
  MetricsSnapshot baseline_;
  std::chrono::steady_clock::time_point reset_at_ = std::chrono::steady_clock::now();
  double cpu_user_at_reset_ = 0, cpu_system_at_reset_ = 0;
};

}  // namespace hitcost::server
