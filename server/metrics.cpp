#include "server/metrics.h"

#include <algorithm>

#include "server/process_stats.h"

namespace hitcost::server {

const char* to_string(Phase p) noexcept {
  switch (p) {
    case Phase::fetch: return "fetch";
    case Phase::unwrap: return "unwrap";
    case Phase::decode: return "decode";
    case Phase::render: return "render";
    case Phase::origin: return "origin";
    case Phase::store_set: return "store_set";
    case Phase::write: return "write";
    case Phase::log: return "log";
    case Phase::count_: break;
  }
  return "unknown";
}

const char* to_string(Outcome o) noexcept {
  switch (o) {
    case Outcome::hit: return "hit";
    case Outcome::miss: return "miss";
    case Outcome::other: return "other";
    case Outcome::count_: break;
  }
  return "unknown";
}

const char* to_string(CpuPart p) noexcept {
  if (p == CpuPart::receive) return "receive";
  if (p == CpuPart::other) return "other";
  if (p == CpuPart::count_) return "unknown";
  return to_string(static_cast<Phase>(static_cast<size_t>(p) - 1));
}

uint64_t MetricsSnapshot::bad_requests() const noexcept {
  uint64_t n = 0;
  for (size_t i = 0; i < kCountedStatuses.size(); ++i)
    if (kCountedStatuses[i] >= 400 && kCountedStatuses[i] < 500) n += status_counts[i];
  return n;
}

MetricsSnapshot MetricsSnapshot::minus(const MetricsSnapshot& b) const {
  MetricsSnapshot d = *this;
  auto sub = [](uint64_t& x, uint64_t y) { x = x >= y ? x - y : 0; };
  for (const CounterRow& c : kCounterRows) sub(d.*c.summed, b.*c.summed);
  for (size_t i = 0; i < kErrcCount; ++i) {
    sub(d.decode_errors_by_kind[i], b.decode_errors_by_kind[i]);
    sub(d.store_errors_by_kind[i], b.store_errors_by_kind[i]);
  }
  for (size_t i = 0; i < d.status_counts.size(); ++i) sub(d.status_counts[i], b.status_counts[i]);
  for (size_t p = 0; p < kPhases; ++p) {
    sub(d.phases[p].count, b.phases[p].count);
    sub(d.phases[p].sum_ns, b.phases[p].sum_ns);
    for (size_t k = 0; k < kLog2Buckets; ++k) sub(d.phases[p].buckets[k], b.phases[p].buckets[k]);
  }
  // Sampled sums wrap (they hold signed values): plain modular differences.
  for (size_t o = 0; o < kOutcomes; ++o) {
    auto& x = d.sampled[o];
    const auto& y = b.sampled[o];
    x.whole_samples -= y.whole_samples;
    x.whole_weight -= y.whole_weight;
    x.whole_cpu_ns -= y.whole_cpu_ns;
    x.samples -= y.samples;
    x.weight -= y.weight;
    x.cpu_ns -= y.cpu_ns;
    for (size_t k = 0; k < kCpuParts; ++k) {
      x.part_cpu_ns[k] -= y.part_cpu_ns[k];
      x.part_wall_ns[k] -= y.part_wall_ns[k];
    }
    for (size_t k = 0; k < kLog2Buckets; ++k) x.cpu_log2[k] -= y.cpu_log2[k];
  }
  d.clock_reads -= b.clock_reads;
  d.clean_tiles -= b.clean_tiles;
  d.clean_tile_cuts -= b.clean_tile_cuts;
  d.clean_tile_cpu_ns -= b.clean_tile_cpu_ns;
  return d;
}

MetricsRegistry::MetricsRegistry(size_t threads) {
  for (size_t i = 0; i < threads; ++i) threads_.push_back(std::make_unique<ThreadMetrics>());
}

MetricsSnapshot MetricsRegistry::total() const {
  MetricsSnapshot s;
  for (const auto& tp : threads_) {
    const ThreadMetrics& t = *tp;
    for (const CounterRow& c : kCounterRows) s.*c.summed += (t.*c.per_thread).get();
    for (size_t i = 0; i < kErrcCount; ++i) {
      s.decode_errors_by_kind[i] += t.decode_errors_by_kind[i].get();
      s.store_errors_by_kind[i] += t.store_errors_by_kind[i].get();
    }
    for (size_t i = 0; i < s.status_counts.size(); ++i) s.status_counts[i] += t.status_counts[i].get();
    for (size_t p = 0; p < kPhases; ++p) {
      s.phases[p].count += t.phases[p].count.get();
      s.phases[p].sum_ns += t.phases[p].sum_ns.get();
      for (size_t k = 0; k < kLog2Buckets; ++k) s.phases[p].buckets[k] += t.phases[p].buckets[k].get();
    }
    for (size_t o = 0; o < kOutcomes; ++o) {
      auto& x = s.sampled[o];
      const SampledCpu& y = t.sampled[o];
      x.whole_samples += y.whole_samples.get();
      x.whole_weight += y.whole_weight.get();
      x.whole_cpu_ns += y.whole_cpu_ns.get();
      x.samples += y.samples.get();
      x.weight += y.weight.get();
      x.cpu_ns += y.cpu_ns.get();
      for (size_t k = 0; k < kCpuParts; ++k) {
        x.part_cpu_ns[k] += y.part_cpu_ns[k].get();
        x.part_wall_ns[k] += y.part_wall_ns[k].get();
      }
      for (size_t k = 0; k < kLog2Buckets; ++k) x.cpu_log2[k] += y.cpu_log2[k].get();
    }
    s.clock_reads += t.sampler.clock_reads.get();
    s.clean_tiles += t.sampler.clean_tiles.get();
    s.clean_tile_cuts += t.sampler.clean_tile_cuts.get();
    s.clean_tile_cpu_ns += t.sampler.clean_tile_cpu_ns.get();
    s.sample_period = std::max(s.sample_period, t.sampler.period.get());
    s.clock_read_ns = std::max(s.clock_read_ns, t.sampler.clock_read_ns.get());
  }
  return s;
}

MetricsSnapshot MetricsRegistry::since_reset() const {
  MetricsSnapshot now = total();
  std::lock_guard lk(mu_);
  return now.minus(baseline_);
}

void MetricsRegistry::reset() {
  MetricsSnapshot now = total();
  ProcessCpu cpu = process_cpu();
  std::lock_guard lk(mu_);
  baseline_ = now;
  reset_at_ = std::chrono::steady_clock::now();
  cpu_user_at_reset_ = cpu.user_s;
  cpu_system_at_reset_ = cpu.system_s;
}

std::chrono::steady_clock::time_point MetricsRegistry::reset_at() const {
  std::lock_guard lk(mu_);
  return reset_at_;
}
double MetricsRegistry::cpu_user_at_reset() const {
  std::lock_guard lk(mu_);
  return cpu_user_at_reset_;
}
double MetricsRegistry::cpu_system_at_reset() const {
  std::lock_guard lk(mu_);
  return cpu_system_at_reset_;
}

}  // namespace hitcost::server
