#pragma once
// Honest comparisons: a figure measured over repeats is a range (min/median/max), and one
// strategy is declared cheaper than another only when the ranges do not overlap. Otherwise
// the verdict is "inconclusive" — more repeats or a quieter machine are needed.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hitcost::client {

struct Range {
  double min = 0, median = 0, max = 0;
  // nullopt for an empty sample. Median of an even count is the mean of the middle two.
  static std::optional<Range> of(std::vector<double> values);
};

// Closed intervals: touching ends count as overlap (we cannot tell those apart either).
bool overlaps(const Range& a, const Range& b) noexcept;

struct Verdict {
  std::string subject;
  std::string baseline;
  std::string metric;      // e.g. "server CPU per request"
  double ratio = 0;        // subject median / baseline median (0 when the baseline is 0)
  bool conclusive = false;
  std::string text;        // "struct:json+zlib costs 3.1× html in server CPU per request"
};

Verdict judge(const std::string& subject, const Range& s, const std::string& baseline, const Range& b,
              const std::string& metric);

// The cheapest entry by median is the baseline; every other entry is judged against it.
// Empty when fewer than two entries.
std::vector<Verdict> judge_against_cheapest(const std::vector<std::pair<std::string, Range>>& entries,
                                            const std::string& metric);

}  // namespace hitcost::client
