#pragma once
// Is one read path faster than another, judged from interleaved repeats of both?
// Header-only so hitcost-bench and its unit test (tests/bench) share the one rule; the
// min/median/max is report/verdict.h's Range (hitcost::client).
//
// The rule, for two paths and a baseline fixed before measuring (here: read(2)):
//   ratio       = median(baseline ns) / median(subject ns)   (> 1: the subject is faster)
//   difference  = max(ratio, 1/ratio) - 1                    (same scale either way round)
//   spread      = the larger of the two paths' (max - min) / median
//   conclusive  only when all three hold:
//     1. each path has at least kMinRepeats repeats;
//     2. the min..max ranges do not overlap (touching ends count as overlap);
//     3. difference > spread.
//   Otherwise "inconclusive", and no ratio is given.
// Why 3 on top of 2: separated ranges can still be wide (a VM's cold reads spread by 2x);
// a gap that is smaller than the repeats' own scatter is not a difference we can quote.
// Why kMinRepeats = 5: if the two paths cost the same, the chance that all n repeats of one
// land on the same side of all n of the other is 2 / C(2n, n): 10 % for n = 3, 0.8 % for
// n = 5, 0.06 % for n = 7. That holds for ONE comparison chosen in advance; judging many
// pairs, or picking the baseline after looking, needs more repeats (see STYLE.md, traps).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/verdict.h"

namespace hitcost::bench {

inline constexpr size_t kMinRepeats = 5;

struct SpeedVerdict {
  bool conclusive = false;
  double ratio = 0;                   // median speed ratio, as above (0 when undefined)
  double ratio_lo = 0, ratio_hi = 0;  // baseline.min / subject.max .. baseline.max / subject.min
  double spread_pct = 0, difference_pct = 0;
  std::string label;  // "mmap/read speed 2.60x [2.40..2.85]" or "inconclusive: ..."
};

// subject_ns and baseline_ns: one time per repeat (any unit, the same for both; lower is
// faster). Times <= 0 make the comparison undefined (inconclusive).
inline SpeedVerdict judge_speed(std::string_view subject, const std::vector<double>& subject_ns,
                                std::string_view baseline, const std::vector<double>& baseline_ns) {
  SpeedVerdict v;
  char buf[192];
  if (subject_ns.size() < kMinRepeats || baseline_ns.size() < kMinRepeats) {
    std::snprintf(buf, sizeof buf, "inconclusive: %zu and %zu repeats, need %zu each", subject_ns.size(),
                  baseline_ns.size(), kMinRepeats);
    v.label = buf;
    return v;
  }
  const auto s = client::Range::of(subject_ns), b = client::Range::of(baseline_ns);
  if (!s || !b || s->min <= 0 || b->min <= 0) {
    v.label = "inconclusive: a repeat took no time (timer or input broken)";
    return v;
  }
  const double ratio = b->median / s->median;
  v.difference_pct = 100.0 * (std::max(ratio, 1.0 / ratio) - 1.0);
  v.spread_pct = 100.0 * std::max((s->max - s->min) / s->median, (b->max - b->min) / b->median);
  const bool overlap = s->min <= b->max && b->min <= s->max;  // closed ranges: touching ends overlap
  if (overlap || v.difference_pct <= v.spread_pct) {
    std::snprintf(buf, sizeof buf, "inconclusive: %srepeats spread %.0f%% %s difference %.0f%%",
                  overlap ? "ranges overlap, " : "", v.spread_pct, v.spread_pct >= v.difference_pct ? ">=" : "<",
                  v.difference_pct);
    v.label = buf;
    return v;
  }
  v.conclusive = true;
  v.ratio = ratio;
  v.ratio_lo = b->min / s->max;
  v.ratio_hi = b->max / s->min;
  std::snprintf(buf, sizeof buf, "%.*s/%.*s speed %.2fx [%.2f..%.2f]", static_cast<int>(subject.size()), subject.data(),
                static_cast<int>(baseline.size()), baseline.data(), v.ratio, v.ratio_lo, v.ratio_hi);
  v.label = buf;
  return v;
}

}  // namespace hitcost::bench
