#include "floor/cpu_timing.h"

#include <algorithm>

#include "core/clock.h"

namespace hitcost::floor {
namespace {

// Calls per batch so that one batch takes about `slice` of thread CPU: grown from one call,
// each try's time sizing the next (the earlier, shorter tries warm the caches).
uint64_t calls_for(TimedOp& t, uint64_t slice_ns) {
  uint64_t n = 1;
  for (;;) {
    const uint64_t t0 = thread_cpu_ns();
    for (uint64_t i = 0; i < n; ++i) t.op();
    const uint64_t dt = thread_cpu_ns() - t0;
    if (dt >= slice_ns / 4 || n >= (uint64_t{1} << 30)) {
      const double per_call = double(std::max<uint64_t>(dt, 1)) / double(n);
      return std::max<uint64_t>(1, static_cast<uint64_t>(double(slice_ns) / per_call));
    }
    n = std::min<uint64_t>(n * 4, uint64_t{1} << 30);
  }
}

}  // namespace

void time_interleaved(const std::vector<TimedOp*>& ops, const TimingPlan& plan) {
  const auto slice_ns = static_cast<uint64_t>(std::max<int64_t>(plan.slice.count(), 1000));
  std::vector<uint64_t> calls(ops.size(), 0);
  std::vector<std::vector<double>> samples(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    TimedOp& t = *ops[i];
    t.ok = t.op() && (!t.check || t.check());
    if (!t.ok) {
      if (t.error.empty()) t.error = "the operation failed its check before timing";
      continue;
    }
    calls[i] = calls_for(t, slice_ns);
  }
  for (int r = 0; r < plan.repeats; ++r) {
    for (size_t i = 0; i < ops.size(); ++i) {
      TimedOp& t = *ops[i];
      if (!t.ok) continue;
      const uint64_t t0 = thread_cpu_ns();
      for (uint64_t k = 0; k < calls[i]; ++k) t.op();
      const uint64_t dt = thread_cpu_ns() - t0;
      samples[i].push_back(double(dt) / double(calls[i]));
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    TimedOp& t = *ops[i];
    std::vector<double>& s = samples[i];
    if (!t.ok || s.empty()) continue;
    std::sort(s.begin(), s.end());
    t.timing.repeats = static_cast<int>(s.size());
    t.timing.calls = calls[i] * s.size();
    t.timing.min_ns = s.front();
    t.timing.max_ns = s.back();
    const size_t m = s.size() / 2;
    t.timing.median_ns = s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
}

}  // namespace hitcost::floor
