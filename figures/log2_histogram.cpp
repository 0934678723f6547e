#include "figures/log2_histogram.h"

#include <algorithm>
#include <cstdio>

namespace hitcost::client {

Log2Histogram Log2Histogram::from_ns(const Histogram& h) {
  Log2Histogram out;
  out.counts.assign(43, 0);  // 2^42 µs is far beyond the HDR range
  const auto& c = h.counts();
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c[i]) continue;
    // Use the bucket's lowest value: HDR buckets never straddle a power of two of ns, and
    // µs slot edges fall on 1000·2^k ns, so at most 0.1 % of a slot's edge can be misplaced.
    const uint64_t us = Histogram::lowest_at_index(i) / 1000;
    out.counts[slot_of_us(us)] += c[i];
    out.total += c[i];
  }
  while (!out.counts.empty() && out.counts.back() == 0) out.counts.pop_back();
  return out;
}

std::optional<Bimodal> find_bimodal(const Log2Histogram& h, double min_peak_fraction, double valley_fraction) {
  const auto& c = h.counts;
  if (c.size() < 3 || h.total == 0) return std::nullopt;
  size_t top = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (c[i] > c[top]) top = i;
  const double min_peak = std::max(5.0, min_peak_fraction * double(h.total));
  std::optional<Bimodal> best;
  uint64_t best_count = 0;
  for (size_t j = 0; j < c.size(); ++j) {
    if (j == top || double(c[j]) < min_peak) continue;
    const bool local_max = (j == 0 || c[j] >= c[j - 1]) && (j + 1 == c.size() || c[j] >= c[j + 1]);
    if (!local_max) continue;
    const size_t lo = std::min(j, top), hi = std::max(j, top);
    if (hi - lo < 2) continue;  // adjacent slots are one broad peak
    size_t valley = lo + 1;
    for (size_t k = lo + 1; k < hi; ++k)
      if (c[k] < c[valley]) valley = k;
    if (double(c[valley]) > valley_fraction * double(c[j])) continue;
    if (c[j] > best_count) {
      best_count = c[j];
      best = Bimodal{lo, hi, valley};
    }
  }
  return best;
}

std::string format_log2(const Log2Histogram& h, double mean_us, bool misses_seen) {
  std::string out;
  char line[200];
  const auto& c = h.counts;
  size_t first = 0;
  while (first < c.size() && c[first] == 0) ++first;
  if (first == c.size()) return "     (no samples)\n";
  const size_t last = c.size() - 1;
  uint64_t peak = 0;
  for (auto v : c) peak = std::max(peak, v);
  const auto modes = find_bimodal(h);
  std::snprintf(line, sizeof line, "%24s : count     distribution\n", "usecs");
  out += line;
  for (size_t i = first; i <= last; ++i) {
    char range[64];
    std::snprintf(range, sizeof range, "%llu -> %llu", static_cast<unsigned long long>(Log2Histogram::slot_low(i)),
                  static_cast<unsigned long long>(Log2Histogram::slot_high(i)));
    char bar[41];
    const int stars = int(double(c[i]) * 40.0 / double(peak) + 0.5);
    for (int s = 0; s < 40; ++s) bar[s] = s < stars ? '*' : ' ';
    bar[40] = '\0';
    const char* mark = "";
    if (modes && i == modes->hit_slot) mark = misses_seen ? " <- hit peak" : " <- fast peak";
    if (modes && i == modes->miss_slot)
      mark = misses_seen ? " <- miss peak" : " <- slow peak (no misses: not a cache effect)";
    std::snprintf(line, sizeof line, "%24s : %-9llu |%s|%s\n", range, static_cast<unsigned long long>(c[i]), bar, mark);
    out += line;
  }
  if (modes) {
    const size_t mean_slot = Log2Histogram::slot_of_us(uint64_t(mean_us));
    if (mean_slot > modes->hit_slot && mean_slot < modes->miss_slot) {
      std::snprintf(line, sizeof line, "  mean %.1f us falls in the gap between the %s peaks: it describes neither\n",
                    mean_us, misses_seen ? "hit and miss" : "two");
      out += line;
    }
  }
  return out;
}

}  // namespace hitcost::client
