#include "client/merge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

#include "client/histogram.h"
#include "client/report.h"
#include "client/series.h"
#include "client/summary.h"

namespace hitcost::client {

namespace {

using nlohmann::json;

double num(const json& j, const char* pointer, double dflt = 0) {
  const auto p = json::json_pointer(pointer);
  return j.contains(p) && j.at(p).is_number() ? j.at(p).get<double>() : dflt;
}

struct Window {
  double start_s = 0, end_s = 0;  // unix seconds
};

// How much of the other clients' windows client i's window covers (sum of fractions).
double coverage(const std::vector<Window>& w, size_t i) {
  double c = 0;
  for (size_t j = 0; j < w.size(); ++j) {
    const double len = w[j].end_s - w[j].start_s;
    const double ov = std::min(w[i].end_s, w[j].end_s) - std::max(w[i].start_s, w[j].start_s);
    c += len > 0 ? std::max(0.0, ov) / len : 0.0;
  }
  return c;
}

}  // namespace

namespace {
// Two inputs holding one run (the same file given twice, or a copy of it): merged, its requests
// would count twice and its throughput double. A run is known by the instant its window
// started (ns, wall clock), its request count and its latency histogram.
std::optional<std::string> same_run_twice(const std::vector<const json*>& runs, const std::vector<std::string>& names) {
  auto name = [&](size_t i) { return i < names.size() ? names[i] : "input " + std::to_string(i + 1); };
  for (size_t a = 0; a < runs.size(); ++a)
    for (size_t b = a + 1; b < runs.size(); ++b) {
      const json& x = *runs[a];
      const json& y = *runs[b];
      const uint64_t started = x.value("started_unix_ns", uint64_t{0});
      if (started == 0 || started != y.value("started_unix_ns", uint64_t{0}) ||
          x.value("requests", uint64_t{0}) != y.value("requests", uint64_t{0}) ||
          x.value("histogram", json()) != y.value("histogram", json()))
        continue;
      return name(a) + " and " + name(b) + " hold the same run (started_unix_ns " + std::to_string(started) + ", " +
             std::to_string(x.value("requests", uint64_t{0})) +
             " requests): merging a run with itself would count its requests twice";
    }
  return std::nullopt;
}
}  // namespace

std::optional<json> merge_runs(const std::vector<const json*>& runs, const std::vector<std::string>& names,
                               std::string* error, std::vector<std::string>* warnings) {
  if (runs.empty()) {
    *error = "nothing to merge";
    return std::nullopt;
  }
  if (const auto dup = same_run_twice(runs, names)) {
    *error = *dup;
    return std::nullopt;
  }
  static constexpr const char* hist_keys[] = {"histogram", "histogram_hit", "histogram_miss", "histogram_service",
                                              "histogram_send_lateness"};
  constexpr int kHists = int(std::size(hist_keys));
  Histogram merged[kHists];
  bool have[kHists];
  std::fill(std::begin(have), std::end(have), true);
  for (const json* r : runs) {
    for (int k = 0; k < kHists; ++k) {
      Histogram h;
      if (!r->contains(hist_keys[k]) || !histogram_from_json((*r)[hist_keys[k]], &h)) {
        have[k] = false;
        continue;
      }
      merged[k].merge(h);
    }
  }
  if (!have[0]) {
    *error = "every input needs a \"histogram\" (written by hitcost-load --json)";
    return std::nullopt;
  }

  json out = *runs.front();  // context fields (mode, strategy, store, keys, rows...) from the first
  std::vector<Window> windows;
  json clients = json::array();
  uint64_t requests = 0, ok = 0, unsent = 0, unfinished = 0, reconnects = 0, retries = 0, connections = 0, threads = 0;
  double rps = 0, client_cpu_s = 0, bytes = 0, body = 0;
  json errors = json::object();
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = *runs[i];
    const uint64_t n = uint64_t(num(r, "/requests"));
    requests += n;
    ok += uint64_t(num(r, "/ok"));
    unsent += uint64_t(num(r, "/unsent"));
    unfinished += uint64_t(num(r, "/unfinished"));
    reconnects += uint64_t(num(r, "/reconnects"));
    retries += uint64_t(num(r, "/contamination_retries"));
    connections += uint64_t(num(r, "/connections"));
    threads += uint64_t(num(r, "/threads"));
    rps += num(r, "/throughput_rps");
    client_cpu_s += num(r, "/system/client_cpu_s", num(r, "/client_cpu_us_per_req") * double(n) / 1e6);
    bytes += num(r, "/bytes_per_req/response") * double(n);
    body += num(r, "/bytes_per_req/body") * double(n);
    if (r.contains("errors") && r["errors"].is_object())
      for (const auto& [kind, v] : r["errors"].items())
        if (kind != "total" && v.is_number()) errors[kind] = errors.value(kind, uint64_t{0}) + v.get<uint64_t>();
    const double start = num(r, "/started_unix_ns") / 1e9, dur = num(r, "/duration_s");
    windows.push_back({start, start + dur});
    clients.push_back({{"file", i < names.size() ? names[i] : std::to_string(i)},
                       {"requests", n},
                       {"throughput_rps", num(r, "/throughput_rps")},
                       {"started_unix_ns", r.value("started_unix_ns", uint64_t{0})},
                       {"duration_s", dur},
                       {"client_cpu_us_per_req", r.value("client_cpu_us_per_req", json())},
                       {"contaminated", r.value("contaminated", json())}});
  }
  uint64_t err_total = 0;
  for (const auto& [kind, v] : errors.items()) err_total += v.get<uint64_t>();
  errors["total"] = err_total;

