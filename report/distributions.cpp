#include "report/distributions.h"

#include <cmath>
#include <limits>

namespace hitcost::client {

double normal_cdf(double z) noexcept { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_quantile(double p) noexcept {
  if (!(p > 0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1)) return std::numeric_limits<double>::infinity();
  // Bracket, then Newton steps on the CDF (its derivative is the density): a few steps reach
  // double precision from a bisection start, and the tails stay accurate because erfc does.
  double lo = -40, hi = 40, z = 0;
  for (int i = 0; i < 60; ++i) {
    z = 0.5 * (lo + hi);
    (normal_cdf(z) < p ? lo : hi) = z;
    if (hi - lo < 1e-3) break;
  }
  for (int i = 0; i < 50; ++i) {
    const double f = normal_cdf(z) - p;
    const double density = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    if (density <= 0) break;
    const double step = f / density;
    z -= step;
    if (std::abs(step) < 1e-14 * (1 + std::abs(z))) break;
  }
  return z;
}

namespace {
// The continued fraction of I_x(a, b) (valid where x < (a + 1) / (a + b + 2)), by the
// modified Lentz method: each term d_m of the fraction 1/(1+ d1/(1+ d2/(1+ ...))).
double beta_fraction(double x, double a, double b) noexcept {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    // even step: d_{2m} = m(b−m)x / ((a+2m−1)(a+2m))
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    // odd step: d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1))
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1) < kEps) break;
  }
  return h;
}
}  // namespace

double incomplete_beta(double x, double a, double b) noexcept {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // x^a (1−x)^b / (a B(a, b)), in logs.
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(x, a, b) / a;
  return 1 - front * beta_fraction(1 - x, b, a) / b;  // the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
}

double student_t_cdf(double t, double df) noexcept {
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  // P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2)
  const double tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) noexcept {
  if (!(p > 0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1)) return std::numeric_limits<double>::infinity();
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bisection on [0, hi]: monotone, and the tails of 1 degree of freedom (Cauchy) reach 1e8 at
  // p = 1 − 3e-9, so the bracket grows until it holds the answer.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace hitcost::client
