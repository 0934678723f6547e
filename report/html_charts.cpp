#include "report/html_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "figures/histogram.h"
#include "figures/log2_histogram.h"

namespace hitcost::client::html {

using nlohmann::json;

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string breakable(const std::string& s) {
  std::string o;
  for (char c : s) {
    o += esc(std::string(1, c));
    if (c == ',' || c == '+' || c == '/') o += "<wbr>";
  }
  return o;
}

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 9), v);
  return buf;
}
int magnitude(double v) { return int(std::floor(std::log10(std::abs(v)))); }

}  // namespace

std::string sig(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  if (std::abs(v) < 1e-9) return "0";  // zero, or the rounding of a difference (1.0 − 0.9 − 0.1)
  return fixed(v, digits - 1 - magnitude(v));
}

std::string range_text(const Range& r) {
  const double spread = r.max - r.min;
  if (!(spread > 0)) return sig(r.median, 3);
  if (r.min == std::round(r.min) && r.max == std::round(r.max) && r.median == std::round(r.median))
    return fixed(r.median, 0) + " <span class=\"rng\">[" + fixed(r.min, 0) + ".." + fixed(r.max, 0) + "]</span>";
  int d = int(std::ceil(-std::log10(spread)));                  // the spread's first digit
  if (r.median != 0) d = std::max(d, 1 - magnitude(r.median));  // the median to two digits
  const double largest = std::max(std::abs(r.min), std::abs(r.max));
  if (largest > 0) d = std::min(d, 4 - magnitude(largest));  // never past five digits
  return fixed(r.median, d) + " <span class=\"rng\">[" + fixed(r.min, d) + ".." + fixed(r.max, d) + "]</span>";
}

FlagIndex::FlagIndex(const std::vector<RunRecord>& runs) {
  for (const RunRecord& r : runs) flags_[&r] = r.cpu_flags();
}

const std::vector<CpuFlag>& FlagIndex::of(const RunRecord& r) const {
  static const std::vector<CpuFlag> none;
  const auto it = flags_.find(&r);
  return it == flags_.end() ? none : it->second;
}

std::optional<std::string> FlagIndex::why(const RunRecord& r, std::string_view pointer) const {
  for (const CpuFlag& f : of(r))
    if (f.figure == pointer) return f.why;
  return std::nullopt;
}

std::string flagged_html(const std::string& text, const std::string& why) {
  return "<span class=\"flagged\" title=\"" + esc(why) + "\">" + text + "&#8239;&#9888;</span>";
}

const std::optional<double>& none() {
  static const std::optional<double> nothing;
  return nothing;
}

std::vector<Group> group_runs(const std::vector<RunRecord>& runs, const Summary& summary) {
  std::vector<Group> groups;
  for (const RunRecord& r : runs) {
    const std::string store = r.group_store(), strategy = r.row_label();  // with " NAME=VALUE ..." in a sweep with axes
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.store == store && g.strategy == strategy; });
    if (it == groups.end()) {
      const std::string s = strategy.empty() ? "(server's strategy)" : strategy;
      groups.push_back({store, strategy, store.empty() ? s : s + " @ " + store, {}, std::nullopt});
      it = groups.end() - 1;
    }
    it->runs.push_back(&r);
  }
  // The summary's order (its rows are the asked order), so charts read like the tables.
  auto row_of = [&](const Group& g) {
    for (size_t i = 0; i < summary.rows.size(); ++i)
      if (summary.rows[i].store == g.store && summary.rows[i].strategy == g.strategy) return i;
    return summary.rows.size();
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) { return row_of(a) < row_of(b); });
  for (Group& g : groups)
    if (const size_t i = row_of(g); i < summary.rows.size()) g.server_hit = summary.rows[i].server_hit;
  return groups;
}

