#pragma once
// SplitMix64: a tiny, fast PRNG whose output is the same on every platform and
// standard library (std:: distributions are not), so generated pages are reproducible.
// Not thread-safe: one instance per caller.
#include <cstdint>

namespace hitcost {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) noexcept : state_(seed) {}

  uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n > 0; the modulo bias is < n / 2^64, irrelevant for text.
  uint64_t below(uint64_t n) noexcept { return next() % n; }
  // Uniform in [lo, hi].
  uint64_t between(uint64_t lo, uint64_t hi) noexcept { return lo + below(hi - lo + 1); }
  // Uniform in [0, 1) with 53 random bits.
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// Mixes several values into one seed (order matters).
inline uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c = 0) noexcept {
  SplitMix64 m(a ^ 0x2545f4914f6cdd1dULL);
  uint64_t x = m.next() ^ b;
  SplitMix64 n(x);
  uint64_t y = n.next() ^ c;
  SplitMix64 o(y);
  return o.next();
}

}  // namespace hitcost
