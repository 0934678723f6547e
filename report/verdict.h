#pragma once
// Verdicts a skeptic accepts and a user can act on: does strategy A cost X times strategy B,
// are they the same within ±5 %, or is it not decided yet — and how much more data would say?
//
// The data are rounds: in each round every strategy ran once, in a shuffled order, so the
// runs of one round share whatever the machine was doing then (drift, a warm or cold cache,
// a neighbour). A comparison of subject S with the baseline B (named before the run, not the
// cheapest found afterwards) therefore uses the PAIRS of one round: d_r = log(S_r) − log(B_r).
// Drift shared by a round cancels in d_r instead of widening the interval, and S and B may
// have spreads of their own (d_r is whatever it is: no equal-shape assumption).
//
// - estimate: the mean of the d_r, reported as the ratio exp(mean) (a geometric mean ratio);
// - interval: mean ± t · sd/√n, Student's t with n − 1 degrees of freedom;
// - looks: in a sequential sweep (--until-decided) the comparison is looked at after every
//   round from design.min_rounds on, and the first look whose interval decides gives the
//   verdict. The levels of the looks come from an alpha-spending design
//   (report/sequential.h): the intervals of all looks hold together, so stopping when the
//   data allow does not inflate the error. A fixed sweep (--repeat N) has one look, at the end;
// - family: the intervals of all m comparisons of a sweep hold together at 1 − alpha
//   (Bonferroni: each at alpha/m), so the chance that ANY verdict of the sweep is wrong is at
//   most alpha;
// - three answers, from where the interval lies against the band ±min_effect (5 %):
//     costs      the interval excludes 1 and the estimate lies beyond the band: "costs 1.31×";
//     same       the interval lies inside the band: "the same within 5 %" (an equivalence
//                decision, TOST-style: both one-sided tests against the band's edges);
//     undecided  neither yet; with the spread seen, about M more paired rounds would decide.
//   A difference smaller than the band but real (an interval like [1.01..1.04]) is "the same
//   within 5 %": the practical question is answered. A wrong answer needs an interval that
//   missed the true ratio, which happens with probability ≤ alpha over the whole sweep.
//
// tests/client/verdict_test.cpp simulates these promises: identical strategies under drift,
// unequal spreads, random exclusions and optional stopping; power for 1.10× and 1.30×; and that
// dropping the pairing, the family correction or the spending breaks them.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/sequential.h"

namespace hitcost::client {

struct Range {
  double min = 0, median = 0, max = 0;
  // nullopt for an empty sample. Median of an even count is the mean of the middle two.
  static std::optional<Range> of(std::vector<double> values);
};

struct VerdictOptions {
  double alpha = 0.05;       // family-wise: P(any verdict of the sweep is wrong) ≤ alpha
  double min_effect = 0.05;  // the band ±5 %: differences inside it are "the same"
  // Looks after every round from design.min_rounds (true), or one look at the last round.
  bool sequential = true;
  SequentialDesign design;
};

struct Verdict {
  enum class Kind {
    costs,      // the interval excludes 1 and the estimate lies beyond the band
    same,       // the interval lies inside the band
    undecided,  // neither yet (or too few paired rounds to look)
  };
  std::string subject, baseline, metric;
  Kind kind = Kind::undecided;
  size_t pairs = 0;                          // rounds where both had a usable figure
  size_t decided_at = 0;                     // pairs at the look that decided; 0 while undecided
  std::optional<double> ratio;               // exp(mean log ratio) at that look (or the last one)
  std::optional<double> low, high;           // its interval
  double confidence = 0;                     // the look's own level (1 − its nominal two-sided error)
  double widened_low = 0, widened_high = 0;  // what other work added to each end of the interval (fractions)
  std::optional<size_t> more_rounds;         // undecided: about this many more paired rounds, at the spread seen
  std::string text;                          // one line for people
  bool decided() const noexcept { return kind != Kind::undecided; }
};
const char* to_string(Verdict::Kind) noexcept;

// One strategy's figures with the round each came from (excluded runs already left out).
struct Sample {
  std::string name;
  std::vector<double> values;    // > 0; others are ignored (a ratio needs > 0)
  std::vector<int> rounds = {};  // rounds[i] is the round of values[i]; empty = values are rounds 0, 1, ...
  // bias[i]: how much higher than the truth values[i] may read, a fraction of it (other work
  // beside that run, report/noise.h); empty = none. A comparison's interval is widened by the
  // mean of its pairs' bounds, each side by the side that can push it there, so noise the
  // runs were measured to have can make a verdict undecided but never decide one.
  std::vector<double> bias = {};
};

// Each subject against `baseline` (an entry of `samples`), paired by round; `comparisons` is
// the family size m for the correction (0: samples.size() − 1).
std::vector<Verdict> compare_to_baseline(const std::vector<Sample>& samples, const std::string& baseline,
                                         const std::string& metric, const VerdictOptions& o, size_t comparisons = 0);

// The per-round log ratios of subject against baseline, in round order: what a verdict reads.
std::vector<double> paired_log_ratios(const Sample& subject, const Sample& baseline);

// One comparison's verdict from its paired log ratios (exposed for the simulation tests).
Verdict decide_pairs(const std::vector<double>& log_ratios, const VerdictOptions& o, size_t comparisons);

// The pairs of a comparison in round order, with what each side's bias bound adds.
struct Pairs {
  std::vector<double> d;              // log(subject) − log(baseline) per round
  std::vector<double> subject_high;   // log(1 + subject's bias): the truth may be this much lower
  std::vector<double> baseline_high;  // log(1 + baseline's bias): the truth may be this much higher
};
Pairs pairs_of(const Sample& subject, const Sample& baseline);

}  // namespace hitcost::client
