#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <set>
#include <sstream>

#include "report/floor_html.h"
#include "report/html_charts.h"
#include "report/run_record.h"
#include "report/slowest.h"
#include "report/summary.h"
#include "report/verdict.h"

namespace hitcost::client {

namespace {

using html::esc;
using html::FlagIndex;
using html::Group;
using html::sig;
using nlohmann::json;

// The CPU part's figures the report shows, as html::Figure (none() for a run without them).
namespace figures {
const PartyUsRecord* attributed(const RunRecord& r) { return r.cpu ? &r.cpu->per_request_us.attributed : nullptr; }
const IdleCoresRecord* idle(const RunRecord& r) { return r.cpu && r.cpu->idle_cores ? &*r.cpu->idle_cores : nullptr; }
const std::optional<double>& per_hit(const RunRecord& r) { return r.server_cpu_us_per_hit; }
const std::optional<double>& raw_server(const RunRecord& r) {
  return r.cpu ? r.cpu->per_request_us.raw.server : html::none();
}
const std::optional<double>& net_server(const RunRecord& r) {
  return attributed(r) ? attributed(r)->server : html::none();
}
const std::optional<double>& net_cache(const RunRecord& r) {
  return attributed(r) ? attributed(r)->cache : html::none();
}
const std::optional<double>& net_client(const RunRecord& r) {
  return attributed(r) ? attributed(r)->client : html::none();
}
const std::optional<double>& net_total(const RunRecord& r) {
  return attributed(r) ? attributed(r)->total : html::none();
}
const std::optional<double>& busy_net(const RunRecord& r) {
  return r.cpu ? r.cpu->machine_busy_us_per_req.net : html::none();
}
const std::optional<double>& softirq_server_cpus(const RunRecord& r) {
  return r.cpu ? r.cpu->softirq_us_per_req.server_cpus : html::none();
}
const std::optional<double>& softirq_peer_cpus(const RunRecord& r) {
  return r.cpu ? r.cpu->softirq_us_per_req.peer_cpus : html::none();
}
const std::optional<double>& idle_server(const RunRecord& r) { return idle(r) ? idle(r)->server : html::none(); }
const std::optional<double>& idle_cache(const RunRecord& r) { return idle(r) ? idle(r)->cache : html::none(); }
const std::optional<double>& idle_client(const RunRecord& r) { return idle(r) ? idle(r)->client : html::none(); }
const std::optional<double>& other_cores(const RunRecord& r) {
  return r.cpu ? r.cpu->contamination.other_cores : html::none();
}
}  // namespace figures

std::vector<const RunRecord*> all_of(const std::vector<RunRecord>& runs) {
  std::vector<const RunRecord*> out;
  for (const RunRecord& r : runs) out.push_back(&r);
  return out;
}

// One figure over runs, as "median [min..max]" rounded to what its spread resolves; flagged
// values go into no range and are counted beside it. "-" when no run has it.
std::string spread_html(const std::vector<const RunRecord*>& runs, html::Figure figure, const FlagIndex& flags,
                        double scale = 1) {
  std::vector<double> v;
  size_t flagged = 0;
  for (const RunRecord* r : runs)
    if (const std::optional<double>& x = figure(*r)) {
      if (flags.why(*r, x))
        ++flagged;
      else
        v.push_back(*x * scale);
    }
  std::string out = v.empty() ? "-" : html::range_text(*Range::of(v));
  if (flagged)
    out += " " + html::flagged_html("(" + std::to_string(flagged) + " flagged, left out: see “CPU per run”)",
                                    "figures that cannot be right, listed with their reasons under CPU per run");
  return out;
}

// A number as a person writes it: 16, 0.99, 785.2 (four significant digits at most).
std::string plain(double v) {
  if (v == std::round(v) && std::abs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  std::string t = sig(v, 4);
  if (t.find('.') != std::string::npos) t.erase(t.find_last_not_of('0') + 1);
  if (t.back() == '.') t.pop_back();
  return t;
}

// The distinct values of one field over the runs, as text ("-" when no run has one). Numbers
// as plain(); more than three distinct numbers as median [min..max].
std::string uniq(const std::vector<RunRecord>& runs, const std::function<json(const RunRecord&)>& field) {
  std::set<std::string> seen;
  std::vector<double> numbers;
  std::string out;
  for (const RunRecord& r : runs) {
    const json v = field(r);
    if (v.is_null()) continue;
    std::string text = v.is_string() ? v.get<std::string>() : v.is_number() ? plain(v.get<double>()) : v.dump();
    if (v.is_array() && v.empty()) text = "none";
    if (v.is_number()) numbers.push_back(v.get<double>());
    if (seen.insert(text).second) out += (out.empty() ? "" : ", ") + esc(text);
  }
  if (seen.size() > 3 && numbers.size() == runs.size()) return html::range_text(*Range::of(numbers));
  return out.empty() ? "-" : out;
}
std::string rows_mix_text(const RunRecord& r) {
  std::string text;
  for (const RowsMixRecord& e : r.rows_mix.value_or(std::vector<RowsMixRecord>{})) {
    if (!text.empty()) text += ',';  // appended apart: GCC 12's -Wrestrict false positive on "," + std::string&&
    (text += json(e.rows).dump()) += ':';
    text += json(e.weight).dump();
  }
  return text;
}

std::string header_section(const std::vector<RunRecord>& runs, const std::vector<json>& merged_info,
                           const FlagIndex& flags) {
  std::ostringstream s;
  size_t contaminated = 0, unknown = 0, retries = 0, unsent = 0, interrupted = 0;
  std::string unknown_why;
  for (const RunRecord& r : runs) {
    if (!r.contaminated) {
      ++unknown;
      if (r.cpu && !r.cpu->contamination.why.empty()) unknown_why = r.cpu->contamination.why;
    } else if (*r.contaminated) {
      ++contaminated;
    }
    retries += size_t(r.contamination_retries);
    unsent += r.unsent + r.unfinished;
    interrupted += r.interrupted;
  }
  const std::vector<const RunRecord*> every = all_of(runs);
  s << "<table class=\"kv\">";
  auto row = [&](const std::string& k, const std::string& v) {
    s << "<tr><th>" << k << "</th><td>" << v << "</td></tr>";
  };
  auto u = [&](auto field) { return uniq(runs, field); };
  // A text of the CPU part (`pick` returns it), over the runs.
  auto cpu = [&](auto pick) { return u([pick](const RunRecord& r) { return r.cpu ? json(pick(*r.cpu)) : json(); }); };
  std::string mode;
  if (std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.mode != "open-loop"; }))
    mode = "closed-loop (latency from the actual send: stalls are under-represented)";
  if (std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.mode == "open-loop"; }))
    mode += (mode.empty() ? "" : "; ") + std::string("open-loop at ") +
            u([](const RunRecord& r) { return r.rate_rps > 0 ? json(r.rate_rps) : json(); }) +
            " req/s (latency from the intended send time)";
  row("mode", mode);
  row("connections / threads", u([](const RunRecord& r) { return json(r.connections); }) + " / " +
                                   u([](const RunRecord& r) { return json(r.threads); }));
  row("runs", std::to_string(runs.size()) + ", window " + u([](const RunRecord& r) { return json(r.duration_s); }) +
                  " s after " + u([](const RunRecord& r) { return json(r.warmup_s); }) + " s warmup");
  if (interrupted)
    row("INTERRUPTED", std::to_string(interrupted) + " run(s) stopped by a signal before their planned " +
                           u([](const RunRecord& r) { return json(r.planned_duration_s); }) +
                           " s: their figures cover the window that ran");
  // A replayed trace: which, at what pace, its keys as what (the keys row's target is its hit ratio).
  auto replay_field = [&](const char* name) {
    return u([name](const RunRecord& r) { return r.replay.is_object() ? r.replay.value(name, json()) : json(); });
  };
  if (std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.replay.is_object(); })) {
    const std::string corpus = replay_field("values_corpus");
    row("replay", "trace " + replay_field("trace") + " at " + replay_field("speed") + "x its pace, " +
                      replay_field("keys") + " keys as " + replay_field("route") +
                      (corpus == "-" ? "" : " of " + corpus) + "; the target hit ratio below is the trace's");
  }
  row("keys", u([](const RunRecord& r) { return json(r.keys); }) + " " +
                  u([](const RunRecord& r) { return json(r.key_dist); }) + ", target hit ratio " +
                  u([](const RunRecord& r) { return r.target_hit_ratio ? json(*r.target_hit_ratio) : json(); }) +
                  ", rows " + u([](const RunRecord& r) { return r.rows ? json(*r.rows) : json(); }) +
                  (runs.empty() || !runs[0].rows_mix ? "" : std::string(", rows mix ") + u([](const RunRecord& r) {
                                                              return r.rows_mix ? json(rows_mix_text(r)) : json();
                                                            })));
  row("CPU placement", "client pinned " + u([](const RunRecord& r) { return json(r.cpus); }) + " (threads seen on " +
                           u([](const RunRecord& r) { return r.client_thread_cpus; }) + "); server " +
                           u([](const RunRecord& r) { return r.server_cpus; }) + "; cache " + u([](const RunRecord& r) {
                             json cpus = r.cache_cpus;  // a node the server did not find on its host: null
                             if (cpus.is_array())
                               for (json& e : cpus)
                                 if (e.is_null()) e = kNotOnThisHost;
                             return cpus;
                           }));
  std::vector<double> overhead;
  for (const RunRecord& r : runs)
    if (r.server_sampling && r.server_sampling->overhead_fraction)
      overhead.push_back(100 * *r.server_sampling->overhead_fraction);
  row("CPU accounting",
      "server CPU per hit sampled by the server (about 1 in " + u([](const RunRecord& r) {
        return r.server_sampling && r.server_sampling->period ? json(*r.server_sampling->period) : json();
      }) + " requests; the sampling cost " +
          (overhead.empty() ? std::string("-") : html::range_text(*Range::of(overhead))) +
          " % of the CPU measured), net of the idle baseline, in the attribution below; the idle and the receive "
          "work moved are shared between hits and misses " +
          cpu([](const CpuRecord& c) { return c.corrections_shared ? json(*c.corrections_shared) : json(); }) +
          ". Every figure says raw (as measured) or net (idle taken off).");
  // Runs whose baseline was dropped (another client's load in it: measure/measure.h) are net
  // of nothing: said here, with the first reason, not left to a missing number.
  const auto no_idle = std::count_if(runs.begin(), runs.end(), [](const RunRecord& r) { return r.idle_error; });
  const auto first_no_idle = std::find_if(runs.begin(), runs.end(), [](const RunRecord& r) { return r.idle_error; });
  row("idle baseline",
      "cores, median [min..max] over the runs: server " + spread_html(every, &figures::idle_server, flags) +
          ", cache " + spread_html(every, &figures::idle_cache, flags) + ", client " +
          spread_html(every, &figures::idle_client, flags) +
          (no_idle ? "; <b class=\"bad\">" + std::to_string(no_idle) + " of " + std::to_string(runs.size()) +
                         " runs without one, nothing taken off (" + esc(*first_no_idle->idle_error) + ")</b>"
                   : std::string()));
  row("attribution", cpu([](const CpuRecord& c) { return c.attribution_note; }));
  const std::string on_server = spread_html(every, &figures::softirq_server_cpus, flags),
                    on_peers = spread_html(every, &figures::softirq_peer_cpus, flags);
  row("receive work", on_server == "-" && on_peers == "-"
                          ? "not told apart: " + cpu([](const CpuRecord& c) { return c.receiver_pays_note; })
                          : "softirq µs/req, net of idle: on the server's CPUs (its peers receiving) " + on_server +
                                "; on the peers' CPUs (the server receiving) " + on_peers);
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
                      " client JSONs, assumed concurrent (throughput summed); windows overlap " + sig(100 * worst, 3) +
                      "%" + (merged_info.size() > 1 ? " (worst run)" : "") + "; server/cache CPU per request from " +
                      esc(files) + " (not summed)");
  }
  s << "</table>";
  return s.str();
}

