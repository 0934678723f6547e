#pragma once
// Every request's CPU and wall time by part, for the slow log (server/slow_log.h). The CPU
// sampler (cpu_sampler.h) reads the thread's CPU clock around 1 in N requests only; a slow
// request must be explained whichever one it is, so with --slow-log the thread's clock is also
// read here at every part's end, and the thread's major page faults at the request's start and
// end (getrusage RUSAGE_THREAD: the count is exact, only its CPU times tick in 4 ms). That costs
// ~0.5 µs a read, 6-8 reads a request: the slow log is a diagnostic mode, and /stats says it is on
// (slow.threshold_us), so that no one publishes the CPU figures of a run it was on for.
//
// The parts are the sampler's (CpuPart): the sampler calls mark() and started() beside its own.
// Thread-safety: one per io thread, used only by that thread.
#include <array>
#include <cstdint>

#include "server/metrics.h"

namespace hitcost::server {

class RequestTrace {
 public:
  explicit RequestTrace(bool on) : on_(on) {}
  bool on() const noexcept { return on_; }

  // A request's handler starts: the parts are zeroed, the clocks read.
  void started() noexcept;
  // The CPU since the last mark goes to `part`, with `wall_ns` of wall time (0: not measured).
  void mark(CpuPart part, uint64_t wall_ns) noexcept;
  // Its response was handed to the kernel: the service time (start to now), the faults.
  void ended() noexcept;

  uint64_t service_ns() const noexcept { return service_ns_; }
  uint64_t major_faults() const noexcept { return major_faults_; }
  const std::array<uint64_t, kCpuParts>& cpu_ns() const noexcept { return cpu_; }
  const std::array<uint64_t, kCpuParts>& wall_ns() const noexcept { return wall_; }

 private:
  bool on_;
  uint64_t start_wall_ns_ = 0, last_cpu_ns_ = 0, start_faults_ = 0;
  uint64_t service_ns_ = 0, major_faults_ = 0;
  std::array<uint64_t, kCpuParts> cpu_{}, wall_{};
};

}  // namespace hitcost::server
