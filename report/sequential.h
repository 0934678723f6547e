#pragma once
// Looking at the data after every round without inflating the error rate: group-sequential
// repeated confidence intervals (Jennison & Turnbull), with the error spent over the looks by
// a Lan–DeMets spending function.
//
// A comparison is looked at after each round from `min_rounds` on, with n paired rounds in
// hand (n = the information, each round adding one pair). At look n the interval is
// estimate ± c_n · se, and the critical values c_n are chosen so that, under a normal model,
//   P(the true value lies inside the interval at EVERY look n = min..max) ≥ 1 − alpha,
// with the error spent by the planned maximum: alpha(t) at information fraction t = n / max.
// Because the intervals hold together over all looks, a decision taken at the first look
// whose interval decides is as safe as one taken at a fixed n: stopping early (optional
// stopping) does not inflate the error, and looks that are skipped only make it safer.
//
// The c_n come from the exact joint distribution of the sums at the looks (the recursive
// numerical integration of Armitage, McPherson and Rowe): the sum S_n of n standard normal
// pairs is a random walk, so its density over the region where no earlier look decided is
// carried from look to look by a convolution with the normal kernel of the increment.
// Each c_n is a two-sided nominal level p_n = 2(1 − Φ(c_n)); with the variance estimated from
// the data, the interval uses Student's t at that level with n − 1 degrees of freedom (the
// usual adaptation; tests/client/verdict_test.cpp simulates its coverage at the sizes used).
//
// Spending: Hwang–Shih–DeCani, alpha(t) = alpha (1 − e^(−γt)) / (1 − e^(−γ)). γ > 0 spends early
// (near γ = 1 it behaves like Pocock's boundary: a large difference is decided at the first
// look), γ < 0 late (γ = −4 is close to O'Brien–Fleming's: the most power at the last look).
#include <vector>

namespace hitcost::client {

struct SequentialDesign {
  int min_rounds = 3;   // the first look (a sweep's --min-rounds)
  int max_rounds = 20;  // the whole alpha is spent at this many pairs (--max-rounds)
  double gamma = 1;     // the spending function's shape (see above)
};

// alpha(t) for t in [0, 1].
double alpha_spent(double alpha, double t, double gamma) noexcept;

// The two-sided nominal levels p_n for looks at n = min_rounds .. max_rounds, so that the
// repeated intervals of one comparison hold together at 1 − alpha. Index i is look n =
// min_rounds + i. A design with min_rounds == max_rounds is one look at the full alpha.
// Computed once per (alpha, design) and kept: a sweep asks for it after every round.
const std::vector<double>& nominal_levels(double alpha, const SequentialDesign& d);

}  // namespace hitcost::client