// `note`: what follows the range (capacity_runs_note: req/s over fewer runs than the row's).
std::string range_cell(const std::optional<Range>& r, const std::string& note = "") {
  return "<td>" + (r ? html::range_text(*r) : std::string("-")) + note + "</td>";
}

// The summary table (capacity), the latency table (open loop) and the verdicts.
std::string summary_section(const Summary& summary) {
  std::set<std::string> attributions;
  int flagged = 0;
  for (const SweepRow& row : summary.rows) {
    if (!row.attribution.empty()) attributions.insert(row.attribution);
    flagged += row.flagged_figures;
  }
  std::string attribution;
  for (const auto& a : attributions) attribution += (attribution.empty() ? "" : " and ") + a;
  std::ostringstream h;
  h << "<h2>Summary</h2><p class=\"note\">Capacity and CPU from closed-loop runs; CPU figures net of idle, "
    << esc(attribution.empty() ? "sender-pays" : attribution)
    << "; median [min..max] over the runs kept (runs with errors, off the target hit ratio, with other work that "
       "could move the figure past its limit, or whose CPU per hit cannot be right are left out and counted; "
       "req/s (N): over N runs only), rounded to what their spread resolves.";
  if (flagged)
    h << " " << flagged << " CPU figure(s) that cannot be right (see “CPU per run”) are left out of these medians.";
  h << "</p><div class=\"wide\"><table><tr><th>strategy</th><th>store</th><th>runs kept</th>";
  for (const RangeColumn& c : range_columns())
    if (c.html) h << "<th>" << c.html << "</th>";
  h << "<th>errors</th></tr>";
  bool any_latency = false;
  for (const SweepRow& row : summary.rows) {
    any_latency = any_latency || row.latency_rate.has_value();
    if (row.runs == 0) continue;
    h << "<tr><td>" << html::breakable(row.strategy) << "</td><td>" << html::breakable(row.store) << "</td><td>"
      << row.used << "/" << row.runs << "</td>";
    for (const RangeColumn& c : range_columns())
      if (c.html) h << range_cell(row.*c.member, c.member == &SweepRow::rps ? capacity_runs_note(row) : "");
    h << "<td>" << row.errors << "</td></tr>";
  }
  h << "</table></div>";
  if (any_latency) {
    h << "<h3>Latency: open loop, every strategy at the same rate</h3><table><tr><th>strategy</th><th>store</th>"
         "<th>req/s</th><th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th><th>send lateness p99 µs</th>"
         "<th>errors</th></tr>";
    auto cell = [](const std::optional<double>& v) { return v ? sig(*v, 3) : std::string("-"); };
    for (const SweepRow& row : summary.rows) {
      if (!row.latency_rate) continue;
      h << "<tr><td>" << html::breakable(row.strategy) << "</td><td>" << html::breakable(row.store) << "</td><td>"
        << cell(row.latency_rate) << "</td><td>" << cell(row.p50_us) << "</td><td>" << cell(row.p99_us) << "</td><td>"
        << cell(row.p999_us) << "</td><td>" << cell(row.max_us) << "</td><td>" << cell(row.lateness_p99_us)
        << "</td><td>" << row.latency_errors << "</td></tr>";
    }
    h << "</table>";
  }
  h << "<h3>Verdicts</h3><p>" << esc(verdict_header(summary)) << "</p>";
  if (!summary.noise.empty()) h << "<p class=\"noise\">" << esc(summary.noise) << "</p>";
  h << "<ul class=\"verdicts\">";
  if (summary.verdicts.empty()) h << "<li>none (fewer than two strategies with server CPU figures)</li>";
  for (const auto& [store, v] : summary.verdicts)
    h << "<li class=\"" << esc(to_string(v.kind)) << "\">" << esc((store.empty() ? "" : "[" + store + "] ") + v.text)
      << "</li>";
  h << "</ul>";
  return h.str();
}

