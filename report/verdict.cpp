#include "report/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "report/distributions.h"

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
    case Verdict::Kind::same: return "same";
    case Verdict::Kind::undecided: break;
  }
  return "undecided";
}

namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
// A ratio to the digits its interval resolves: 3 significant digits, 2 decimals near 1.
std::string ratio_text(double r) { return fmt(r < 10 ? "%.2f" : r < 100 ? "%.1f" : "%.0f", r); }
std::string rounds_text(size_t n) { return std::to_string(n) + (n == 1 ? " round" : " rounds"); }

// The first look: a sequential design's, or (fixed) the last pair; never below 2 (a variance).
size_t first_look(const VerdictOptions& o, size_t pairs) {
  return std::max<size_t>(2, o.sequential ? size_t(std::max(2, o.design.min_rounds)) : pairs);
}
// Looks beyond the design's maximum would spend error it no longer has: the maximum is the last.
size_t last_look(const VerdictOptions& o, size_t pairs) {
  return o.sequential ? std::min(pairs, size_t(std::max(o.design.min_rounds, o.design.max_rounds))) : pairs;
}
// The two-sided nominal error of the look at n pairs for one comparison at `alpha`.
double look_level(const VerdictOptions& o, double alpha, size_t n) {
  if (!o.sequential) return alpha;
  const std::vector<double>& levels = nominal_levels(alpha, o.design);
  const size_t first = size_t(std::max(1, o.design.min_rounds));
  if (levels.empty() || n < first) return 0;
  return levels[std::min(n - first, levels.size() - 1)];
}

// Student's t critical value for a two-sided `level` with n − 1 degrees of freedom. The same few
// (level, n) come back at every look of every comparison (and thousands of times in the
// simulation tests): kept once computed.
double t_critical(double level, size_t n) {
  if (level <= 0) return std::numeric_limits<double>::infinity();
  thread_local std::map<std::pair<double, size_t>, double> known;
  const auto key = std::make_pair(level, n);
  auto it = known.find(key);
  if (it == known.end()) it = known.emplace(key, student_t_quantile(1 - level / 2, double(n - 1))).first;
  return it->second;
}

struct Look {
  size_t n = 0;
  double mean = 0, sd = 0, t = 0, level = 0;
  double widen_low = 0, widen_high = 0;  // logs: what the pairs' bias bounds add to each end
  double low() const { return mean - t * sd / std::sqrt(double(n)) - widen_low; }
  double high() const { return mean + t * sd / std::sqrt(double(n)) + widen_high; }
};
Look look_at(const std::vector<double>& d, size_t n, double level) {
  Look k;
  k.n = n;
  k.level = level;
  for (size_t i = 0; i < n; ++i) k.mean += d[i];
  k.mean /= double(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (d[i] - k.mean) * (d[i] - k.mean);
  k.sd = std::sqrt(ss / double(n - 1));
  k.t = t_critical(level, n);
  return k;
}

// How many more pairs the spread `sd` needs before an interval can decide around `mean`: to
// exclude 0 when the estimate is beyond the band, to fit inside the band when it is within.
std::optional<size_t> more_needed(const Look& k, double band, double t_last) {
  const double room = std::abs(k.mean) >= band ? std::abs(k.mean) : band - std::abs(k.mean);
  if (room <= 0 || !std::isfinite(t_last)) return std::nullopt;
  const double needed = std::ceil(std::pow(t_last * k.sd / room, 2));
  if (!std::isfinite(needed) || needed > 1e6) return std::nullopt;
  return needed > double(k.n) ? size_t(needed) - k.n : 1;
}

void describe(Verdict& v, const VerdictOptions& o, const std::optional<Look>& last, double t_last) {
  const int pct = int(std::lround(o.min_effect * 100));
  const std::string head = v.subject + " vs " + v.baseline + " in " + v.metric + ": ";
  if (!last) {
    v.text = head + "undecided: " + fmt("%zu paired round%s", v.pairs, v.pairs == 1 ? "" : "s") +
             (o.sequential ? fmt(", the first look is at %d", std::max(2, o.design.min_rounds)) : ", need >= 2");
    return;
  }
  const std::string interval =
      ratio_text(*v.ratio) + "\u00d7 [" + ratio_text(*v.low) + ".." + ratio_text(*v.high) + "]";
  // How much of the interval is the bias other work beside the runs may have caused.
  const std::string widened =
      v.widened_low >= 0.005 || v.widened_high >= 0.005
          ? fmt("; widened -%.0f %%/+%.0f %% for other work beside the runs", 100 * v.widened_low, 100 * v.widened_high)
          : "";
  switch (v.kind) {
    case Verdict::Kind::costs:
      v.text = v.subject + " costs " + ratio_text(*v.ratio) + "\u00d7 " + v.baseline + " [" + ratio_text(*v.low) +
               ".." + ratio_text(*v.high) + "] in " + v.metric + " (" + rounds_text(v.decided_at) + widened + ")";
      return;
    case Verdict::Kind::same:
      v.text = head + fmt("the same within %d %% (", pct) + interval + ", " + rounds_text(v.decided_at) + widened + ")";
      return;
    case Verdict::Kind::undecided: break;
  }
  v.text = head + "undecided after " + rounds_text(v.pairs) + ": " + interval + widened;
  v.more_rounds = more_needed(*last, std::log1p(o.min_effect), t_last);
  if (v.more_rounds)
    v.text += fmt("; about %zu more round%s at this spread", *v.more_rounds, *v.more_rounds == 1 ? "" : "s");
  else
    v.text += "; the estimate sits on the band's edge: more rounds narrow it, a decision is not in sight";
}

double mean_of_first(const std::vector<double>& x, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n && i < x.size(); ++i) sum += x[i];
  return n ? sum / double(n) : 0;
}

