#pragma once
// The one wall clock for intervals and deadlines: CLOCK_MONOTONIC in nanoseconds (what
// std::chrono::steady_clock reads on Linux, as an integer that fits atomics and JSON), and the
// calling thread's CPU clock, CLOCK_THREAD_CPUTIME_ID (~0.5 µs a read on the VMs measured).
#include <time.h>

#include <cstdint>

namespace hitcost {

inline uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The wall clock, Unix ns (CLOCK_REALTIME): only where machines must agree on a moment (runs
// that start together, run records' start times), never for an interval.
inline uint64_t unix_now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// CPU time of the calling thread, ns: user and kernel time, blocking not counted.
inline uint64_t thread_cpu_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace hitcost
