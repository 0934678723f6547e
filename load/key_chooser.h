#pragma once
// Which page id each request asks for.
//
// Warmed ids are 0..keys-1, drawn uniformly or Zipf-distributed (rank 1 = id 0).
// With a hit ratio H, a request asks with probability 1-H for a never-seen id from a range
// disjoint from the warmed set: miss_start + n*stride + lane, n = 0,1,2,... per chooser, so
// each of `stride` choosers (one per load thread, lane = thread index) issues ids that never
// repeat and never collide with another thread's. Those requests are guaranteed misses as
// long as nothing else asked for those ids before (hence miss_start; see Options).
//
// Not thread-safe: one chooser (with its own RNG) per load thread.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace hitcost::client {

__extension__ typedef unsigned __int128 uint128_t;  // GCC/Clang extension, -Wpedantic safe

// xoshiro256** seeded through splitmix64 (Blackman & Vigna). Small, fast, per thread.
class Rng {
 public:
  explicit Rng(uint64_t seed) noexcept;
  uint64_t next() noexcept {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // uniform in [0,1) with 53 random bits
  double uniform() noexcept { return double(next() >> 11) * 0x1.0p-53; }
  // uniform integer in [0,n) (Lemire's multiply-shift; bias < n/2^64, negligible here)
  uint64_t below(uint64_t n) noexcept { return uint64_t((static_cast<uint128_t>(next()) * n) >> 64); }

 private:
  static uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Zipf(s) over ranks 1..n by rejection-inversion (Hörmann & Derflinger 1996): O(1) memory and
// O(1) expected time for any n, so no CDF table is needed even for 10M keys.
class ZipfSampler {
 public:
  ZipfSampler(uint64_t n, double s);
  uint64_t sample(Rng& rng) const noexcept;  // rank in 1..n

 private:
  double h(double x) const noexcept { return std::exp(-s_ * std::log(x)); }
  double h_integral(double x) const noexcept;
  double h_integral_inverse(double x) const noexcept;
  uint64_t n_;
  double s_;
  double h_integral_x1_;
  double h_integral_n_;
  double sdiv_;
};

struct KeyDist {
  enum class Kind { uniform, zipf } kind = Kind::uniform;
  double zipf_s = 1.0;
};
// "uniform" or "zipf:S" (S > 0); nullopt when malformed.
std::optional<KeyDist> parse_key_dist(const std::string& text);

struct KeySpec {
  uint64_t keys = 1000;
  KeyDist dist;
  std::optional<double> hit_ratio;  // unset: every id comes from the warmed set
  uint64_t miss_start = 0;          // first never-seen id; must be >= keys
};

class KeyChooser {
 public:
  KeyChooser(const KeySpec& spec, uint64_t seed, uint64_t lane, uint64_t stride);
  struct Pick {
    uint64_t id;
    bool forced_miss;  // id is from the never-seen range
  };
  Pick next() noexcept {
    if (spec_.hit_ratio && rng_.uniform() >= *spec_.hit_ratio)
      return {spec_.miss_start + (misses_++) * stride_ + lane_, true};
    if (zipf_) return {zipf_->sample(rng_) - 1, false};
    return {rng_.below(spec_.keys), false};
  }
  // One past the largest never-seen id this chooser could have issued so far; the next run
  // starts its miss range there so ids are not reused across runs in one process.
  uint64_t miss_end() const noexcept { return spec_.miss_start + misses_ * stride_ + stride_; }

 private:
  KeySpec spec_;
  Rng rng_;
  std::optional<ZipfSampler> zipf_;
  uint64_t lane_, stride_;
  uint64_t misses_ = 0;
};

}  // namespace hitcost::client
