#include "client/verdict.h"

#include <algorithm>
#include <cstdio>

namespace hitcost::client {

std::optional<Range> Range::of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return Range{v.front(), median, v.back()};
}

bool overlaps(const Range& a, const Range& b) noexcept { return a.min <= b.max && b.min <= a.max; }

Verdict judge(const std::string& subject, const Range& s, const std::string& baseline, const Range& b,
              const std::string& metric) {
  Verdict v{subject, baseline, metric, b.median > 0 ? s.median / b.median : 0.0, !overlaps(s, b), ""};
  char buf[256];
  if (!v.conclusive) {
    std::snprintf(buf, sizeof buf, "%s vs %s: inconclusive (ranges overlap) in %s", subject.c_str(),
                  baseline.c_str(), metric.c_str());
  } else if (v.ratio <= 0) {
    std::snprintf(buf, sizeof buf, "%s vs %s: baseline is zero in %s", subject.c_str(), baseline.c_str(),
                  metric.c_str());
  } else {
    // Two significant figures are all that min/max ranges of a few repeats support.
    std::snprintf(buf, sizeof buf, v.ratio < 2 ? "%s costs %.2f\u00d7 %s in %s" : "%s costs %.1f\u00d7 %s in %s",
                  subject.c_str(), v.ratio, baseline.c_str(), metric.c_str());
  }
  v.text = buf;
  return v;
}

std::vector<Verdict> judge_against_cheapest(const std::vector<std::pair<std::string, Range>>& entries,
                                            const std::string& metric) {
  std::vector<Verdict> out;
  if (entries.size() < 2) return out;
  size_t cheapest = 0;
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i].second.median < entries[cheapest].second.median) cheapest = i;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == cheapest) continue;
    out.push_back(judge(entries[i].first, entries[i].second, entries[cheapest].first, entries[cheapest].second, metric));
  }
  return out;
}

}  // namespace hitcost::client
