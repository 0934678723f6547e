#pragma once
// The one wall clock for intervals and deadlines: CLOCK_MONOTONIC in nanoseconds (what
// std::chrono::steady_clock reads on Linux, as an integer that fits atomics and JSON).
#include <time.h>

#include <cstdint>

namespace hitcost {

inline uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace hitcost
