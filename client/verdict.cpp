#include "client/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hitcost::client {

std::optional<Range> Range::of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return Range{v.front(), median, v.back()};
}

const char* to_string(Verdict::Kind k) noexcept {
  switch (k) {
    case Verdict::Kind::costs: return "costs";
    case Verdict::Kind::equivalent: return "equivalent";
    case Verdict::Kind::inconclusive: break;
  }
  return "inconclusive";
}

namespace {
// P(U = u) for u = 0..n·m: the exact null distribution of the Mann–Whitney U statistic of
// samples of n and m without ties. counts(i, j, u) arrangements of i x's among j y's: the
// largest element is an x (above all j y's: +j) or a y (+0), so
// f(i, j, u) = f(i−1, j, u−j) + f(i, j−1, u). Doubles: C(60, 30) > 2^64.
std::vector<double> mann_whitney_pmf(size_t n, size_t m) {
  const size_t umax = n * m;
  std::vector<std::vector<double>> f(m + 1, std::vector<double>(umax + 1, 0.0));
  for (size_t j = 0; j <= m; ++j) f[j][0] = 1.0;  // no x's: U = 0
  for (size_t i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> g(m + 1, std::vector<double>(umax + 1, 0.0));
    g[0][0] = 1.0;  // no y's: U = 0
    for (size_t j = 1; j <= m; ++j)
      for (size_t x = 0; x <= i * j; ++x) g[j][x] = (x >= j ? f[j][x - j] : 0.0) + g[j - 1][x];
    f = std::move(g);
  }
  double total = 0;
  for (double c : f[m]) total += c;
  for (double& c : f[m]) c /= total;
  return f[m];
}
}  // namespace

double mann_whitney_cdf(size_t n, size_t m, size_t u) {
  if (n == 0 || m == 0 || u >= n * m) return 1.0;
  const std::vector<double> p = mann_whitney_pmf(n, m);
  double below = 0;
  for (size_t x = 0; x <= u; ++x) below += p[x];
  return below;
}

size_t min_runs_for(double level) {
  // The most extreme arrangement has probability 2 / C(2k, k) two-sided.
  for (size_t k = 2; k < 200; ++k) {
    double c = 1;  // C(2k, k)
    for (size_t i = 1; i <= k; ++i) c = c * double(k + i) / double(i);
    if (2.0 / c <= level) return k;
  }
  return 200;
}

namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
std::string ratio_text(double r) { return fmt(r < 10 ? "%.2f" : "%.1f", r); }

// Hodges–Lehmann estimate and the exact interval for subject vs baseline at two-sided `level`.
void estimate(const std::vector<double>& s, const std::vector<double>& b, double level, Verdict& v) {
  const size_t n = s.size(), m = b.size();
  std::vector<double> d;
  d.reserve(n * m);
  for (double x : s)
    for (double y : b) d.push_back(std::log(x) - std::log(y));
  std::sort(d.begin(), d.end());
  const size_t nm = d.size();
  const double mid = nm % 2 ? d[nm / 2] : 0.5 * (d[nm / 2 - 1] + d[nm / 2]);
  v.ratio = std::exp(mid);
  // Largest k with P(U ≤ k−1) ≤ level/2: the interval [d_(k), d_(nm+1−k)] (1-based) covers the
  // true shift with probability ≥ 1 − level. No such k ≥ 1: the sample is too small.
  const std::vector<double> p = mann_whitney_pmf(n, m);
  size_t k = 0;
  double tail = 0;  // P(U ≤ k−1) for the k being tried
  while (k + 1 <= nm / 2 && tail + p[k] <= level / 2) tail += p[k++];
  if (k == 0) return;
  v.low = std::exp(d[k - 1]);
  v.high = std::exp(d[nm - k]);
  v.confidence = 1.0 - 2.0 * tail;
}

void decide(Verdict& v, const VerdictOptions& o) {
  const std::string base = v.subject + " vs " + v.baseline + " in " + v.metric + ": ";
  if (!v.low || !v.high) {
    v.kind = Verdict::Kind::inconclusive;
    v.text =
        base + fmt("inconclusive: need >= %zu runs of each (have %zu and %zu)", v.need_runs, v.n_subject, v.n_baseline);
    return;
  }
  const double up = 1 + o.min_effect, down = 1 / (1 + o.min_effect);
  const std::string interval = "[" + ratio_text(*v.low) + ".." + ratio_text(*v.high) + "]";
  const int pct = int(std::lround(o.min_effect * 100));
  if (*v.low > up || *v.high < down) {
    v.kind = Verdict::Kind::costs;
    v.text = v.subject + " costs " + ratio_text(*v.ratio) + "\u00d7 " + v.baseline + " " + interval + " in " + v.metric;
  } else if (*v.low >= down && *v.high <= up) {
    v.kind = Verdict::Kind::equivalent;
    const bool excludes_one = *v.low > 1 || *v.high < 1;
    v.text = base + (excludes_one ? fmt("differs by less than %d %% (", pct) : fmt("the same within %d %% (", pct)) +
             ratio_text(*v.ratio) + "\u00d7 " + interval + ")";
  } else {
    v.kind = Verdict::Kind::inconclusive;
    const bool excludes_one = *v.low > 1 || *v.high < 1;
    v.text = base + "inconclusive: " + ratio_text(*v.ratio) + "\u00d7 " + interval +
             (excludes_one ? fmt(" differs, but by possibly less than %d %%", pct)
                           : fmt(" includes no difference; more runs narrow it", pct));
  }
}

}  // namespace

std::vector<Verdict> compare_to_baseline(const std::vector<Sample>& samples, const std::string& baseline,
                                         const std::string& metric, const VerdictOptions& o, size_t comparisons) {
  std::vector<Verdict> out;
  const auto base_it =
      std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.name == baseline; });
  if (base_it == samples.end() || samples.size() < 2) return out;
  const size_t m = comparisons ? comparisons : samples.size() - 1;
  const double level = o.alpha / double(m);  // Bonferroni: simultaneous intervals
  auto positive = [](const std::vector<double>& v) {
    std::vector<double> p;
    for (double x : v)
      if (x > 0 && std::isfinite(x)) p.push_back(x);
    return p;
  };
  const std::vector<double> b = positive(base_it->values);
  for (const Sample& s : samples) {
    if (s.name == baseline) continue;
    Verdict v;
    v.subject = s.name;
    v.baseline = baseline;
    v.metric = metric;
    const std::vector<double> x = positive(s.values);
    v.n_subject = x.size();
    v.n_baseline = b.size();
    v.need_runs = min_runs_for(level);
    if (!x.empty() && !b.empty()) estimate(x, b, level, v);
    decide(v, o);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace hitcost::client