  // The common window: all clients were loading the server at once only inside it.
  double common_start = -1e300, common_end = 1e300, longest = 0, first_start = 1e300;
  bool have_starts = true;
  for (const Window& w : windows) {
    have_starts = have_starts && w.start_s > 0;
    common_start = std::max(common_start, w.start_s);
    common_end = std::min(common_end, w.end_s);
    longest = std::max(longest, w.end_s - w.start_s);
    first_start = std::min(first_start, w.start_s);
  }
  const double overlap_s = have_starts ? std::max(0.0, common_end - common_start) : 0.0;
  const double overlap_fraction = longest > 0 ? overlap_s / longest : 0.0;
  if (!have_starts)
    warnings->push_back("an input has no started_unix_ns: cannot check that the runs overlapped");
  else if (overlap_fraction < 0.9)
    warnings->push_back("the runs overlapped for only " + std::to_string(int(overlap_fraction * 100)) +
                        " % of the longest window: summed throughput overstates what the server carried at once");

  // Server-side figures from the client whose window covers the others best.
  size_t chosen = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    const bool has_server = (*runs[i]).contains("server") && !(*runs[i])["server"].is_null();
    const bool chosen_has = (*runs[chosen]).contains("server") && !(*runs[chosen])["server"].is_null();
    if ((has_server && !chosen_has) || (has_server == chosen_has && coverage(windows, i) > coverage(windows, chosen) + 1e-9))
      chosen = i;
  }
  const json& src = *runs[chosen];
  for (const char* k : {"server_cpu_us_per_req", "cache_cpu_us_per_req", "phases_us_per_req", "server", "hit_ratio",
                        "server_cpu_us_per_hit", "cpu", "server_sampling"})
    out[k] = src.value(k, json());
  out["bytes_per_req"] = src.value("bytes_per_req", json::object());
  out["bytes_per_req"]["response"] = requests ? bytes / double(requests) : 0.0;
  out["bytes_per_req"]["body"] = requests ? body / double(requests) : 0.0;
  if (src.contains("placement")) out["placement"] = src["placement"];
  json thread_cpus = json::array();
  for (const json* r : runs) thread_cpus.push_back(r->value("thread_cpus", json::array()));
  out["placement"]["client_thread_cpus"] = thread_cpus;  // one list per client machine
  if (merged[1].count() + merged[2].count() > 0)  // X-Cache over all clients' own answers
    out["hit_ratio"] = double(merged[1].count()) / double(merged[1].count() + merged[2].count());

  out["requests"] = requests;
  out["ok"] = ok;
  out["unsent"] = unsent;
  out["unfinished"] = unfinished;
  out["reconnects"] = reconnects;
  out["contamination_retries"] = retries;
  out["connections"] = connections;
  out["threads"] = threads;
  out["errors"] = errors;
  out["throughput_rps"] = rps;
  out["duration_s"] = longest;
  uint64_t first_ns = UINT64_MAX;  // exact, not via the double seconds above
  for (const json* r : runs) first_ns = std::min(first_ns, r->value("started_unix_ns", UINT64_MAX));
  out["started_unix_ns"] = have_starts ? first_ns : 0;
  out["client_cpu_us_per_req"] = requests ? client_cpu_s * 1e6 / double(requests) : 0.0;
  out["system"] = {{"client_cpu_s", client_cpu_s}, {"busy_cores", nullptr}, {"other_cores", nullptr},
                   {"window_s", longest}};
  // Not judged: each client counts the other clients' CPU as other work on the machine. Each
  // client's own flag stays in merged.clients.
  out["contaminated"] = nullptr;
  if (out.contains("cpu") && out["cpu"].is_object())
    out["cpu"]["contamination"] = {{"state", "unknown"},
                                   {"why", "merged runs of several clients: each counts the others as other work"}};
  static constexpr const char* lat_keys[] = {"latency_us", "hit_latency_us", "miss_latency_us", "service_latency_us",
                                             "send_lateness_us"};
  static_assert(std::size(lat_keys) == std::size(hist_keys));
  for (int k = 0; k < kHists; ++k) {
    if (!have[k]) {
      out.erase(hist_keys[k]);
      continue;
    }
    out[hist_keys[k]] = histogram_to_json(merged[k]);
    out[lat_keys[k]] = latency_json(merged[k]);
  }

  // Per-second series, aligned on the wall clock (whole seconds; sub-second skew stays).
  Series series;
  bool series_ok = true;
  for (const json* r : runs) {
    Series s;
    if (!r->contains("series") || !series_from_json((*r)["series"], &s)) {
      series_ok = false;
      break;
    }
    const double start = num(*r, "/started_unix_ns") / 1e9;
    const size_t offset = have_starts ? size_t(std::llround(std::max(0.0, start - first_start))) : 0;
    series.merge(s, offset);
  }
  if (series_ok) out["series"] = series_json(series, 0);
  else out.erase("series");

  json names_json = json::array();
  for (const auto& n : names) names_json.push_back(n);
  out["merged"] = {{"inputs", runs.size()},
                   {"files", names_json},
                   {"clients", clients},
                   {"window_overlap_s", overlap_s},
                   {"overlap_fraction", overlap_fraction},
                   {"server_figures_from", chosen < names.size() ? names[chosen] : std::to_string(chosen)},
                   {"assumption",
                    "the runs overlapped in time: throughput is the sum over clients; server and cache CPU per "
                    "request come from one client's /stats delta (it already counts every client's requests)"}};
  return out;
}