// A run's name in the tables: its row (the store too where the runs are on several), then
// #repeat or (latency).
std::string run_name(const Group& g, const RunRecord& r, bool with_store) {
  return (with_store ? g.label : g.strategy) + (r.is_latency_run() ? " (latency)"
                                                : r.repeat         ? " #" + std::to_string(*r.repeat)
                                                                   : "");
}
bool several_stores(const std::vector<Group>& groups) {
  return std::any_of(groups.begin(), groups.end(), [&](const Group& g) { return g.store != groups.front().store; });
}

// A CSV cell as the page shows it: a fractional number to four significant digits (the CSV
// and the JSON keep more), anything else as it is.
std::string csv_cell_html(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || text.find_first_of(".eE") == std::string::npos)
    return html::breakable(text);
  return sig(v, 4);
}

// Every run's CSV columns, one row each, as `--csv` writes them; a column with the same value
// in every run is said once above the table.
std::string runs_table(const std::vector<Group>& groups) {
  struct Row {
    std::string name;
    std::vector<std::pair<std::string, std::string>> cells;
  };
  std::vector<Row> rows;
  for (const Group& g : groups)
    for (const RunRecord* r : g.runs) rows.push_back({run_name(g, *r, false), csv_run_cells(*r)});
  std::ostringstream h;
  h << "<h2>All runs</h2>";
  if (rows.empty()) return h.str() + "<p class=\"note\">No runs.</p>";
  const size_t nc = rows.front().cells.size();
  std::vector<bool> same(nc, true);
  for (const Row& row : rows)
    for (size_t c = 0; c < nc && c < row.cells.size(); ++c)
      same[c] = same[c] && row.cells[c].second == rows.front().cells[c].second;
  std::string constant;
  for (size_t c = 0; c < nc; ++c)
    if (same[c] && rows.size() > 1)
      constant += (constant.empty() ? "" : ", ") + esc(rows.front().cells[c].first) + " " +
                  (rows.front().cells[c].second.empty() ? "(empty)" : csv_cell_html(rows.front().cells[c].second));
  h << "<p class=\"note\">The columns of <code>--csv</code>. server_cpu_us_per_req, cache_cpu_us_per_req and "
       "client_cpu_us_per_req are raw (getrusage over the window ÷ requests: sender-pays, idle included).";
  if (!constant.empty()) h << " The same in every run: " << constant << ".";
  h << "</p><div class=\"wide\"><table class=\"runs-table\"><tr><th>run</th>";
  for (size_t c = 0; c < nc; ++c)
    if (!(same[c] && rows.size() > 1)) {
      h << "<th>" << esc(rows.front().cells[c].first) << "</th>";
    }
  h << "</tr>";
  for (const Row& row : rows) {
    h << "<tr><td>" << esc(row.name) << "</td>";
    for (size_t c = 0; c < nc && c < row.cells.size(); ++c) {
      if (same[c] && rows.size() > 1) continue;
      h << "<td>" << csv_cell_html(row.cells[c].second) << "</td>";
    }
    h << "</tr>";
  }
  h << "</table></div>";
  return h.str();
}

