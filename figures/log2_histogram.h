#pragma once
// Power-of-two latency histogram printed the way bcc's ext4dist/biolatency print it
// ("usecs : count distribution" with a bar of stars), plus detection of two-peaked shapes.
//
// Why: a cache hit and a miss differ by orders of magnitude, so latency is usually bimodal
// and the mean falls in the empty gap between the peaks. The report marks both peaks and
// says so when the mean lies in the gap.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "figures/histogram.h"

namespace hitcost::client {

struct Log2Histogram {
  // counts[0] holds 0..1 µs, counts[k] holds [2^k, 2^(k+1)-1] µs (bcc's layout).
  std::vector<uint64_t> counts;
  uint64_t total = 0;

  static Log2Histogram from_ns(const Histogram& h);  // folds the HDR buckets into log2 µs
  static size_t slot_of_us(uint64_t us) noexcept { return us < 2 ? 0 : size_t(63 - __builtin_clzll(us)); }
  static uint64_t slot_low(size_t slot) noexcept { return slot == 0 ? 0 : uint64_t{1} << slot; }
  static uint64_t slot_high(size_t slot) noexcept { return (uint64_t{2} << slot) - 1; }
};

struct Bimodal {
  size_t hit_slot = 0;   // the faster peak (hits are served from the cache)
  size_t miss_slot = 0;  // the slower peak
  size_t valley_slot = 0;
};

// Two local maxima separated by a valley at most `valley_fraction` of the smaller peak;
// the smaller peak must hold at least `min_peak_fraction` of all samples (and 5 samples),
// so that noise in a thin tail does not count as a second mode.
std::optional<Bimodal> find_bimodal(const Log2Histogram& h, double min_peak_fraction = 0.003,
                                    double valley_fraction = 0.5);

// bcc-style text. When bimodal, peaks get "<- hit peak" / "<- miss peak" and, when
// `mean_us` lies strictly between the peaks' slots, a closing line says so.
// `misses_seen` = false (X-Cache said every answer was a hit) names them neutrally instead:
// then the second peak is not a cache effect (queueing, GC, a slow thread...).
std::string format_log2(const Log2Histogram& h, double mean_us, bool misses_seen = true);

}  // namespace hitcost::client
