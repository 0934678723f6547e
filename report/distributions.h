#pragma once
// The distribution functions the verdicts need: the standard normal and Student's t, their
// CDFs and quantiles. Written here from their textbook definitions (the t CDF through the
// regularized incomplete beta function, evaluated by its continued fraction with the modified
// Lentz method); accurate to about 1e-10 over the range the verdicts use (levels down to
// 1e-6, 1 to 10^4 degrees of freedom), which tests/client/distributions_test.cpp checks
// against tabulated values.
namespace hitcost::client {

double normal_cdf(double z) noexcept;
// z with normal_cdf(z) = p, for 0 < p < 1.
double normal_quantile(double p) noexcept;

// P(T ≤ t) for Student's t with `df` > 0 degrees of freedom.
double student_t_cdf(double t, double df) noexcept;
// t with student_t_cdf(t, df) = p, for 0 < p < 1.
double student_t_quantile(double p, double df) noexcept;

// The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0.
double incomplete_beta(double x, double a, double b) noexcept;

}  // namespace hitcost::client