// Every run's CPU figures, raw and net, each marked where it cannot be right; then every flag
// with its reason.
std::string cpu_table(const std::vector<Group>& groups, const FlagIndex& flags) {
  static const std::pair<const char*, html::Figure> columns[] = {
      {"server µs/hit, net", &figures::per_hit},
      {"server µs/req, raw", &figures::raw_server},
      {"server µs/req, net", &figures::net_server},
      {"cache µs/req, net", &figures::net_cache},
      {"client µs/req, net", &figures::net_client},
      {"total µs/req, net", &figures::net_total},
      {"CPUs busy µs/req, net", &figures::busy_net},
      {"softirq µs/req on the server's CPUs, net", &figures::softirq_server_cpus},
      {"softirq µs/req on the peers' CPUs, net", &figures::softirq_peer_cpus},
      {"idle cores, server", &figures::idle_server},
      {"other work, cores", &figures::other_cores},
  };
  std::ostringstream h;
  // Each flagged figure once, with the runs it is flagged in (their value) and why, in words
  // and numbers, for the first of them: the reasons of one figure differ only in the numbers.
  struct Flagged {
    std::string figure, why, runs;
    size_t n = 0;
  };
  std::vector<Flagged> by_figure;
  size_t n_flags = 0;
  h << "<h2>CPU per run</h2><p class=\"note\">raw: as measured (getrusage, /proc/stat; sender-pays, idle included). "
       "net: the idle baseline taken off, in the run's attribution. A figure marked &#9888; cannot be right as it "
       "stands (why: below the table): it is left out of every median and range.</p>"
       "<div class=\"wide\"><table class=\"cpu-table\"><tr><th>run</th><th>attribution</th>";
  for (const auto& [name, pointer] : columns) h << "<th>" << name << "</th>";
  h << "<th>flagged</th></tr>";
  for (const Group& g : groups)
    for (const RunRecord* r : g.runs) {
      const std::string name = run_name(g, *r, several_stores(groups));
      h << "<tr><td>" << html::breakable(name) << "</td><td>" << esc(r->attribution()) << "</td>";
      for (const auto& [column, figure] : columns) {
        const std::optional<double>& v = figure(*r);
        const auto why = flags.why(*r, v);
        h << "<td>" << (!v ? "-" : why ? html::flagged_html(sig(*v, 3), *why) : sig(*v, 3)) << "</td>";
      }
      const auto& fl = flags.of(*r);
      h << "<td>" << fl.size() << "</td></tr>";
      for (const CpuFlag& f : fl) {
        auto it =
            std::find_if(by_figure.begin(), by_figure.end(), [&](const Flagged& b) { return b.figure == f.figure; });
        if (it == by_figure.end()) {
          by_figure.push_back({f.figure, name + ": " + f.why, "", 0});
          it = by_figure.end() - 1;
        }
        const auto v = r->figure(f.figure);
        it->runs += (it->n++ ? ", " : "") + name + (v ? " (" + sig(*v, 3) + ")" : "");
      }
      n_flags += fl.size();
    }
  h << "</table></div>";
  if (n_flags) {
    h << "<h3>Flagged figures (" << n_flags << " in all)</h3><table class=\"flags\" data-flags=\"" << n_flags
      << "\"><tr><th>figure (run JSON pointer)</th><th>flagged in</th><th>why it cannot be right (the first "
         "run)</th></tr>";
    for (const Flagged& b : by_figure)
      h << "<tr><td><code>" << html::breakable(b.figure) << "</code></td><td>" << b.n << ": " << html::breakable(b.runs)
        << "</td><td>" << esc(b.why) << "</td></tr>";
    h << "</table>";
  }
  return h.str();
}