namespace {

const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// Room a text takes, px per character (system-ui falls back to DejaVu Sans here: wide). The
// page's script measures the real boxes; these only size the charts so that nothing overlaps.
constexpr double kBoldPx = 8.5, kSmallPx = 6.4;

// A group's name under its bars, a line each: the strategy (bold), its axis settings and its
// store (small); the store only where the chart holds several (else the caption names it).
std::vector<std::pair<std::string, bool>> name_lines(const Group& g, bool with_store) {
  std::vector<std::pair<std::string, bool>> lines;  // (text, bold)
  const std::string s = g.strategy.empty() ? "(server's strategy)" : g.strategy;
  const size_t axes = s.find(' ');  // strategies hold no space: the rest is the cell's settings
  lines.emplace_back(s.substr(0, axes), true);
  if (axes != std::string::npos) lines.emplace_back(s.substr(axes + 1), false);
  if (with_store && !g.store.empty()) lines.emplace_back("@ " + g.store, false);
  return lines;
}
std::string group_name(const Group& g, bool with_store, double x, double y) {
  std::string out;
  for (const auto& [text, bold] : name_lines(g, with_store)) {
    out += std::string("<text class=\"") + (bold ? "label" : "small") + "\" x=\"" + fixed(x, 1) + "\" y=\"" +
           fixed(y, 1) + "\" text-anchor=\"middle\">" + esc(text) + "</text>";
    y += bold ? 15 : 13;
  }
  return out;
}
double group_name_width(const Group& g, bool with_store) {
  double w = 0;
  for (const auto& [text, bold] : name_lines(g, with_store))
    w = std::max(w, (bold ? kBoldPx : kSmallPx) * double(text.size()));
  return w;
}
// Whether the groups are on more than one store; else the one store, for the caption.
bool several_stores(const std::vector<Group>& groups) {
  for (const Group& g : groups)
    if (g.store != groups.front().store) return true;
  return false;
}
std::string store_caption(const std::vector<Group>& groups) {
  if (groups.empty() || several_stores(groups) || groups.front().store.empty()) return "";
  return "<p class=\"note\">Store: " + esc(groups.front().store) + ".</p>";
}
// A latency for a bar's label: three significant digits, in µs, ms or s (fits a 40 px bar).
std::string latency_label(double us) {
  if (us >= 1e6) return sig(us / 1e6, 3) + "s";
  if (us >= 1e3) return sig(us / 1e3, 3) + "ms";
  return sig(us, 3);
}

}  // namespace

