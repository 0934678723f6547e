#include "client/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "client/histogram.h"
#include "client/log2_histogram.h"
#include "client/run_record.h"
#include "client/summary.h"
#include "client/verdict.h"

namespace hitcost::client {

namespace {

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

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// Short human number: 3 significant digits, no exponent for the ranges we draw.
std::string num3(double v) {
  if (v >= 100) return fmt("%.0f", v);
  if (v >= 10) return fmt("%.1f", v);
  return fmt("%.2f", v);
}

std::string short_us(uint64_t us) {
  if (us >= 1'000'000) return fmt("%.0fs", double(us) / 1e6);
  if (us >= 1000) return fmt("%.0fms", double(us) / 1e3);
  return std::to_string(us);
}

std::optional<double> num_at(const json& j, const char* pointer) {
  const auto p = json::json_pointer(pointer);
  if (!j.is_object() || !j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

double median_of(std::vector<double> v) {
  auto r = Range::of(std::move(v));
  return r ? r->median : 0.0;
}

// A value inside one of a run's JSON sub-documents (cpu, server_sampling...); null if absent.
json at(const json& doc, const char* pointer) {
  const auto p = json::json_pointer(pointer);
  return doc.is_object() && doc.contains(p) ? doc.at(p) : json(nullptr);
}
std::string group_label(const std::string& store, const std::string& strategy) {
  const std::string s = strategy.empty() ? "(server's strategy)" : strategy;
  return store.empty() ? s : s + " @ " + store;
}

struct Group {
  std::string store, strategy, label;
  std::vector<const RunRecord*> runs;
};

std::vector<Group> group_runs(const std::vector<RunRecord>& runs) {
  std::vector<Group> groups;
  for (const RunRecord& r : runs) {
    const std::string store = r.group_store(), strategy = r.row_label();  // with " log=MODE" in a log sweep
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.store == store && g.strategy == strategy; });
    if (it == groups.end()) {
      groups.push_back({store, strategy, group_label(store, strategy), {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(&r);
  }
  return groups;
}

const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// ---- charts --------------------------------------------------------------------------

// Latency percentiles per strategy: grouped bars on a log10 µs axis, bar = median over the
// group's runs, whisker = min..max over them.
std::string latency_chart(const std::vector<Group>& groups, bool open_loop_runs) {
  static const std::pair<const char*, double LatencyUs::*> pcts[] = {{"p50", &LatencyUs::p50},
                                                                     {"p90", &LatencyUs::p90},
                                                                     {"p99", &LatencyUs::p99},
                                                                     {"p99.9", &LatencyUs::p999},
                                                                     {"max", &LatencyUs::max}};
  const int np = 5;
  struct Cell {
    double med = 0, lo = 0, hi = 0;
  };
  std::vector<std::vector<Cell>> cells(groups.size(), std::vector<Cell>(np));
  double vmin = 1e300, vmax = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    for (int p = 0; p < np; ++p) {
      std::vector<double> v;
      for (const RunRecord* r : groups[g].runs)
        if (open_loop_runs == r->is_latency_run()) v.push_back(std::max(r->latency_us.*pcts[p].second, 0.001));
      if (auto range = Range::of(v)) {
        cells[g][size_t(p)] = {range->median, range->min, range->max};
        vmin = std::min(vmin, range->min);
        vmax = std::max(vmax, range->max);
      }
    }
  if (vmax <= 0) vmin = 1, vmax = 10;
  const double lo = std::pow(10.0, std::floor(std::log10(vmin))),
               hi = std::pow(10.0, std::ceil(std::log10(vmax)) + 1e-9);
  // 36 px per bar: room for a 4-digit value label; a group at least as wide as its name.
  size_t longest = 0;
  for (const Group& g : groups) longest = std::max(longest, g.label.size());
  const double L = 70, T = 30, H = 300, bar = 36, group_w = std::max(5 * bar + 30, 7.5 * double(longest) + 20),
               W = std::max(L + group_w * double(groups.size()) + 20, 560.0);
  auto y = [&](double v) {
    return T + H - H * (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  };
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"latency\" width=\"" << W << "\" height=\"" << T + H + 70
    << "\" role=\"img\" aria-label=\"latency percentiles per strategy\">";
  for (double t = lo; t <= hi * 1.0001; t *= 10) {
    s << "<line x1=\"" << L << "\" x2=\"" << W - 10 << "\" y1=\"" << y(t) << "\" y2=\"" << y(t)
      << "\" class=\"grid\"/><text x=\"" << L - 6 << "\" y=\"" << y(t) + 4 << "\" text-anchor=\"end\">" << num3(t)
      << "</text>";
  }
  s << "<text x=\"14\" y=\"" << T + H / 2 << "\" transform=\"rotate(-90 14 " << T + H / 2
    << ")\" text-anchor=\"middle\">latency, µs (log scale)</text>";
  for (size_t g = 0; g < groups.size(); ++g) {
    const double x0 = L + group_w * double(g) + 15;
    for (int p = 0; p < np; ++p) {
      const Cell& c = cells[g][size_t(p)];
      if (c.med <= 0) continue;
      const double x = x0 + p * bar, top = y(c.med);
      s << "<rect class=\"lat-bar\" data-strategy=\"" << esc(groups[g].label) << "\" data-pct=\"" << pcts[p].first
        << "\" x=\"" << x << "\" y=\"" << top << "\" width=\"" << bar - 4 << "\" height=\"" << T + H - top
        << "\" fill=\"" << kPalette[p] << "\"><title>" << esc(groups[g].label) << " " << pcts[p].first << ": "
        << num3(c.med) << " µs [" << num3(c.lo) << ".." << num3(c.hi) << "]</title></rect>";
      if (c.hi > c.lo)
        s << "<line class=\"whisker\" x1=\"" << x + bar / 2 - 2 << "\" x2=\"" << x + bar / 2 - 2 << "\" y1=\""
          << y(c.hi) << "\" y2=\"" << y(c.lo) << "\"/>";
      s << "<text class=\"small\" x=\"" << x + bar / 2 - 2 << "\" y=\"" << std::min(top, y(c.hi)) - 4
        << "\" text-anchor=\"middle\">" << num3(c.med) << "</text>";
    }
    s << "<text class=\"label\" x=\"" << x0 + 2.5 * bar << "\" y=\"" << T + H + 18 << "\" text-anchor=\"middle\">"
      << esc(groups[g].label) << "</text>";
  }
  for (int p = 0; p < np; ++p)
    s << "<rect x=\"" << L + 90.0 * p << "\" y=\"" << T + H + 38 << "\" width=\"12\" height=\"12\" fill=\""
      << kPalette[p] << "\"/><text x=\"" << L + 90.0 * p + 16 << "\" y=\"" << T + H + 49 << "\">" << pcts[p].first
      << "</text>";
  s << "</svg>";
  return s.str();
}

// The server's CPU per hit by part and its wall time by phase, side by side (medians over the
// capacity runs of each strategy, from the server's sampled requests). Two bars per strategy:
// CPU (receive, fetch, ..., write, log, other; they add up to the sampled CPU per hit) and wall
// (fetch .. log: time inside the handler, waiting included; log is the access log line). A table under the chart gives
// each phase's CPU, wall and wait = wall − CPU, signed: nothing is clamped.
const char* kCpuParts[] = {"receive", "fetch", "unwrap", "decode", "render", "write", "log", "other"};
const char* kWallParts[] = {"fetch", "unwrap", "decode", "render", "write", "log"};

double part_median(const Group& g, const char* kind, const char* part) {
  std::vector<double> v;
  for (const RunRecord* r : g.runs) {
    if (r->is_latency_run()) continue;
    const std::string ptr = std::string("/hit/") + kind + "/" + part;
    if (auto x = num_at(r->server_sampling, ptr.c_str())) v.push_back(*x);
  }
  return median_of(v);
}

std::string phase_chart(const std::vector<Group>& groups) {
  const size_t nc = std::size(kCpuParts), nw = std::size(kWallParts);
  std::vector<std::vector<double>> cpu(groups.size(), std::vector<double>(nc)),
      wall(groups.size(), std::vector<double>(nw));
  double vmax = 0;
  bool any = false;
  for (size_t g = 0; g < groups.size(); ++g) {
    double c = 0, w = 0;
    for (size_t k = 0; k < nc; ++k)
      c += std::max(0.0, cpu[g][k] = part_median(groups[g], "parts_cpu_us", kCpuParts[k]));
    for (size_t k = 0; k < nw; ++k)
      w += std::max(0.0, wall[g][k] = part_median(groups[g], "parts_wall_us", kWallParts[k]));
    vmax = std::max({vmax, c, w});
    any = any || c > 0;
  }
  if (!any)
    return "<p class=\"note\">No sampled server CPU in these runs (server without sampling, or --no-metrics).</p>";
  size_t longest = 0;
  for (const Group& g : groups) longest = std::max(longest, g.label.size());
  const double L = 70, T = 30, H = 300, bw = 34, gap = std::max(80.0, 7.5 * double(longest) - 50),
               W = std::max(L + (2 * bw + gap) * double(groups.size()) + 20, 820.0);
  auto h = [&](double x) { return H * std::max(0.0, x) / (vmax * 1.1); };
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"phases\" width=\"" << W << "\" height=\"" << T + H + 96
    << "\" role=\"img\" aria-label=\"server CPU and wall time per hit by phase\"><defs><pattern id=\"waiting\" "
       "patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\"><rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
       "<path d=\"M0,6 l6,-6\" stroke=\"#777\"/></pattern></defs>";
  for (int t = 0; t <= 4; ++t) {
    const double val = vmax * 1.1 * t / 4, yy = T + H - h(val);
    s << "<line x1=\"" << L << "\" x2=\"" << W - 10 << "\" y1=\"" << yy << "\" y2=\"" << yy
      << "\" class=\"grid\"/><text x=\"" << L - 6 << "\" y=\"" << yy + 4 << "\" text-anchor=\"end\">" << num3(val)
      << "</text>";
  }
  s << "<text x=\"14\" y=\"" << T + H / 2 << "\" transform=\"rotate(-90 14 " << T + H / 2
    << ")\" text-anchor=\"middle\">µs per hit</text>";
  auto color = [](const char* part) {
    for (size_t k = 0; k < std::size(kCpuParts); ++k)
      if (std::string(part) == kCpuParts[k]) return kPalette[k];
    return kPalette[9];
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    const double x = L + 20 + (2 * bw + gap) * double(g);
    struct Seg {
      const char* part;
      const char* kind;  // cpu | wall (a phase's CPU inside its wall time) | wait (wall − CPU)
      double us;
    };
    auto stack = [&](double x0, const char* label, const std::vector<Seg>& segs) {
      double base = T + H, total = 0;
      for (const Seg& sg : segs) {
        const double hh = h(sg.us);
        total += sg.us;
        base -= hh;
        const std::string kind = sg.kind;
        s << "<rect class=\"phase-seg\" data-kind=\"" << kind << "\" data-strategy=\"" << esc(groups[g].label)
          << "\" data-part=\"" << sg.part << "\" x=\"" << x0 << "\" y=\"" << base << "\" width=\"" << bw
          << "\" height=\"" << hh << "\" fill=\"" << (kind == "wait" ? "url(#waiting)" : color(sg.part)) << "\""
          << (kind == "wall" ? " fill-opacity=\"0.55\"" : "") << (kind == "wait" ? " stroke=\"#555\"" : "")
          << "><title>" << esc(groups[g].label) << " " << sg.part << " " << kind << ": " << num3(sg.us)
          << " µs</title></rect>";
      }
      s << "<text class=\"small\" x=\"" << x0 + bw / 2 << "\" y=\"" << base - 4 << "\" text-anchor=\"middle\">"
        << num3(total) << "</text><text class=\"tick\" x=\"" << x0 + bw / 2 << "\" y=\"" << T + H + 12
        << "\" text-anchor=\"middle\">" << label << "</text>";
    };
    std::vector<Seg> cpu_segs, wall_segs;
    for (size_t k = 0; k < nc; ++k) cpu_segs.push_back({kCpuParts[k], "cpu", cpu[g][k]});
    for (size_t k = 0; k < nw; ++k) {
      // Each phase's wall time: its CPU, then the waiting above it. A phase whose CPU exceeds
      // its wall time (clock noise) draws no waiting; the table below shows the negative.
      const size_t c = size_t(std::find_if(std::begin(kCpuParts), std::end(kCpuParts),
                                           [&](const char* p) { return std::string(p) == kWallParts[k]; }) -
                              std::begin(kCpuParts));
      const double on_cpu = std::min(std::max(0.0, cpu[g][c]), wall[g][k]);
      wall_segs.push_back({kWallParts[k], "wall", on_cpu});
      if (wall[g][k] > on_cpu) wall_segs.push_back({kWallParts[k], "wait", wall[g][k] - on_cpu});
    }
    stack(x, "cpu", cpu_segs);
    stack(x + bw + 4, "wall", wall_segs);
    s << "<text class=\"label\" x=\"" << x + bw << "\" y=\"" << T + H + 28 << "\" text-anchor=\"middle\">"
      << esc(groups[g].label) << "</text>";
  }
  for (size_t k = 0; k < nc; ++k)
    s << "<rect x=\"" << L + 88.0 * double(k) << "\" y=\"" << T + H + 44 << "\" width=\"12\" height=\"12\" fill=\""
      << kPalette[k] << "\"/><text x=\"" << L + 88.0 * double(k) + 16 << "\" y=\"" << T + H + 55 << "\">"
      << kCpuParts[k] << "</text>";
  s << "<text class=\"small\" x=\"" << L << "\" y=\"" << T + H + 78
    << "\">left bar: the server's thread CPU per hit, sampled (receive = event loop and reading the request; other = "
       "routing, headers). Right bar: wall time of each phase in the handler, its CPU (pale) then waiting (hatched).</text>";
  s << "</svg><table class=\"phases\"><tr><th>strategy</th><th>phase</th><th>CPU µs</th><th>wall µs</th>"
       "<th>waiting µs (wall − CPU)</th></tr>";
  for (size_t g = 0; g < groups.size(); ++g)
    for (const char* part : kCpuParts) {
      const double c = part_median(groups[g], "parts_cpu_us", part);
      const bool has_wall = std::find_if(std::begin(kWallParts), std::end(kWallParts),
                                         [&](const char* w) { return std::string(w) == part; }) != std::end(kWallParts);
      const double w = has_wall ? part_median(groups[g], "parts_wall_us", part) : 0;
      s << "<tr><td>" << esc(groups[g].label) << "</td><td>" << part << "</td><td>" << fmt("%.2f", c) << "</td><td>"
        << (has_wall ? fmt("%.2f", w) : "-") << "</td><td" << (has_wall && w < c ? " class=\"bad\"" : "") << ">"
        << (has_wall ? fmt("%+.2f", w - c) : "-") << "</td></tr>";
    }
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
  const double L = 50, T = 36, H = 150, bw = 26, W = L + bw * double(n) + 20;
  auto hgt = [&](double c) { return c <= 0 ? 0.0 : H * std::log10(1 + c) / std::log10(1 + double(peak)); };
  auto at = [](const Log2Histogram& h, size_t i) { return i < h.counts.size() ? double(h.counts[i]) : 0.0; };
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"log2\" data-strategy=\"" << esc(label) << "\" width=\"" << std::max(W, 430.0)
    << "\" height=\"" << T + H + 50 << "\"><text class=\"label\" x=\"" << L << "\" y=\"14\">" << esc(label)
    << "</text>";
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
    if ((i - first) % 2 == 0)
      s << "<text class=\"tick\" x=\"" << x + bw / 2 << "\" y=\"" << T + H + 14 << "\" text-anchor=\"middle\">"
        << short_us(Log2Histogram::slot_low(i)) << "</text>";
    if (modes && (i == modes->hit_slot || i == modes->miss_slot)) {
      const bool fast = i == modes->hit_slot;
      const char* text = misses_seen ? (fast ? "hit peak" : "miss peak") : (fast ? "fast peak" : "slow peak");
      s << "<text class=\"peak\" x=\"" << x + bw / 2 << "\" y=\"" << T + H - hs - 6 << "\" text-anchor=\"middle\">"
        << text << "</text>";
    }
  }
  s << "<text class=\"small\" x=\"" << L << "\" y=\"" << T + H + 32
    << "\">latency µs, log2 buckets; height: count (log); </text><text class=\"small\" x=\"" << L + 250 << "\" y=\""
    << T + H + 32 << "\" style=\"fill:#4e79a7\">■ hit</text><text class=\"small\" x=\"" << L + 290 << "\" y=\""
    << T + H + 32 << "\" style=\"fill:#f28e2b\">■ miss</text></svg>";
  return s.str();
}

// Per-second throughput (line) and p99 (dashed) of one run, each scaled to its own maximum.
std::string series_chart(const RunRecord& run, const std::string& label) {
  if (!run.series.is_array() || run.series.empty()) return "";
  const json& pts = run.series;
  double rmax = 1e-9, pmax = 1e-9;
  for (const auto& p : pts) {
    rmax = std::max(rmax, p.value("throughput_rps", 0.0));
    pmax = std::max(pmax, p.value("p99_us", 0.0));
  }
  const double L = 50, T = 30, H = 120, W = 420, dx = pts.size() > 1 ? (W - L - 20) / double(pts.size() - 1) : 0;
  std::string rps_line, p99_line;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double x = L + dx * double(i);
    rps_line += fmt("%.1f,", x) + fmt("%.1f ", T + H - H * pts[i].value("throughput_rps", 0.0) / rmax);
    p99_line += fmt("%.1f,", x) + fmt("%.1f ", T + H - H * pts[i].value("p99_us", 0.0) / pmax);
  }
  std::ostringstream s;
  s << "<svg class=\"chart\" data-chart=\"series\" data-strategy=\"" << esc(label) << "\" width=\"" << W
    << "\" height=\"" << T + H + 40 << "\">"
    << "<text class=\"label\" x=\"" << L << "\" y=\"12\">per second</text><text class=\"small\" x=\"" << L
    << "\" y=\"25\">req/s (blue, max " << num3(rmax) << "), p99 µs (red dashed, max " << num3(pmax) << ")</text>"
    << "<line class=\"grid\" x1=\"" << L << "\" x2=\"" << W - 20 << "\" y1=\"" << T + H << "\" y2=\"" << T + H << "\"/>"
    << "<polyline class=\"series-rps\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"2\" points=\"" << rps_line
    << "\"/><polyline class=\"series-p99\" fill=\"none\" stroke=\"#e15759\" stroke-dasharray=\"4 3\" stroke-width=\"2\" "
       "points=\""
    << p99_line << "\"/><text class=\"tick\" x=\"" << L << "\" y=\"" << T + H + 14
    << "\">0 s</text><text class=\"tick\" x=\"" << W - 20 << "\" y=\"" << T + H + 14 << "\" text-anchor=\"end\">"
    << pts.size() - 1 << " s</text>";
  for (size_t i = 0; i < pts.size(); ++i)  // markers: a 1 s run is a single point, not a line
    s << "<circle cx=\"" << L + dx * double(i) << "\" cy=\"" << T + H - H * pts[i].value("throughput_rps", 0.0) / rmax
      << "\" r=\"3\" fill=\"#4e79a7\"/><circle cx=\"" << L + dx * double(i) << "\" cy=\""
      << T + H - H * pts[i].value("p99_us", 0.0) / pmax << "\" r=\"3\" fill=\"#e15759\"/>";
  s << "</svg>";
  return s.str();
}

std::string range_cell(const std::optional<Range>& r, const char* f) {
  if (!r) return "<td>-</td>";
  return "<td>" + fmt(f, r->median) + " <span class=\"rng\">[" + fmt(f, r->min) + ".." + fmt(f, r->max) +
         "]</span></td>";
}

// The distinct values of one field over the runs, as text ("-" when no run has one).
std::string uniq(const std::vector<RunRecord>& runs, const std::function<json(const RunRecord&)>& field) {
  std::set<std::string> seen;
  std::string out;
  for (const RunRecord& r : runs) {
    const json v = field(r);
    if (v.is_null()) continue;
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (v.is_array() && v.empty()) text = "none";
    if (seen.insert(text).second) out += (out.empty() ? "" : ", ") + text;
  }
  return out.empty() ? "-" : out;
}
std::string rows_mix_text(const RunRecord& r) {
  std::string text;
  for (const RowsMixRecord& e : r.rows_mix.value_or(std::vector<RowsMixRecord>{}))
    text += (text.empty() ? "" : ",") + json(e.rows).dump() + ":" + json(e.weight).dump();
  return text;
}

std::string header_section(const std::vector<RunRecord>& runs, const std::vector<json>& merged_info) {
  std::ostringstream s;
  size_t contaminated = 0, unknown = 0, retries = 0, unsent = 0, interrupted = 0;
  std::string unknown_why;
  for (const RunRecord& r : runs) {
    if (!r.contaminated) {
      ++unknown;
      if (const json why = at(r.cpu, "/contamination/why"); why.is_string()) unknown_why = why.get<std::string>();
    } else if (*r.contaminated) {
      ++contaminated;
    }
    retries += size_t(r.contamination_retries);
    unsent += r.unsent + r.unfinished;
    interrupted += r.interrupted;
  }
  s << "<table class=\"kv\">";
  auto row = [&](const std::string& k, const std::string& v) {
    s << "<tr><th>" << k << "</th><td>" << v << "</td></tr>";
  };
  auto u = [&](auto field) { return esc(uniq(runs, field)); };
  auto cpu = [&](const char* pointer) { return u([pointer](const RunRecord& r) { return at(r.cpu, pointer); }); };
  std::string mode = u([](const RunRecord& r) { return json(r.mode); });
  if (mode.find("open") != std::string::npos)
    mode += " at " + u([](const RunRecord& r) { return json(r.rate_rps); }) +
            " req/s (latency from the intended send time)";
  else
    mode += " (latency from the actual send: stalls are under-represented)";
  row("mode", mode);
  row("connections / threads", u([](const RunRecord& r) { return json(r.connections); }) + " / " +
                                   u([](const RunRecord& r) { return json(r.threads); }));
  row("runs", std::to_string(runs.size()) + ", window " + u([](const RunRecord& r) { return json(r.duration_s); }) +
                  " s after " + u([](const RunRecord& r) { return json(r.warmup_s); }) + " s warmup");
  if (interrupted)
    row("INTERRUPTED", std::to_string(interrupted) + " run(s) stopped by a signal before their planned " +
                           u([](const RunRecord& r) { return json(r.planned_duration_s); }) +
                           " s: their figures cover the window that ran");
  row("keys", u([](const RunRecord& r) { return json(r.keys); }) + " " +
                  u([](const RunRecord& r) { return json(r.key_dist); }) + ", target hit ratio " +
                  u([](const RunRecord& r) { return r.target_hit_ratio ? json(*r.target_hit_ratio) : json(); }) +
                  ", rows " + u([](const RunRecord& r) { return r.rows ? json(*r.rows) : json(); }) +
                  (runs.empty() || !runs[0].rows_mix ? "" : ", rows mix " + u([](const RunRecord& r) {
                                                              return r.rows_mix ? json(rows_mix_text(r)) : json();
                                                            })));
  row("CPU placement", "client pinned " + u([](const RunRecord& r) { return json(r.cpus); }) + " (threads seen on " +
                           u([](const RunRecord& r) { return r.client_thread_cpus; }) + "); server " +
                           u([](const RunRecord& r) { return r.server_cpus; }) + "; cache " +
                           u([](const RunRecord& r) { return r.cache_cpus; }));
  row("CPU accounting",
      "server CPU per hit sampled by the server (1 in " +
          u([](const RunRecord& r) { return at(r.server_sampling, "/period"); }) + " requests, sampling cost " +
          u([](const RunRecord& r) { return at(r.server_sampling, "/overhead_fraction"); }) +
          " of the CPU measured); net of the idle baseline (cores: server " + cpu("/idle_cores/server") + ", cache " +
          cpu("/idle_cores/cache") + "); attribution: " + cpu("/attribution") + " — " + cpu("/attribution_note"));
  row("receive work",
      "softirq µs/req on the server's CPUs (its peers receiving): " + cpu("/softirq_us_per_req/server_cpus") +
          "; on the peers' CPUs (the server receiving): " + cpu("/softirq_us_per_req/peer_cpus"));
  std::string cont = std::to_string(contaminated) + " of " + std::to_string(runs.size()) + " runs contaminated";
  if (unknown)
    cont += ", " + std::to_string(unknown) + " not judged (" +
            esc(unknown_why.empty() ? "no server stats" : unknown_why) + ")";
  cont += "; " + std::to_string(retries) + " re-runs because of it (the cleanest attempt kept)";
  row("contamination", contaminated ? "<b class=\"bad\">" + cont + "</b>" : cont);
  if (unsent)
    row("overload", "<b class=\"bad\">" + std::to_string(unsent) +
                        " requests due but never sent or answered "
                        "(counted in latency from their intended time)</b>");
  if (!merged_info.empty()) {
    double worst = 1;
    std::set<std::string> from;
    for (const json& m : merged_info) {
      worst = std::min(worst, m.value("overlap_fraction", 0.0));
      from.insert(m.value("server_figures_from", std::string("?")));
    }
    std::string files;
    for (const auto& f : from) files += (files.empty() ? "" : ", ") + f;
    row("merged", std::to_string(merged_info.front().value("inputs", 0)) +
                      " client JSONs, assumed concurrent (throughput summed); windows overlap " +
                      fmt("%.0f%%", 100 * worst) + (merged_info.size() > 1 ? " (worst run)" : "") +
                      "; server/cache CPU per request from " + esc(files) + " (not summed)");
  }
  s << "</table>";
  return s.str();
}

// The summary table (capacity), the latency table (open loop) and the verdicts.
std::string summary_section(const Summary& summary) {
  std::ostringstream h;
  h << "<h2>Summary</h2><p class=\"note\">Capacity and CPU from closed-loop runs; CPU net of idle, in the "
       "attribution named above; median [min..max] over the runs kept (runs with errors, off the target hit ratio, or "
       "contaminated are left out and counted).</p><table><tr><th>strategy</th><th>store</th><th>runs kept</th>";
  for (const RangeColumn& c : range_columns())
    if (c.html) h << "<th>" << c.html << "</th>";
  h << "<th>errors</th></tr>";
  bool any_latency = false;
  for (const SweepRow& row : summary.rows) {
    any_latency = any_latency || row.latency_rate.has_value();
    if (row.runs == 0) continue;
    h << "<tr><td>" << esc(row.strategy) << "</td><td>" << esc(row.store) << "</td><td>" << row.used << "/" << row.runs
      << "</td>";
    for (const RangeColumn& c : range_columns())
      if (c.html) h << range_cell(row.*c.member, c.format);
    h << "<td>" << row.errors << "</td></tr>";
  }
  h << "</table>";
  if (any_latency) {
    h << "<h3>Latency: open loop, every strategy at the same rate</h3><table><tr><th>strategy</th><th>store</th>"
         "<th>req/s</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th><th>send lateness p99 µs</th>"
         "<th>errors</th></tr>";
    auto cell = [](const std::optional<double>& v) { return v ? fmt("%.1f", *v) : std::string("-"); };
    for (const SweepRow& row : summary.rows) {
      if (!row.latency_rate) continue;
      h << "<tr><td>" << esc(row.strategy) << "</td><td>" << esc(row.store) << "</td><td>" << cell(row.latency_rate)
        << "</td><td>" << cell(row.p50_us) << "</td><td>" << cell(row.p99_us) << "</td><td>" << cell(row.p999_us)
        << "</td><td>" << cell(row.max_us) << "</td><td>" << cell(row.lateness_p99_us) << "</td><td>"
        << row.latency_errors << "</td></tr>";
    }
    h << "</table>";
  }
  h << "<h3>Verdicts</h3><ul class=\"verdicts\">";
  if (summary.verdicts.empty()) h << "<li>none (fewer than two strategies with server CPU figures)</li>";
  for (const auto& [store, v] : summary.verdicts)
    h << "<li class=\"" << esc(to_string(v.kind)) << "\">" << esc((store.empty() ? "" : "[" + store + "] ") + v.text)
      << "</li>";
  h << "</ul>";
  return h.str();
}

// Every run's CSV columns, one row each: the record's headline fields, as `--csv` writes them.
std::string runs_table(const std::vector<Group>& groups) {
  std::ostringstream h;
  h << "<h2>All runs</h2><table class=\"runs-table\"><tr><th>run</th>";
  bool header = false;
  for (const Group& g : groups)
    for (const RunRecord* r : g.runs) {
      const auto cells = csv_run_cells(*r);
      if (!header) {
        for (const auto& [column, text] : cells) h << "<th>" << esc(column) << "</th>";
        h << "</tr>";
        header = true;
      }
      h << "<tr><td>" << esc(g.label) << "</td>";
      for (const auto& [column, text] : cells) h << "<td>" << esc(text) << "</td>";
      h << "</tr>";
    }
  if (!header) h << "</tr>";
  h << "</table>";
  return h.str();
}

// One run's charts and its line of figures.
std::string run_section(const Group& g, const RunRecord& r) {
  const std::string label = g.label + (r.is_latency_run() ? " (latency)"
                                       : r.repeat         ? " #" + std::to_string(*r.repeat)
                                                          : "");
  const std::string mode = r.mode == "open-loop" ? "open loop at " + num3(r.rate_rps) + " req/s" : "closed loop";
  std::ostringstream h;
  h << "<div class=\"run\">" << log2_chart(r, label) << series_chart(r, label) << "<div class=\"note\">" << mode << ": "
    << num3(r.throughput_rps) << " req/s, server " << num3(r.server_cpu_us_per_hit.value_or(0)) << " µs/hit, p50 "
    << num3(r.latency_us.p50) << " µs, p99 " << num3(r.latency_us.p99) << " µs, errors " << double(r.errors_total)
    << ", contaminated " << (r.contaminated ? json(*r.contaminated).dump() : "null") << "</div></div>";
  return h.str();
}

const char* kStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
svg text{font:12px system-ui,sans-serif;fill:#333}svg .small{font-size:10px}svg .tick{font-size:10px;fill:#666}
svg .label{font-weight:600}svg .peak{font-size:11px;font-weight:700;fill:#c00}
svg .grid{stroke:#e5e5e5}svg .whisker{stroke:#222;stroke-width:1.5}
table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
table.kv th{color:#555;font-weight:600}.rng{color:#888;font-size:12px}.bad{color:#b00}
.runs{display:flex;flex-wrap:wrap;gap:18px}.run{border:1px solid #eee;padding:8px}.note{color:#666})";

// After layout, every chart must have a real box; the count lands in a data attribute that
// a headless browser's --dump-dom shows (the test reads it).
const char* kScript = R"(<script>
window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};
window.addEventListener('load',function(){var n=0;document.querySelectorAll('svg.chart').forEach(function(s){
var b=s.getBBox();if(b.width>0&&b.height>0)n++;});document.body.setAttribute('data-charts-rendered',String(n));});
</script>)";

}  // namespace

std::string html_report(const std::vector<json>& docs, const std::string& title) {
  std::vector<RunRecord> runs;
  for (const json& d : docs)
    for (RunRecord& r : records_of(d)) runs.push_back(std::move(r));
  std::vector<json> merged_info;
  for (const RunRecord& r : runs)
    if (!r.merged.is_null()) merged_info.push_back(r.merged);
  // One table over every input, with the options the (first) sweep recorded.
  const Summary summary = summarize(runs, docs.empty() ? SummaryOptions{} : summary_options_of(docs.front()));
  bool any_latency = false;
  for (const SweepRow& row : summary.rows) any_latency = any_latency || row.latency_rate.has_value();
  const std::vector<Group> groups = group_runs(runs);
  std::ostringstream h;
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  h << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << esc(title) << "</title><style>"
    << kStyle << "</style>" << kScript << "</head><body><h1>" << esc(title)
    << "</h1><p class=\"note\">hitcost-load report, " << when
    << ". Figures are median [min..max] over repeats; CPU per request is process CPU over the measured "
    << "window divided by requests.</p><h2>What was measured</h2>" << header_section(runs, merged_info);
  h << summary_section(summary);
  if (any_latency)
    h << "<h2>Latency percentiles per strategy: open loop at one common rate</h2>" << latency_chart(groups, true);
  else
    h << "<h2>Latency percentiles per strategy: closed loop (queueing at saturation, not service time)</h2>"
      << latency_chart(groups, false);
  h << "<h2>Server CPU and wall time per hit, by phase</h2>" << phase_chart(groups) << runs_table(groups)
    << "<h2>Runs</h2><div class=\"runs\">";
  for (const Group& g : groups)
    for (const RunRecord* r : g.runs) h << run_section(g, *r);
  h << "</div></body></html>\n";
  return h.str();
}

}  // namespace hitcost::client
