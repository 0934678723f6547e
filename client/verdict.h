#pragma once
// Verdicts a skeptic accepts: is strategy A's cost really X times strategy B's?
//
// The figure of each run is one number (e.g. server CPU per hit); a strategy has n runs,
// interleaved with the other strategies' runs so that drift hits all of them alike. For a
// subject against the baseline (named in advance, not the cheapest found afterwards):
//
// - estimate: the Hodges–Lehmann shift of the logs, i.e. the median of all n·m pairwise
//   log-ratios log(s_i / b_j), reported as a ratio exp(shift);
// - interval: the distribution-free confidence interval of that shift from the exact
//   Mann–Whitney distribution (order statistics of the pairwise log-ratios). It assumes only
//   that runs are independent and the two samples differ by a shift in log scale;
// - correction: the intervals of all m comparisons of a sweep hold together at 1 − α
//   (Bonferroni: each at 1 − α/m), so the chance that any verdict is wrong is at most α;
// - minimum effect: a difference is called only when the whole interval lies beyond
//   ±min_effect (default 5 %); an interval inside the band says "same within 5 %";
// - minimum sample: with too few runs even the widest interval (the smallest and largest
//   pairwise ratio) has less than the asked confidence; then "inconclusive: need ≥ N runs".
//
// Min..max ranges that do not overlap are not a test (with 4 identical strategies and 3
// repeats they call a difference in about a quarter of sweeps, and they get stricter as
// repeats grow); verdict_test.cpp simulates both properties this design promises.
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

struct VerdictOptions {
  double alpha = 0.05;       // family-wise: P(any interval of the sweep misses) ≤ alpha
  double min_effect = 0.05;  // differences below this fraction are not called
};

struct Verdict {
  enum class Kind {
    costs,         // the interval lies wholly beyond the minimum effect: a difference
    equivalent,    // the interval lies wholly inside ±min_effect: the same, practically
    inconclusive,  // anything else, or too few runs
  };
  std::string subject, baseline, metric;
  Kind kind = Kind::inconclusive;
  size_t n_subject = 0, n_baseline = 0;  // runs used
  std::optional<double> ratio;           // Hodges–Lehmann estimate of subject / baseline
  std::optional<double> low, high;       // its simultaneous interval
  double confidence = 0;                 // per comparison (1 − alpha/m), as achieved
  size_t need_runs = 0;                  // runs each side needs for an interval at all
  std::string text;                      // one line for people
  bool conclusive() const noexcept { return kind == Kind::costs; }
};
const char* to_string(Verdict::Kind) noexcept;

struct Sample {
  std::string name;
  std::vector<double> values;  // the runs' figures (> 0); excluded runs already left out
};

// Each subject against `baseline` (an entry of `samples`); `comparisons` is the family size m
// for the correction (0: samples.size() − 1). Values ≤ 0 are ignored (a ratio needs > 0).
std::vector<Verdict> compare_to_baseline(const std::vector<Sample>& samples, const std::string& baseline,
                                         const std::string& metric, const VerdictOptions& o, size_t comparisons = 0);

// Building blocks, exposed for tests.
// P(U ≤ u) for the Mann–Whitney U statistic of samples of n and m without ties (exact).
double mann_whitney_cdf(size_t n, size_t m, size_t u);
// The smallest k such that every n = m = k sample pair can reach two-sided level `level`.
size_t min_runs_for(double level);

}  // namespace hitcost::client
