#include "server/request_trace.h"

#include <sys/resource.h>

#include "core/clock.h"

namespace hitcost::server {
namespace {

uint64_t thread_major_faults() noexcept {
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
  return static_cast<uint64_t>(ru.ru_majflt);
}

}  // namespace

void RequestTrace::started() noexcept {
  if (!on_) return;
  cpu_.fill(0);
  wall_.fill(0);
  start_faults_ = thread_major_faults();
  start_wall_ns_ = now_ns();
  last_cpu_ns_ = thread_cpu_ns();
}

void RequestTrace::mark(CpuPart part, uint64_t wall_ns) noexcept {
  if (!on_) return;
  const uint64_t now = thread_cpu_ns();
  const size_t k = static_cast<size_t>(part);
  cpu_[k] += now - last_cpu_ns_;
  wall_[k] += wall_ns;
  last_cpu_ns_ = now;
}

void RequestTrace::ended() noexcept {
  if (!on_) return;
  service_ns_ = now_ns() - start_wall_ns_;
  major_faults_ = thread_major_faults() - start_faults_;
}

}  // namespace hitcost::server
