#pragma once
// Relaxed counters for statistics that other threads read while the owner counts.
#include <atomic>
#include <cstdint>

namespace hitcost {

// Adds to an atomic that has exactly one writer: a relaxed load and store (a plain add, no
// locked instruction on the hot path); readers on other threads see a value that is at
// most a few increments old and never torn.
template <class T>
inline void owner_add(std::atomic<T>& a, T d = 1) noexcept {
  a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
}

// A counter with one writing thread (its owner) and any number of readers.
struct OwnedCounter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t d = 1) noexcept { owner_add(v, d); }
  uint64_t get() const noexcept { return v.load(std::memory_order_relaxed); }
};

// A counter that several threads add to: an atomic add, relaxed (only the total matters).
// Cache-line aligned so that neighbouring counters do not share a line between writers.
struct alignas(64) SharedCounter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t d = 1) noexcept { v.fetch_add(d, std::memory_order_relaxed); }
  uint64_t get() const noexcept { return v.load(std::memory_order_relaxed); }
};

}  // namespace hitcost
