#include "server/cpu_sampler.h"

#include <time.h>

#include <algorithm>
#include <cmath>

#include "core/clock.h"

namespace hitcost::server {

namespace {
constexpr uint32_t kStartPeriod = 16;  // until the first samples tell what a request costs
}  // namespace

CpuSampler::CpuSampler(ThreadMetrics& metrics, bool enabled, uint32_t period)
    : m_(metrics),
      enabled_(enabled),
      adaptive_(period == 0),
      period_(period == 0 ? kStartPeriod : std::min(period, kMaxPeriod)) {
  m_.sampler.period.v.store(enabled_ ? period_ : 0, std::memory_order_relaxed);
}

void CpuSampler::calibrate() {
  if (!enabled_) return;
  // Back-to-back reads: each difference is the CPU of one whole read. The median of many
  // short batches resists a preemption or a migration landing in one of them.
  constexpr int kBatches = 31, kReadsPerBatch = 64;
  std::array<uint64_t, kBatches> per_read{};
  for (auto& v : per_read) {
    const uint64_t a = thread_cpu_ns();
    for (int i = 0; i < kReadsPerBatch - 1; ++i) (void)thread_cpu_ns();
    v = (thread_cpu_ns() - a) / kReadsPerBatch;
  }
  std::nth_element(per_read.begin(), per_read.begin() + kBatches / 2, per_read.end());
  read_cost_ns_ = per_read[kBatches / 2];
  m_.sampler.clock_read_ns.v.store(read_cost_ns_, std::memory_order_relaxed);
  rng_ ^= reinterpret_cast<uintptr_t>(this);  // threads draw different sequences
}

uint64_t CpuSampler::read_clock() noexcept {
  ++reads_;
  m_.sampler.clock_reads.add();
  return thread_cpu_ns();
}

uint64_t CpuSampler::next_random() noexcept {
  rng_ ^= rng_ << 13;  // xorshift64: cheap, and no shared state between threads
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}

bool CpuSampler::draw() noexcept { return next_random() % period_ == 0; }

bool CpuSampler::draw_tile() noexcept { return enabled_ && next_random() % kCleanTileOdds == 0; }

void CpuSampler::request_started(const void* who) noexcept {
  if (trace_) trace_->started();
  if (!armed_ || active_) return;
  armed_ = false;
  active_ = true;
  who_ = who;
  outcome_ = Outcome::other;
  cpu_.fill(0);
  wall_.fill(0);
  if (detailed_) mark_slow(CpuPart::receive, 0);
}

void CpuSampler::mark_slow(CpuPart part, uint64_t wall_ns) noexcept {
  const uint64_t now = read_clock();
  const size_t k = static_cast<size_t>(part);
  // The interval closed by this read holds about one whole read of the clock (the tail of
  // the previous read and the head of this one): not the request's own work.
  cpu_[k] += int64_t(now - last_ns_) - int64_t(read_cost_ns_);
  wall_[k] += wall_ns;
  last_ns_ = now;
}

void CpuSampler::request_ended(const void* who) noexcept {
  if (active_) {
    if (who != who_) return;  // another connection's asynchronous end: the sample goes on
    finish();
  }
  if (!enabled_) return;
  cut_tile();
  if (reserved_ || armed_ || !draw()) return;
  armed_ = true;
  detailed_ = (rng_ >> 32) & 1;  // bits the period draw did not use
  reads_ = 0;
  last_ns_ = read_clock();
}

void CpuSampler::cut_tile() noexcept {
  if (++tile_cuts_ < kTileCuts) return;
  tile_cuts_ = 0;
  const bool was_reserved = reserved_;
  reserved_ = draw_tile();
  if (!was_reserved && !reserved_) return;
  // Not read_clock(): these reads belong to no sample.
  m_.sampler.clock_reads.add();
  const uint64_t now = thread_cpu_ns();
  if (was_reserved) {
    // The interval holds the tail of the opening read and the head of this one: one read.
    m_.sampler.clean_tiles.add();
    m_.sampler.clean_tile_cuts.add(kTileCuts);
    m_.sampler.clean_tile_cpu_ns.add(now - tile_start_ns_ - read_cost_ns_);
  }
  if (reserved_) {
    tile_start_ns_ = now;
    armed_ = false;  // armed at an earlier cut with no request since (rare): not in this tile
  }
}

void CpuSampler::abandon(const void* who) noexcept {
  if (active_ && who == who_) active_ = false;
}

void CpuSampler::finish() noexcept {
  active_ = false;
  SampledCpu& s = m_.sampled[static_cast<size_t>(outcome_)];
  const uint64_t w = period_;
  if (!detailed_) {
    // One read closes the window; the tail of the arming read and the head of this one make
    // about one whole read inside it.
    const int64_t whole = int64_t(read_clock() - last_ns_) - int64_t(read_cost_ns_);
    s.whole_samples.add();
    s.whole_weight.add(w);
    s.whole_cpu_ns.add(uint64_t(whole) * w);
    s.cpu_log2[log2_bucket(whole > 0 ? uint64_t(whole) : 0)].add();
    adapt(whole, true);
    return;
  }
  int64_t total = 0;
  for (size_t k = 0; k < kCpuParts; ++k) {
    total += cpu_[k];
    s.part_cpu_ns[k].add(uint64_t(cpu_[k]) * w);  // two's complement: negative parts wrap back
    s.part_wall_ns[k].add(wall_[k] * w);
  }
  s.samples.add();
  s.weight.add(w);
  s.cpu_ns.add(uint64_t(total) * w);
  adapt(total, false);
}

void CpuSampler::adapt(int64_t total, bool whole) noexcept {
  if (!adaptive_ || total <= 0) return;
  // N so that this many reads per sample cost what is left of kTargetOverhead of N requests'
  // CPU after the tiles' reads (at least a quarter of it). Samples are taken outside the
  // reserved tiles only, so 1 in N of those requests is sampled.
  auto ewma = [](double& m, double x) { m = m == 0 ? x : m + (x - m) / 64.0; };
  if (whole || mean_cpu_ns_ == 0) ewma(mean_cpu_ns_, double(total));  // detailed ones: inflated by their reads
  ewma(mean_reads_, double(reads_));
  const double tiles = 2.0 * double(read_cost_ns_) / (double(kTileCuts * kCleanTileOdds) * mean_cpu_ns_);
  const double budget = std::max(kTargetOverhead - tiles, kTargetOverhead / 4);
  const double want = mean_reads_ * double(read_cost_ns_) / (budget * mean_cpu_ns_);
  period_ = uint32_t(std::clamp(std::ceil(want), 1.0, double(kMaxPeriod)));
  m_.sampler.period.v.store(period_, std::memory_order_relaxed);
}

}  // namespace hitcost::server
