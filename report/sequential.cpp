#include "report/sequential.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <tuple>

#include "report/distributions.h"

namespace hitcost::client {

double alpha_spent(double alpha, double t, double gamma) noexcept {
  t = std::clamp(t, 0.0, 1.0);
  if (std::abs(gamma) < 1e-9) return alpha * t;  // the limit γ → 0: linear spending
  return alpha * (1 - std::exp(-gamma * t)) / (1 - std::exp(-gamma));
}

namespace {

// Simpson's rule on [−b, b] with `intervals` (even) pieces: the points and their weights.
struct Grid {
  std::vector<double> at, weight;
};
Grid simpson(double b, int intervals) {
  Grid g;
  const double h = 2 * b / intervals;
  for (int i = 0; i <= intervals; ++i) {
    g.at.push_back(-b + i * h);
    const double w = (i == 0 || i == intervals) ? 1 : (i % 2 ? 4 : 2);
    g.weight.push_back(w * h / 3);
  }
  return g;
}
double density(double x, double sd) { return std::exp(-0.5 * (x / sd) * (x / sd)) / (sd * std::sqrt(2 * M_PI)); }

// P(the walk leaves (−b, b) at this look | it reached the last look's region with density g):
// the increment over the gap is normal with standard deviation `sd`.
double exit_probability(const Grid& grid, const std::vector<double>& g, double b, double sd) {
  double p = 0;
  for (size_t j = 0; j < grid.at.size(); ++j) {
    const double u = grid.at[j];
    p += grid.weight[j] * g[j] * (normal_cdf((-b - u) / sd) + normal_cdf((u - b) / sd));
  }
  return p;
}

constexpr int kIntervals = 400;  // Simpson pieces per look: the levels change < 1e-6 beyond this

std::vector<double> compute_levels(double alpha, const SequentialDesign& d) {
  std::vector<double> levels;
  const int first = std::max(1, d.min_rounds), last = std::max(first, d.max_rounds);
  Grid grid;
  std::vector<double> g;
  double spent = 0, previous_n = 0;
  for (int n = first; n <= last; ++n) {
    const double target = std::max(0.0, alpha_spent(alpha, double(n) / last, d.gamma) - spent);
    double b;
    if (n == first) {
      b = normal_quantile(1 - target / 2) * std::sqrt(double(n));
      spent += target;
    } else {
      const double sd = std::sqrt(double(n) - previous_n);
      // The exit probability falls as b grows: bisect for the b that spends `target`.
      double lo = 0, hi = 40 * std::sqrt(double(n));
      for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
        const double mid = 0.5 * (lo + hi);
        (exit_probability(grid, g, mid, sd) > target ? lo : hi) = mid;
      }
      b = 0.5 * (lo + hi);
      spent += exit_probability(grid, g, b, sd);
    }
    levels.push_back(2 * (1 - normal_cdf(b / std::sqrt(double(n)))));
    // The density of the sum over (−b, b), carried to this look.
    Grid next = simpson(b, kIntervals);
    std::vector<double> h(next.at.size(), 0.0);
    if (n == first) {
      for (size_t i = 0; i < next.at.size(); ++i) h[i] = density(next.at[i], std::sqrt(double(n)));
    } else {
      const double sd = std::sqrt(double(n) - previous_n);
      for (size_t i = 0; i < next.at.size(); ++i)
        for (size_t j = 0; j < grid.at.size(); ++j)
          h[i] += grid.weight[j] * g[j] * density(next.at[i] - grid.at[j], sd);
    }
    grid = std::move(next);
    g = std::move(h);
    previous_n = n;
  }
  return levels;
}

// The t statistics of simulated comparisons with no difference: |t| at each look n = first ..
// last (row-major, one row per path), from standard normal pairs (t is pivotal: the
// variance does not matter). A fixed seed: the same design always gets the same levels.
std::vector<float> null_t_paths(int first, int last, int paths) {
  std::mt19937_64 rng(0x5eed'1e7e15ULL);
  std::normal_distribution<double> normal;
  const int looks = last - first + 1;
  std::vector<float> t(size_t(paths) * looks);
  for (int p = 0; p < paths; ++p) {
    double sum = 0, sum_sq = 0;
    for (int n = 1; n <= last; ++n) {
      const double x = normal(rng);
      sum += x;
      sum_sq += x * x;
      if (n < first) continue;
      const double mean = sum / n, var = std::max(0.0, (sum_sq - n * mean * mean) / (n - 1));
      t[size_t(p) * looks + (n - first)] = float(var > 0 ? std::abs(mean) / std::sqrt(var / n) : 1e30);
    }
  }
  return t;
}

// The normal theory's levels hold for z statistics; with the variance estimated, consecutive
// t statistics are less alike than consecutive z's, so their union leaves the intervals more
// often (simulated: 5.5 % instead of 5 % with looks at 5..20). One factor λ on every level,
// chosen on simulated null comparisons so that the t intervals hold together at 1 − alpha,
// keeps the spending function's shape and makes the error what it says.
void calibrate_for_t(double alpha, int first, std::vector<double>& levels) {
  if (first < 2) return;  // one pair has no variance: no t interval at all
  const int last = first + int(levels.size()) - 1, looks = int(levels.size());
  constexpr int kPaths = 100'000;
  const std::vector<float> t = null_t_paths(first, last, kPaths);
  auto error_at = [&](double lambda) {
    std::vector<float> critical(looks);
    for (int k = 0; k < looks; ++k)
      critical[k] = float(student_t_quantile(1 - std::min(1.0, lambda * levels[k]) / 2, first + k - 1));
    int out = 0;
    for (int p = 0; p < kPaths; ++p)
      for (int k = 0; k < looks; ++k)
        if (t[size_t(p) * looks + k] > critical[k]) {
          ++out;
          break;
        }
    return double(out) / kPaths;
  };
  double lo = 0.01, hi = 2;  // the error grows with λ
  for (int i = 0; i < 40 && hi - lo > 1e-4; ++i) {
    const double mid = 0.5 * (lo + hi);
    (error_at(mid) > alpha ? hi : lo) = mid;
  }
  for (double& level : levels) level = std::min(1.0, lo * level);
}

}  // namespace

const std::vector<double>& nominal_levels(double alpha, const SequentialDesign& d) {
  static std::mutex mu;
  static std::map<std::tuple<double, int, int, double>, std::vector<double>> cache;
  const auto key = std::make_tuple(alpha, d.min_rounds, d.max_rounds, d.gamma);
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<double> levels = compute_levels(alpha, d);
    if (levels.size() > 1) calibrate_for_t(alpha, std::max(1, d.min_rounds), levels);
    it = cache.emplace(key, std::move(levels)).first;
  }
  return it->second;
}

}  // namespace hitcost::client