std::optional<json> merge_docs(const std::vector<json>& docs, const std::vector<std::string>& names,
                               std::string* error, std::vector<std::string>* warnings) {
  size_t sweeps = 0;
  for (const json& d : docs) sweeps += d.contains("runs") && d["runs"].is_array();
  if (sweeps != 0 && sweeps != docs.size()) {
    *error = "cannot merge sweep JSONs with single-run JSONs";
    return std::nullopt;
  }
  if (sweeps == 0) {
    std::vector<const json*> runs;
    for (const json& d : docs) runs.push_back(&d);
    return merge_runs(runs, names, error, warnings);
  }
  // Sweeps: the same (strategy, store, repeat) from every client becomes one run.
  using Key = std::tuple<std::string, std::string, int>;
  std::vector<Key> order;
  std::map<Key, std::pair<std::vector<const json*>, std::vector<std::string>>> groups;
  for (size_t i = 0; i < docs.size(); ++i)
    for (const json& r : docs[i]["runs"]) {
      const Key key{r.value("strategy", std::string()), r.value("sweep_store", r.value("store", std::string())),
                    r.value("repeat", -1)};
      if (!groups.count(key)) order.push_back(key);
      groups[key].first.push_back(&r);
      groups[key].second.push_back(i < names.size() ? names[i] : std::to_string(i));
    }
  json runs = json::array();
  for (const Key& key : order) {
    auto& [members, files] = groups[key];
    if (members.size() != docs.size())
      warnings->push_back(std::get<0>(key) + " repeat " + std::to_string(std::get<2>(key)) + " is in only " +
                          std::to_string(members.size()) + " of " + std::to_string(docs.size()) + " inputs");
    std::vector<std::string> run_warnings;
    auto merged = merge_runs(members, files, error, &run_warnings);
    if (!merged) return std::nullopt;
    for (auto& w : run_warnings) warnings->push_back(std::get<0>(key) + ": " + w);
    runs.push_back(std::move(*merged));
  }
  json out = summarize_runs_json(runs, summary_options_of(docs.front()));
  out["runs"] = runs;
  json names_json = json::array();
  for (const auto& n : names) names_json.push_back(n);
  out["merged"] = {{"inputs", docs.size()}, {"files", names_json}};
  return out;
}

}  // namespace hitcost::client