// Latency percentiles per strategy: grouped bars on a log10 µs axis, bar = median over the
// group's runs, whisker = min..max over them.
std::string latency_chart(const std::vector<Group>& groups, bool open_loop_runs) {
  static const std::pair<const char*, double LatencyUs::*> pcts[] = {{"p50", &LatencyUs::p50},
                                                                     {"p90", &LatencyUs::p90},
                                                                     {"p99", &LatencyUs::p99},
                                                                     {"p99.9", &LatencyUs::p999},
                                                                     {"max", &LatencyUs::max}};
  const int np = 5;
  std::vector<std::vector<std::optional<Range>>> cells(groups.size(), std::vector<std::optional<Range>>(np));
  double vmin = 1e300, vmax = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    for (int p = 0; p < np; ++p) {
      std::vector<double> v;
      for (const RunRecord* r : groups[g].runs)
        if (open_loop_runs == r->is_latency_run()) v.push_back(std::max(r->latency_us.*pcts[p].second, 0.001));
      if ((cells[g][size_t(p)] = Range::of(v))) {
        vmin = std::min(vmin, cells[g][size_t(p)]->min);
        vmax = std::max(vmax, cells[g][size_t(p)]->max);
      }
    }
  if (vmax <= 0) vmin = 1, vmax = 10;
  const double lo = std::pow(10.0, std::floor(std::log10(vmin))),
               hi = std::pow(10.0, std::ceil(std::log10(vmax)) + 1e-9);
  // 40 px per bar: room for its value label ("1.23ms"); a group at least as wide as its name.
  const bool stores = several_stores(groups);
  double group_w = 5 * 40 + 30;
  for (const Group& g : groups) group_w = std::max(group_w, group_name_width(g, stores) + 20);
  const double L = 70, T = 30, H = 300, bar = 40, W = std::max(L + group_w * double(groups.size()) + 20, 560.0);
  auto y = [&](double v) {
    return T + H - H * (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  };
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"latency\" width=\"" << W << "\" height=\"" << T + H + 76
    << "\" role=\"img\" aria-label=\"latency percentiles per strategy\">";
  for (double t = lo; t <= hi * 1.0001; t *= 10) {
    s << "<line x1=\"" << L << "\" x2=\"" << W - 10 << "\" y1=\"" << y(t) << "\" y2=\"" << y(t)
      << "\" class=\"grid\"/><text x=\"" << L - 6 << "\" y=\"" << y(t) + 4 << "\" text-anchor=\"end\">" << sig(t, 3)
      << "</text>";
  }
  s << "<text x=\"14\" y=\"" << T + H / 2 << "\" transform=\"rotate(-90 14 " << T + H / 2
    << ")\" text-anchor=\"middle\">latency, µs (log scale)</text>";
  for (size_t g = 0; g < groups.size(); ++g) {
    const double x0 = L + group_w * double(g) + (group_w - 5 * bar) / 2;
    for (int p = 0; p < np; ++p) {
      const std::optional<Range>& c = cells[g][size_t(p)];
      if (!c || c->median <= 0) continue;
      const double x = x0 + p * bar, top = y(c->median);
      s << "<rect class=\"lat-bar\" data-strategy=\"" << esc(groups[g].label) << "\" data-pct=\"" << pcts[p].first
        << "\" x=\"" << x << "\" y=\"" << top << "\" width=\"" << bar - 4 << "\" height=\"" << T + H - top
        << "\" fill=\"" << kPalette[p] << "\"><title>" << esc(groups[g].label) << " " << pcts[p].first << ": "
        << sig(c->median) << " µs [" << sig(c->min) << ".." << sig(c->max) << "]</title></rect>";
      if (c->max > c->min)
        s << "<line class=\"whisker\" x1=\"" << x + bar / 2 - 2 << "\" x2=\"" << x + bar / 2 - 2 << "\" y1=\""
          << y(c->max) << "\" y2=\"" << y(c->min) << "\"/>";
      s << "<text class=\"small\" x=\"" << x + bar / 2 - 2 << "\" y=\"" << std::min(top, y(c->max)) - 4
        << "\" text-anchor=\"middle\">" << latency_label(c->median) << "</text>";
    }
    s << group_name(groups[g], stores, L + group_w * (double(g) + 0.5), T + H + 18);
  }
  for (int p = 0; p < np; ++p)
    s << "<rect x=\"" << L + 90.0 * p << "\" y=\"" << T + H + 56 << "\" width=\"12\" height=\"12\" fill=\""
      << kPalette[p] << "\"/><text x=\"" << L + 90.0 * p + 16 << "\" y=\"" << T + H + 67 << "\">" << pcts[p].first
      << "</text>";
  s << "</svg>" << store_caption(groups);
  return s.str();
}

namespace {

// The server's parts of a request, in its order (server/cpu_sampler.h); a colour each.
const char* kParts[] = {"receive", "fetch",     "unwrap", "decode", "render",
                        "origin",  "store_set", "write",  "log",    "other"};
constexpr size_t kNParts = std::size(kParts);

struct PartFigures {
  std::optional<double> corrected, sampled, wall;  // means over the bars' runs; nullopt: no run has it
  std::optional<std::string> flag_sampled, flag_corrected;
};

// A group's phase bars: the runs they come from, and each part over them.
struct PhaseBars {
  std::vector<const RunRecord*> runs;
  bool median_of_summary = false;  // the runs are those at the summary's median CPU per hit
  double headline = 0;             // their mean CPU per hit: the corrected parts add up to it
  std::vector<PartFigures> parts = std::vector<PartFigures>(kNParts);
};

// The runs at the median: the one whose CPU per hit is the summary's median, or the two middle
// ones (the median of an even count is their mean). Their corrected parts then add up to the
// figure in the summary table exactly. Where no run matches (no summary figure), the median
// run(s) of the group's capacity runs with a CPU per hit that is not flagged.
std::vector<const RunRecord*> median_runs(const Group& g, const FlagIndex& flags, bool* of_summary) {
  std::vector<const RunRecord*> c;
  for (const RunRecord* r : g.runs)
    if (!r->is_latency_run() && r->server_cpu_us_per_hit && r->cpu && r->cpu->server_hit_parts_us &&
        !flags.why(*r, r->server_cpu_us_per_hit))
      c.push_back(r);
  std::sort(c.begin(), c.end(), [](const RunRecord* a, const RunRecord* b) {
    return *a->server_cpu_us_per_hit < *b->server_cpu_us_per_hit;
  });
  *of_summary = false;
  if (c.empty()) return c;
  if (g.server_hit) {
    const double m = g.server_hit->median, tol = 1e-9 * std::max(1.0, std::abs(m));
    for (const RunRecord* r : c)
      if (std::abs(*r->server_cpu_us_per_hit - m) <= tol) {
        *of_summary = true;
        return {r};
      }
    for (size_t i = 0; i < c.size(); ++i)
      for (size_t j = i + 1; j < c.size(); ++j)
        if (std::abs((*c[i]->server_cpu_us_per_hit + *c[j]->server_cpu_us_per_hit) / 2 - m) <= tol) {
          *of_summary = true;
          return {c[i], c[j]};
        }
  }
  const size_t n = c.size();
  if (n % 2) return {c[n / 2]};
  return {c[n / 2 - 1], c[n / 2]};
}

// The figure of part `name` in `parts` (µs by part name); nullptr when there is none.
const double* part_in(const std::map<std::string, double>& parts, const char* name) {
  const auto it = parts.find(name);
  return it == parts.end() ? nullptr : &it->second;
}

PhaseBars phase_bars(const Group& g, const FlagIndex& flags) {
  PhaseBars b;
  b.runs = median_runs(g, flags, &b.median_of_summary);
  if (b.runs.empty()) return b;
  const double n = double(b.runs.size());
  for (const RunRecord* r : b.runs) b.headline += *r->server_cpu_us_per_hit / n;
  for (size_t k = 0; k < kNParts; ++k) {
    PartFigures& p = b.parts[k];
    auto add = [&](std::optional<double>& sum, const double* v) {
      if (v) sum = sum.value_or(0) + *v / n;
    };
    for (const RunRecord* r : b.runs) {
      const SampledOutcomeRecord* hit = r->server_sampling ? &r->server_sampling->hit : nullptr;
      const double* corrected = part_in(*r->cpu->server_hit_parts_us, kParts[k]);
      const double* sampled = hit ? part_in(hit->parts_cpu_us, kParts[k]) : nullptr;
      add(p.corrected, corrected);
      add(p.sampled, sampled);
      if (part_has_wall(kParts[k])) add(p.wall, hit ? part_in(hit->parts_wall_us, kParts[k]) : nullptr);
      if (!p.flag_corrected && corrected) p.flag_corrected = flags.why(*r, *corrected);
      if (!p.flag_sampled && sampled) p.flag_sampled = flags.why(*r, *sampled);
    }
  }
  return b;
}

// A part's figure in the table, µs to two decimals (signed for waiting), marked when flagged.
std::string cell(const std::optional<double>& v, const std::optional<std::string>& flag = std::nullopt,
                 bool sign = false) {
  if (!v) return "<td>-</td>";
  // Two decimals up to 100 µs, fewer above: four significant digits at most.
  const int decimals = *v == 0 ? 2 : std::clamp(3 - magnitude(*v), 0, 2);
  std::string text =
      sign && *v >= 0 ? "+" : "";  // appended apart: GCC 12's -Wrestrict false positive on "+" + std::string&&
  text += fixed(*v, decimals);
  return std::string(sign && *v < 0 ? "<td class=\"bad\">" : "<td>") + (flag ? flagged_html(text, *flag) : text) +
         "</td>";
}

// The phase chart's frame: margins and sizes in px, a group's slot, and the scale (the
// tallest bar, µs per hit, gets 1/1.1 of the height).
struct PhaseFrame {
  double L = 70, T = 30, H = 300, bw = 34, slot = 0, W = 0, vmax = 0;
  double h(double us) const { return H * std::max(0.0, us) / (vmax * 1.1); }
};

PhaseFrame phase_frame(const std::vector<Group>& groups, const std::vector<PhaseBars>& bars, bool stores) {
  PhaseFrame f;
  for (const PhaseBars& b : bars) {
    double c = 0, w = 0;
    for (const PartFigures& p : b.parts) {
      c += std::max(0.0, p.corrected.value_or(0));
      w += std::max(p.wall.value_or(0), std::max(0.0, std::min(p.sampled.value_or(0), p.wall.value_or(0))));
    }
    f.vmax = std::max({f.vmax, c, w});
  }
  f.slot = 2 * 34 + 60;
  for (const Group& g : groups) f.slot = std::max(f.slot, group_name_width(g, stores) + 24);
  f.W = std::max(f.L + f.slot * double(groups.size()) + 20, 820.0);
  return f;
}

// The <svg> opening, the hatch pattern for waiting, the grid and the y axis's title.
void phase_axes(std::ostringstream& s, const PhaseFrame& f) {
  s << "<svg class=\"chart\" data-chart=\"phases\" width=\"" << f.W << "\" height=\"" << f.T + f.H + 90
    << "\" role=\"img\" aria-label=\"server CPU and wall time per hit by phase\"><defs><pattern id=\"waiting\" "
       "patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\"><rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
       "<path d=\"M0,6 l6,-6\" stroke=\"#777\"/></pattern></defs>";
  for (int t = 0; t <= 4; ++t) {
    const double val = f.vmax * 1.1 * t / 4, yy = f.T + f.H - f.h(val);
    s << "<line x1=\"" << f.L << "\" x2=\"" << f.W - 10 << "\" y1=\"" << yy << "\" y2=\"" << yy
      << "\" class=\"grid\"/><text x=\"" << f.L - 6 << "\" y=\"" << yy + 4 << "\" text-anchor=\"end\">" << sig(val, 3)
      << "</text>";
  }
  s << "<text x=\"14\" y=\"" << f.T + f.H / 2 << "\" transform=\"rotate(-90 14 " << f.T + f.H / 2
    << ")\" text-anchor=\"middle\">µs per hit</text>";
}

struct PhaseSeg {
  size_t part;
  const char* kind;  // cpu (corrected) | wall (the phase's CPU as sampled, inside its wall time) | wait
  double us;
};

// One bar at x0: the segments stacked from the axis up, its total above and `label` below.
void phase_stack(std::ostringstream& s, const PhaseFrame& f, const std::string& strategy, double x0, const char* label,
                 double total, const std::vector<PhaseSeg>& segs) {
  double base = f.T + f.H;
  for (const PhaseSeg& sg : segs) {
    const double hh = f.h(sg.us);
    base -= hh;
    const std::string kind = sg.kind;
    s << "<rect class=\"phase-seg\" data-kind=\"" << kind << "\" data-strategy=\"" << esc(strategy) << "\" data-part=\""
      << kParts[sg.part] << "\" data-us=\"" << sg.us << "\" x=\"" << x0 << "\" y=\"" << base << "\" width=\"" << f.bw
      << "\" height=\"" << hh << "\" fill=\"" << (kind == "wait" ? "url(#waiting)" : kPalette[sg.part]) << "\""
      << (kind == "wall" ? " fill-opacity=\"0.55\"" : "") << (kind == "wait" ? " stroke=\"#555\"" : "") << "><title>"
      << esc(strategy) << " " << kParts[sg.part] << " " << kind << ": " << sig(sg.us) << " µs</title></rect>";
  }
  s << "<text class=\"small\" x=\"" << x0 + f.bw / 2 << "\" y=\"" << base - 4 << "\" text-anchor=\"middle\">"
    << sig(total, 3) << "</text><text class=\"tick\" x=\"" << x0 + f.bw / 2 << "\" y=\"" << f.T + f.H + 12
    << "\" text-anchor=\"middle\">" << label << "</text>";
}

// A group's two bars (CPU, wall) in slot g and its name; marks the parts drawn, for the legend.
void phase_group_bars(std::ostringstream& s, const PhaseFrame& f, const Group& group, const PhaseBars& b, size_t g,
                      bool stores, std::vector<bool>& drawn) {
  const double mid = f.L + f.slot * (double(g) + 0.5), x = mid - f.bw - 2;
  std::vector<PhaseSeg> cpu_segs, wall_segs;
  double wall_total = 0;
  for (size_t k = 0; k < kNParts; ++k) {
    const PartFigures& p = b.parts[k];
    if (p.corrected && *p.corrected != 0) {
      cpu_segs.push_back({k, "cpu", *p.corrected});
      drawn[k] = true;
    }
    if (!p.wall || (*p.wall == 0 && p.sampled.value_or(0) == 0)) continue;
    // The phase's wall time: its CPU as sampled, then the waiting above it. CPU above the
    // wall time (flagged in the table) draws no waiting.
    const double on_cpu = std::clamp(p.sampled.value_or(0), 0.0, *p.wall);
    wall_segs.push_back({k, "wall", on_cpu});
    if (*p.wall > on_cpu) wall_segs.push_back({k, "wait", *p.wall - on_cpu});
    wall_total += *p.wall;
    drawn[k] = true;
  }
  s << "<g class=\"phase-bars\" data-strategy=\"" << esc(group.label) << "\" data-cpu-per-hit=\"" << b.headline
    << "\" data-runs=\"" << b.runs.size() << "\">";
  phase_stack(s, f, group.label, x, "CPU", b.headline, cpu_segs);
  phase_stack(s, f, group.label, x + f.bw + 4, "wall", wall_total, wall_segs);
  s << "</g>" << group_name(group, stores, mid, f.T + f.H + 28);
}

// The colours of the parts drawn, the </svg>, and what the two bars are.
void phase_legend(std::ostringstream& s, const PhaseFrame& f, const std::vector<bool>& drawn) {
  double lx = f.L;
  for (size_t k = 0; k < kNParts; ++k) {
    if (!drawn[k]) continue;
    s << "<rect x=\"" << lx << "\" y=\"" << f.T + f.H + 70 << "\" width=\"12\" height=\"12\" fill=\"" << kPalette[k]
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << f.T + f.H + 81 << "\">" << kParts[k] << "</text>";
    lx += 16 + 8.0 * double(std::string_view(kParts[k]).size()) + 18;
  }
  s << "</svg><p class=\"note\">Left bar (CPU): the server's thread CPU per hit by part, corrected like the "
       "headline: each part takes its share of the corrections (the detailed samples' extra clock reads, the "
       "whole samples' excess, the idle baseline, receive work moved) by what it costs, so the parts add up to "
       "the CPU per hit of the summary table; from the run at that median (or the two middle runs, averaged). "
       "receive = event loop and reading the request; other = routing, headers. Right bar (wall): each phase's "
       "wall time in the handler as sampled: its CPU as sampled (pale), then waiting (hatched).</p>";
}

// A group's rows of the table under the chart: a row per part with a figure, then the total.
void phase_table_rows(std::ostringstream& s, const Group& group, const PhaseBars& b) {
  std::string from;
  for (const RunRecord* r : b.runs)
    from += (from.empty() ? "run #" : " and #") + (r->repeat ? std::to_string(*r->repeat) : std::string("?"));
  from += b.median_of_summary ? ", the summary's median" : ", the median of these runs";
  std::vector<size_t> shown;  // parts with a figure that is not zero
  for (size_t k = 0; k < kNParts; ++k) {
    const PartFigures& p = b.parts[k];
    if (p.sampled.value_or(0) != 0 || p.corrected.value_or(0) != 0 || p.wall.value_or(0) != 0) shown.push_back(k);
  }
  s << "<tr><td rowspan=\"" << shown.size() + 1 << "\">" << breakable(group.strategy) << "<br><span class=\"rng\">"
    << esc(from) << "</span></td>";
  for (size_t i = 0; i < shown.size(); ++i) {
    const PartFigures& p = b.parts[shown[i]];
    std::optional<double> wait;  // set apart, not by ?: (GCC 12 then warns it may be read uninitialized)
    if (p.wall && p.sampled && (*p.wall != 0 || *p.sampled != 0)) wait = *p.wall - *p.sampled;
    s << (i ? "<tr>" : "") << "<td>" << kParts[shown[i]] << "</td>" << cell(p.sampled, p.flag_sampled)
      << cell(p.corrected, p.flag_corrected) << cell(p.wall) << cell(wait, std::nullopt, true) << "</tr>";
  }
  s << (shown.empty() ? "" : "<tr class=\"total\">") << "<td>all: CPU per hit</td><td></td>" << cell(b.headline)
    << "<td></td><td></td></tr>";
}

}  // namespace

// The server's CPU per hit by part and its wall time by phase, side by side. Two bars per
// strategy: CPU (receive, fetch, ..., write, log, other), corrected like the headline so that
// they add up to the summary's CPU per hit, and wall (fetch .. log: time inside the handler,
// waiting included), the phase's CPU as sampled then the waiting above it. The table under
// the chart gives each part's CPU as sampled and corrected, its wall time and wall − CPU,
// signed: nothing is clamped, and a figure that cannot be right is marked.
std::string phase_section(const std::vector<Group>& groups, const FlagIndex& flags) {
  std::vector<PhaseBars> bars;
  for (const Group& g : groups) bars.push_back(phase_bars(g, flags));
  if (std::all_of(bars.begin(), bars.end(), [](const PhaseBars& b) { return b.runs.empty(); }))
    return "<p class=\"note\">No sampled server CPU per hit by part in these runs (a server without sampling, "
           "--no-metrics, or runs saved before the parts were corrected).</p>";
  const bool stores = several_stores(groups);
  const PhaseFrame f = phase_frame(groups, bars, stores);
  std::vector<bool> drawn(kNParts, false);
  std::ostringstream s;
  phase_axes(s, f);
  for (size_t g = 0; g < groups.size(); ++g)
    if (!bars[g].runs.empty()) phase_group_bars(s, f, groups[g], bars[g], g, stores, drawn);
  phase_legend(s, f, drawn);
  s << store_caption(groups)
    << "<table class=\"phases\"><tr><th>strategy (the runs the bars are from)</th><th>part</th><th>CPU µs, sampled "
       "(raw)</th><th>CPU µs, corrected (net)</th><th>wall µs</th><th>waiting µs (wall − CPU sampled)</th></tr>";
  for (size_t g = 0; g < groups.size(); ++g)
    if (!bars[g].runs.empty()) phase_table_rows(s, groups[g], bars[g]);
  s << "</table>";
  return s.str();
}

// bcc-style log2 histogram of one run, hits and misses stacked, count on a log axis so a
// 1 % miss peak is visible next to a 99 % hit peak. Peaks found as in the terminal report.
std::string log2_chart(const RunRecord& run, const std::string& label) {
  Histogram all, hit, miss;
  if (!histogram_from_json(run.histogram, &all)) return "";
  histogram_from_json(run.histogram_hit, &hit);
  histogram_from_json(run.histogram_miss, &miss);
  const Log2Histogram la = Log2Histogram::from_ns(all), lh = Log2Histogram::from_ns(hit),
                      lm = Log2Histogram::from_ns(miss);
  size_t first = 0;
  while (first < la.counts.size() && la.counts[first] == 0) ++first;
  if (first >= la.counts.size()) return "<p class=\"note\">" + esc(label) + ": no samples</p>";
  const size_t last = la.counts.size() - 1, n = last - first + 1;
  const auto modes = find_bimodal(la);
  const bool misses_seen = miss.count() > 0 || hit.count() == 0;
  uint64_t peak = 1;
  for (uint64_t c : la.counts) peak = std::max(peak, c);
  const double L = 50, T = 36, H = 150, bw = 26,
               W = std::max({L + bw * double(n) + 20, 430.0, L + kBoldPx * double(label.size()) + 10});
  auto hgt = [&](double c) { return c <= 0 ? 0.0 : H * std::log10(1 + c) / std::log10(1 + double(peak)); };
  auto at = [](const Log2Histogram& h, size_t i) { return i < h.counts.size() ? double(h.counts[i]) : 0.0; };
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"log2\" data-strategy=\"" << esc(label) << "\" width=\"" << W << "\" height=\""
    << T + H + 58 << "\"><text class=\"label\" x=\"" << L << "\" y=\"14\">" << esc(label) << "</text>";
  for (size_t i = first; i <= last; ++i) {
    const double x = L + bw * double(i - first), total = at(la, i), hs = hgt(total);
    const double hv = at(lh, i), mv = at(lm, i);
    // split the log-height bar in proportion to hit / miss / untagged counts
    const double fh = total > 0 ? hv / total : 0, fm = total > 0 ? mv / total : 0;
    double y = T + H;
    for (auto [frac, cls, color] : {std::tuple{fh, "hit", "#4e79a7"},
                                    {fm, "miss", "#f28e2b"},
                                    {std::max(0.0, 1 - fh - fm), "other", "#bab0ac"}}) {
      if (frac <= 0) continue;
      y -= hs * frac;
      s << "<rect class=\"log2-bar\" data-kind=\"" << cls << "\" x=\"" << x + 1 << "\" y=\"" << y << "\" width=\""
        << bw - 2 << "\" height=\"" << hs * frac << "\" fill=\"" << color << "\"><title>" << Log2Histogram::slot_low(i)
        << "–" << Log2Histogram::slot_high(i) << " µs: " << uint64_t(total) << "</title></rect>";
    }
    if ((i - first) % 2 == 0) {
      const uint64_t us = Log2Histogram::slot_low(i);
      const std::string tick = us >= 1'000'000 ? fixed(double(us) / 1e6, 0) + "s"
                               : us >= 1000    ? fixed(double(us) / 1e3, 0) + "ms"
                                               : std::to_string(us);
      s << "<text class=\"tick\" x=\"" << x + bw / 2 << "\" y=\"" << T + H + 14 << "\" text-anchor=\"middle\">" << tick
        << "</text>";
    }
    if (modes && (i == modes->hit_slot || i == modes->miss_slot)) {
      const bool fast = i == modes->hit_slot;
      const char* text = misses_seen ? (fast ? "hit peak" : "miss peak") : (fast ? "fast peak" : "slow peak");
      s << "<text class=\"peak\" x=\"" << x + bw / 2 << "\" y=\"" << T + H - hs - 6 << "\" text-anchor=\"middle\">"
        << text << "</text>";
    }
  }
  s << "<text class=\"small\" x=\"" << L << "\" y=\"" << T + H + 32
    << "\">latency µs, log2 buckets; height: count (log)</text><text class=\"small\" x=\"" << L << "\" y=\""
    << T + H + 48 << "\" style=\"fill:#4e79a7\">■ hit</text><text class=\"small\" x=\"" << L + 46 << "\" y=\""
    << T + H + 48 << "\" style=\"fill:#f28e2b\">■ miss</text><text class=\"small\" x=\"" << L + 96 << "\" y=\""
    << T + H + 48 << "\" style=\"fill:#888\">■ untagged</text></svg>";
  return s.str();
}

// Per-second throughput (line) and p99 (dashed) of one run, each scaled to its own maximum; the
// hit ratio per second (green, 0..1) when answers carried X-Cache, and for a replayed trace the
// ratio the trace recorded in the same seconds (grey dashed), so drift from the trace shows where.
std::string series_chart(const RunRecord& run, const std::string& label) {
  if (!run.series.is_array() || run.series.empty()) return "";
  const json& pts = run.series;
  double rmax = 1e-9, pmax = 1e-9;
  for (const auto& p : pts) {
    rmax = std::max(rmax, p.value("throughput_rps", 0.0));
    pmax = std::max(pmax, p.value("p99_us", 0.0));
  }
  const json* recorded_found = nullptr;
  const json* recorded_missed = nullptr;
  if (run.replay.is_object() && run.replay.contains("recorded_found_per_s")) {
    recorded_found = &run.replay["recorded_found_per_s"];
    recorded_missed = &run.replay["recorded_not_found_per_s"];
  }
  const double L = 50, T = 30, H = 120, W = 420, dx = pts.size() > 1 ? (W - L - 20) / double(pts.size() - 1) : 0;
  auto y_of_ratio = [&](double r) { return fixed(T + H - H * r, 1); };
  std::string rps_line, p99_line, hit_line, recorded_line;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double x = L + dx * double(i);
    rps_line += fixed(x, 1) + "," + fixed(T + H - H * pts[i].value("throughput_rps", 0.0) / rmax, 1) + " ";
    p99_line += fixed(x, 1) + "," + fixed(T + H - H * pts[i].value("p99_us", 0.0) / pmax, 1) + " ";
    const double hits = pts[i].value("hits", 0.0), misses = pts[i].value("misses", 0.0);
    if (hits + misses > 0) hit_line += fixed(x, 1) + "," + y_of_ratio(hits / (hits + misses)) + " ";
    if (recorded_found && i < recorded_found->size() && i < recorded_missed->size()) {
      const double f = (*recorded_found)[i].get<double>(), m = (*recorded_missed)[i].get<double>();
      if (f + m > 0) recorded_line += fixed(x, 1) + "," + y_of_ratio(f / (f + m)) + " ";
    }
  }
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"series\" data-strategy=\"" << esc(label) << "\" width=\"" << W
    << "\" height=\"" << T + H + 40 << "\">"
    << "<text class=\"label\" x=\"" << L << "\" y=\"12\">per second</text><text class=\"small\" x=\"" << L
    << "\" y=\"25\">req/s (blue, max " << sig(rmax) << "), p99 µs (red dashed, max " << sig(pmax) << ")</text>"
    << "<line class=\"grid\" x1=\"" << L << "\" x2=\"" << W - 20 << "\" y1=\"" << T + H << "\" y2=\"" << T + H << "\"/>"
    << "<polyline class=\"series-rps\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"2\" points=\"" << rps_line
    << "\"/><polyline class=\"series-p99\" fill=\"none\" stroke=\"#e15759\" stroke-dasharray=\"4 3\" stroke-width=\"2\" "
       "points=\""
    << p99_line << "\"/>";
  if (!recorded_line.empty())
    s << "<polyline class=\"series-recorded-hit-ratio\" fill=\"none\" stroke=\"#888\" stroke-dasharray=\"2 2\" "
         "stroke-width=\"2\" points=\""
      << recorded_line << "\"/>";
  if (!hit_line.empty())
    s << "<polyline class=\"series-hit-ratio\" fill=\"none\" stroke=\"#59a14f\" stroke-width=\"1.5\" points=\""
      << hit_line << "\"/>";
  s << "<text class=\"tick\" x=\"" << L << "\" y=\"" << T + H + 14 << "\">0 s</text><text class=\"tick\" x=\"" << W - 20
    << "\" y=\"" << T + H + 14 << "\" text-anchor=\"end\">" << pts.size() - 1 << " s</text>";
  if (!hit_line.empty())
    s << "<text class=\"small\" x=\"" << L << "\" y=\"" << T + H + 32 << "\">hit ratio (green, 0..1)"
      << (recorded_line.empty() ? "" : "; the trace's own (grey dashed)") << "</text>";
  for (size_t i = 0; i < pts.size(); ++i)  // markers: a 1 s run is a single point, not a line
    s << "<circle cx=\"" << L + dx * double(i) << "\" cy=\"" << T + H - H * pts[i].value("throughput_rps", 0.0) / rmax
      << "\" r=\"3\" fill=\"#4e79a7\"/><circle cx=\"" << L + dx * double(i) << "\" cy=\""
      << T + H - H * pts[i].value("p99_us", 0.0) / pmax << "\" r=\"3\" fill=\"#e15759\"/>";
  s << "</svg>";
  return s.str();
}

}  // namespace hitcost::client::html
