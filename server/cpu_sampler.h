#pragma once
// CPU per request, sampled from the io thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID).
// getrusage(RUSAGE_THREAD) moves in 4 ms ticks here and a thread-clock read costs ~0.5 µs, so
// per-request CPU can neither come from rusage nor from reading the clock on every request:
// the clock is read around about 1 in N requests.
//
// What a sampled request's CPU covers. The thread's timeline is cut at the end of every
// request (its response handed to the kernel); the CPU from the previous cut to this
// request's end is this request's: the event loop and the receive of its bytes (`receive`),
// routing and response headers (`other`), the page phases and the send (`write`). These
// intervals tile the thread's CPU, so their mean is the thread's CPU per request, split by
// outcome (hit, miss, other) and by part; a blocked thread's clock stands still, so no idle
// time is in it. It is the figure getrusage gives only over a whole window.
//
// Sampling: at each cut, with probability 1/N, the thread arms (reads its clock); the next
// request to start on the thread is sampled. Half the samples are "whole": the clock is read
// again only at the request's end. The other half are detailed: read at the request's start,
// at each phase boundary and at its end. Every read inside the window adds its own cost to
// the part it closes; that cost (measured when the thread starts) is subtracted. But reads
// also disturb what follows them (a syscall cools the caches), which no subtraction undoes:
// measured here, seven reads inflate a 15 µs memory-store hit by ~1.8 µs. So the figure per
// request comes from the whole samples (two reads), and the detailed ones say where it goes.
// N adapts so that the reads cost about 1 % of the thread's CPU; each sample carries its N as
// a weight, so a changing N does not bias the means.
//
// Even two reads disturb: a whole sample still costs more than the same request unobserved
// (+1.3 µs on a 15-20 µs memory-store hit on one machine here, 6-10 %). So the thread also times
// itself in tiles of kTileCuts requests: at each tile's start it reserves the tile with
// probability 1/kCleanTileOdds, and takes no sample in a reserved ("clean") tile; the clock is
// read at its start and its end only. Its CPU over its requests is the thread's CPU per
// request as nobody observes it (one read's cost subtracted; what that read disturbs is
// spread over kTileCuts requests). The samples say how that CPU splits between hits and
// misses; the clean tiles say how much the samples' own reads added (measure/server_stats.h).
// The reservation is a coin, not "the tiles that happened to hold no sample": with an
// adaptive N, sample-free tiles are more frequent where requests are cheap (N is larger
// there), which biased the first version low by up to 6 % on a noisy machine.
//
// Known imprecision: a response finished asynchronously (`partial_writes` in /stats) lets
// other requests run inside a sampled window. Rare in normal runs, and counted there.
//
// Thread-safety: one CpuSampler per io thread, used only by that thread. Its sums go to the
// thread's ThreadMetrics (relaxed stores), which any thread may read.
#include <array>
#include <chrono>
#include <cstdint>

#include "server/metrics.h"
#include "server/request_trace.h"

namespace hitcost::server {

class CpuSampler {
 public:
  // period 0 = adaptive (the default); otherwise a fixed 1 in `period`. `enabled` false
  // (--no-metrics) never samples.
  CpuSampler(ThreadMetrics& metrics, bool enabled, uint32_t period);

  // Measures the cost of one clock read. Call on the owner thread before the first request.
  void calibrate();

  // A request's handler starts (its bytes are read and parsed). `who` names the request's
  // connection so that only that connection's end closes the sample.
  void request_started(const void* who) noexcept;
  // The active sample's CPU since the last mark goes to `part`; `wall_ns` is that part's wall
  // time, as the caller measured it (0 when not measured). No-op when nothing is sampled.
  void mark(CpuPart part, uint64_t wall_ns = 0) noexcept {
    if (trace_) trace_->mark(part, wall_ns);
    if (active_ && detailed_) mark_slow(part, wall_ns);
  }
  // With --slow-log every request's parts are traced too (request_trace.h): the sampler's
  // marks are the places a part ends, so it tells the trace.
  void trace_with(RequestTrace* trace) noexcept { trace_ = trace && trace->on() ? trace : nullptr; }
  void set_outcome(Outcome o) noexcept { outcome_ = o; }
  bool active() const noexcept { return active_; }
  // `who`'s response was handed to the kernel (or its connection closed): the timeline is cut.
  void request_ended(const void* who) noexcept;
  // `who` goes away without a response (connection closed mid-request): its sample, if any,
  // is dropped, not counted.
  void abandon(const void* who) noexcept;

  static constexpr uint32_t kMaxPeriod = 4096;
  // Fraction of the thread's CPU the reads may cost, tiles included. 0.9 %: what /stats then
  // shows runs a little above the aim (1.0-1.1 % at 1 % measured here), and 1 % is the bound.
  static constexpr double kTargetOverhead = 0.009;
  // Requests per tile, and 1 in how many tiles is reserved: two reads (0.7-1.5 µs each here)
  // per 4 × 32 requests of 13 µs and more cost at most 0.2 % of the CPU, and a 2 s run at
  // 20k requests/s has ~300 clean tiles.
  static constexpr uint32_t kTileCuts = 32;
  static constexpr uint32_t kCleanTileOdds = 4;

 private:
  uint64_t read_clock() noexcept;  // thread CPU ns; counts the read
  void mark_slow(CpuPart part, uint64_t wall_ns) noexcept;
  void finish() noexcept;
  // At every cut: every kTileCuts cuts, ends the tile (timing it if it was reserved) and
  // decides whether the next one is.
  void cut_tile() noexcept;
  // The period N from what requests cost (whole samples) and how many reads a sample makes.
  void adapt(int64_t request_cpu_ns, bool whole) noexcept;
  uint64_t next_random() noexcept;
  bool draw() noexcept;       // true with probability 1/period_
  bool draw_tile() noexcept;  // true with probability 1/kCleanTileOdds

  ThreadMetrics& m_;
  RequestTrace* trace_ = nullptr;
  bool enabled_;
  bool adaptive_;
  uint32_t period_;
  uint64_t rng_ = 0x9e3779b97f4a7c15ULL;
  uint64_t read_cost_ns_ = 0;
  double mean_cpu_ns_ = 0;  // running mean CPU of a sampled request (drives N)
  double mean_reads_ = 0;   // running mean of clock reads per sample
  // the sample in flight
  bool armed_ = false, active_ = false, detailed_ = false;
  const void* who_ = nullptr;
  Outcome outcome_ = Outcome::other;
  uint64_t last_ns_ = 0;
  uint32_t reads_ = 0;
  // the tile in progress
  bool reserved_ = false;  // no sample in this tile: it is timed whole
  uint32_t tile_cuts_ = 0;
  uint64_t tile_start_ns_ = 0;
  std::array<int64_t, kCpuParts> cpu_{};
  std::array<uint64_t, kCpuParts> wall_{};
};

}  // namespace hitcost::server