// One run's charts and its line of figures.
std::string run_section(const Group& g, const RunRecord& r, const FlagIndex& flags) {
  const std::string label = run_name(g, r, true);
  const std::string mode = r.mode == "open-loop" ? "open loop at " + sig(r.rate_rps, 3) + " req/s" : "closed loop";
  std::string per_hit = "-";
  if (r.server_cpu_us_per_hit) {
    per_hit = sig(*r.server_cpu_us_per_hit, 3);
    if (const auto why = flags.why(r, r.server_cpu_us_per_hit)) per_hit = html::flagged_html(per_hit, *why);
  }
  std::ostringstream h;
  h << "<div class=\"run\">" << html::log2_chart(r, label) << html::series_chart(r, label) << "<div class=\"note\">"
    << mode << ": " << sig(r.throughput_rps, 3) << " req/s, server " << per_hit << " µs/hit (net, "
    << esc(r.attribution()) << "), p50 " << sig(r.latency_us.p50, 3) << " µs, p99 " << sig(r.latency_us.p99, 3)
    << " µs, errors " << r.errors_total << ", contaminated " << (r.contaminated ? json(*r.contaminated).dump() : "null")
    << "</div>" << slowest_html(r.slowest) << "</div>";
  return h.str();
}

const char* kStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
svg text{font:12px system-ui,sans-serif;fill:#333}svg .small{font-size:10px}svg .tick{font-size:10px;fill:#666}
svg .label{font-weight:600}svg .peak{font-size:11px;font-weight:700;fill:#c00}
svg .grid{stroke:#e5e5e5}svg .whisker{stroke:#222;stroke-width:1.5}
table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
table.kv th{color:#555;font-weight:600;white-space:nowrap}.rng{color:#888;font-size:12px}.bad{color:#b00}
.flagged{color:#b00;background:#fde8e8;white-space:nowrap}tr.total td{font-weight:600}
.wide{overflow-x:auto;max-width:100%}.runs-table td,.runs-table th,.cpu-table td,.cpu-table th{padding:3px 5px;font-size:13px}
.runs-table th{overflow-wrap:anywhere}.chart-box{overflow-x:auto;max-width:100%}
.runs{display:flex;flex-wrap:wrap;gap:18px}.run{border:1px solid #eee;padding:8px}.note{color:#666})";

// After layout: every chart must have a real box, and every text must be whole — inside its
// chart and clear of every other text of it; no table cell may clip its content, no table or
// chart is wider than the page (none needs its scroll bar), and the page is no wider than the
// window. The counts
// land in data attributes that a headless browser's --dump-dom shows (the test reads them).
const char* kScript = R"(<script>
window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};
window.addEventListener('load',function(){var n=0,texts=0,bad=0,what=[];
function note(e){bad++;e.setAttribute('data-overflow','1');if(what.length<8)what.push(e.textContent.slice(0,60));}
document.querySelectorAll('svg.chart').forEach(function(s){var b=s.getBBox();if(b.width>0&&b.height>0)n++;
var box=s.getBoundingClientRect(),ts=[].slice.call(s.querySelectorAll('text')),rs=ts.map(function(t){
return t.getBoundingClientRect();});rs.forEach(function(r,i){texts++;
if(r.left<box.left-0.5||r.right>box.right+0.5||r.top<box.top-0.5||r.bottom>box.bottom+0.5){note(ts[i]);return;}
for(var j=0;j<i;j++){var q=rs[j];if(Math.min(r.right,q.right)-Math.max(r.left,q.left)>0.5&&
Math.min(r.bottom,q.bottom)-Math.max(r.top,q.top)>0.5){note(ts[i]);break;}}});});
document.querySelectorAll('td,th').forEach(function(c){texts++;if(c.scrollWidth>c.clientWidth+1)note(c);});
document.querySelectorAll('.wide,.chart-box').forEach(function(b){if(b.scrollWidth>b.clientWidth+1)note(b);});
if(document.documentElement.scrollWidth>window.innerWidth+1)note(document.body);
document.body.setAttribute('data-texts-checked',String(texts));document.body.setAttribute('data-text-overflow',String(bad));
document.body.setAttribute('data-overflow-what',what.join(' | '));
document.body.setAttribute('data-charts-rendered',String(n));});
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
  const std::vector<Group> groups = html::group_runs(runs, summary);
  const FlagIndex flags(runs);
  std::ostringstream h;
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  h << "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << esc(title) << "</title><style>"
    << kStyle << "</style>" << kScript << "</head><body><h1>" << esc(title)
    << "</h1><p class=\"note\">hitcost-load report, " << when
    << ". Figures are median [min..max] over repeats; CPU per request is process CPU over the measured "
    << "window divided by requests.</p><h2>What was measured</h2>" << header_section(runs, merged_info, flags);
  h << summary_section(summary) << html::floor_section(summary, runs);
  if (any_latency)
    h << "<h2>Latency percentiles per strategy: open loop at one common rate</h2><div class=\"chart-box\">"
      << html::latency_chart(groups, true) << "</div>";
  else
    h << "<h2>Latency percentiles per strategy: closed loop (queueing at saturation, not service time)</h2>"
      << "<div class=\"chart-box\">" << html::latency_chart(groups, false) << "</div>";
  h << "<h2>Server CPU per hit by part, and wall time by phase</h2><div class=\"chart-box\">"
    << html::phase_section(groups, flags) << "</div>" << runs_table(groups) << cpu_table(groups, flags)
    << "<h2>Runs</h2><div class=\"runs\">";
  for (const Group& g : groups)
    for (const RunRecord* r : g.runs) h << run_section(g, *r, flags);
  h << "</div></body></html>\n";
  return h.str();
}

}  // namespace hitcost::client
