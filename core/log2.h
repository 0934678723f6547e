#pragma once
// log2 buckets over nanoseconds, the one bucketing every latency distribution the server keeps
// (phases, sampled CPU, syncs) uses: bucket b holds [2^b, 2^(b+1)) ns; 0 ns goes to bucket 0.
#include <cstddef>
#include <cstdint>

namespace hitcost {

constexpr size_t kLog2Buckets = 40;  // up to ~18 minutes
inline size_t log2_bucket(uint64_t ns) noexcept {
  if (ns == 0) return 0;
  size_t b = 63 - static_cast<size_t>(__builtin_clzll(ns));
  return b < kLog2Buckets ? b : kLog2Buckets - 1;
}

}  // namespace hitcost