// `v` comes with its names (subject, baseline, metric): the text is built from them.
Verdict decide(const Pairs& p, const VerdictOptions& o, size_t comparisons, Verdict v) {
  const std::vector<double>& d = p.d;
  v.pairs = d.size();
  const double alpha = o.alpha / double(std::max<size_t>(1, comparisons));
  const double band = std::log1p(o.min_effect);
  const size_t first = first_look(o, d.size()), last = last_look(o, d.size());
  std::optional<Look> seen;
  for (size_t n = first; n <= last; ++n) {
    Look k = look_at(d, n, look_level(o, alpha, n));
    // Other work may have pushed either side up: the truth may lie that much further out.
    k.widen_low = mean_of_first(p.subject_high, n);
    k.widen_high = mean_of_first(p.baseline_high, n);
    seen = k;
    const double lo = k.low(), hi = k.high();
    if (lo > -band && hi < band)
      v.kind = Verdict::Kind::same;
    else if ((lo > 0 || hi < 0) && std::abs(k.mean) >= band)
      v.kind = Verdict::Kind::costs;
    else
      continue;
    v.decided_at = n;
    break;
  }
  if (seen) {
    v.ratio = std::exp(seen->mean);
    v.low = std::exp(seen->low());
    v.high = std::exp(seen->high());
    v.confidence = 1 - seen->level;
    v.widened_low = std::expm1(seen->widen_low);
    v.widened_high = std::expm1(seen->widen_high);
  }
  // The critical value the last planned look would use: what "more rounds" must beat.
  const size_t final_n = o.sequential ? size_t(std::max(o.design.min_rounds, o.design.max_rounds)) : d.size();
  const double final_level = look_level(o, alpha, std::max<size_t>(2, final_n));
  const double t_last = t_critical(final_level, std::max<size_t>(2, final_n));
  describe(v, o, seen, t_last);
  return v;
}

}  // namespace

Verdict decide_pairs(const std::vector<double>& d, const VerdictOptions& o, size_t comparisons) {
  return decide(Pairs{d, {}, {}}, o, comparisons, Verdict{});
}

Pairs pairs_of(const Sample& s, const Sample& b) {
  struct Figure {
    double log_value, log_bias;
  };
  auto by_round = [](const Sample& x) {
    std::map<int, Figure> m;  // round → log figure and log(1 + bias); a round's first usable figure
    for (size_t i = 0; i < x.values.size(); ++i) {
      const double v = x.values[i];
      if (!(v > 0) || !std::isfinite(v)) continue;
      const int round = x.rounds.empty() ? int(i) : x.rounds[i];
      const double bias = i < x.bias.size() && x.bias[i] > 0 ? x.bias[i] : 0;
      m.emplace(round, Figure{std::log(v), std::log1p(bias)});
    }
    return m;
  };
  const std::map<int, Figure> sm = by_round(s), bm = by_round(b);
  Pairs p;
  for (const auto& [round, fs] : sm)
    if (auto it = bm.find(round); it != bm.end()) {
      p.d.push_back(fs.log_value - it->second.log_value);
      p.subject_high.push_back(fs.log_bias);
      p.baseline_high.push_back(it->second.log_bias);
    }
  return p;
}

std::vector<double> paired_log_ratios(const Sample& s, const Sample& b) { return pairs_of(s, b).d; }

std::vector<Verdict> compare_to_baseline(const std::vector<Sample>& samples, const std::string& baseline,
                                         const std::string& metric, const VerdictOptions& o, size_t comparisons) {
  std::vector<Verdict> out;
  const auto base_it =
      std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.name == baseline; });
  if (base_it == samples.end() || samples.size() < 2) return out;
  const size_t m = comparisons ? comparisons : samples.size() - 1;
  for (const Sample& s : samples) {
    if (s.name == baseline) continue;
    Verdict v;
    v.subject = s.name;
    v.baseline = baseline;
    v.metric = metric;
    out.push_back(decide(pairs_of(s, *base_it), o, m, std::move(v)));
  }
  return out;
}

}  // namespace hitcost::client
