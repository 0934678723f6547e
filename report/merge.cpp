#include "report/merge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <tuple>

#include "figures/histogram.h"
#include "figures/series.h"
#include "report/summary.h"

namespace hitcost::client {

namespace {

using nlohmann::json;

std::string input_name(const std::vector<std::string>& names, size_t i) {
  return i < names.size() ? names[i] : std::to_string(i);
}

// Two inputs holding one run (the same file given twice, or a copy of it): merged, its requests
// would count twice and its throughput double. A run is known by the instant its window
// started (ns, wall clock), its request count and its latency histogram.
std::optional<std::string> same_run_twice(const std::vector<const RunRecord*>& runs,
                                          const std::vector<std::string>& names) {
  auto name = [&](size_t i) { return i < names.size() ? names[i] : "input " + std::to_string(i + 1); };
  for (size_t a = 0; a < runs.size(); ++a)
    for (size_t b = a + 1; b < runs.size(); ++b) {
      const RunRecord& x = *runs[a];
      const RunRecord& y = *runs[b];
      if (x.started_unix_ns == 0 || x.started_unix_ns != y.started_unix_ns || x.requests != y.requests ||
          x.histogram != y.histogram)
        continue;
      return name(a) + " and " + name(b) + " hold the same run (started_unix_ns " + std::to_string(x.started_unix_ns) +
             ", " + std::to_string(x.requests) + " requests): merging a run with itself would count its requests twice";
    }
  return std::nullopt;
}

// The five latency histograms of a run, merged bucket by bucket over the clients. A kind that
// one input lacks is left out of the merge (its percentiles stay the first client's).
struct MergedHistograms {
  static constexpr json RunRecord::*kHists[] = {&RunRecord::histogram, &RunRecord::histogram_hit,
                                                &RunRecord::histogram_miss, &RunRecord::histogram_service,
                                                &RunRecord::histogram_send_lateness};
  static constexpr LatencyUs RunRecord::*kLatency[] = {&RunRecord::latency_us, &RunRecord::hit_latency_us,
                                                       &RunRecord::miss_latency_us, &RunRecord::service_latency_us,
                                                       &RunRecord::send_lateness_us};
  static constexpr size_t kCount = std::size(kHists);
  static_assert(std::size(kLatency) == kCount);
  Histogram merged[kCount];
  bool have[kCount] = {true, true, true, true, true};

  explicit MergedHistograms(const std::vector<const RunRecord*>& runs) {
    for (const RunRecord* r : runs)
      for (size_t k = 0; k < kCount; ++k) {
        Histogram h;
        if (!histogram_from_json(r->*kHists[k], &h)) {
          have[k] = false;
          continue;
        }
        merged[k].merge(h);
      }
  }
  const Histogram& hit() const { return merged[1]; }
  const Histogram& miss() const { return merged[2]; }
  void into(RunRecord& out) const {
    for (size_t k = 0; k < kCount; ++k) {
      if (!have[k]) {
        out.*kHists[k] = nullptr;  // not mergeable: left out, not the first client's alone
        continue;
      }
      out.*kHists[k] = histogram_to_json(merged[k]);
      out.*kLatency[k] = latency_us_of(merged[k]);
    }
  }
};

struct Window {
  double start_s = 0, end_s = 0;  // unix seconds
};

// The clients' windows: the common part (all of them loading the server at once) against the
// longest one.
struct Windows {
  std::vector<Window> each;
  bool have_starts = true;  // every input says when its window started
  double overlap_s = 0, overlap_fraction = 0, longest = 0, first_start = 1e300;
  uint64_t first_ns = 0;  // exact, not via the double seconds

  explicit Windows(const std::vector<const RunRecord*>& runs) {
    double common_start = -1e300, common_end = 1e300;
    uint64_t first = UINT64_MAX;
    for (const RunRecord* r : runs) {
      const double start = double(r->started_unix_ns) / 1e9;
      each.push_back({start, start + r->duration_s});
      have_starts = have_starts && start > 0;
      common_start = std::max(common_start, start);
      common_end = std::min(common_end, start + r->duration_s);
      longest = std::max(longest, r->duration_s);
      first_start = std::min(first_start, start);
      first = std::min(first, r->started_unix_ns);
    }
    overlap_s = have_starts ? std::max(0.0, common_end - common_start) : 0.0;
    overlap_fraction = longest > 0 ? overlap_s / longest : 0.0;
    first_ns = have_starts ? first : 0;
  }
  // How much of the other clients' windows client i's window covers (sum of fractions).
  double coverage(size_t i) const {
    double c = 0;
    for (const Window& w : each) {
      const double len = w.end_s - w.start_s;
      const double ov = std::min(each[i].end_s, w.end_s) - std::max(each[i].start_s, w.start_s);
      c += len > 0 ? std::max(0.0, ov) / len : 0.0;
    }
    return c;
  }
  void warn(std::vector<std::string>* warnings) const {
    if (!have_starts)
      warnings->push_back("an input has no started_unix_ns: cannot check that the runs overlapped");
    else if (overlap_fraction < 0.9)
      warnings->push_back("the runs overlapped for only " + std::to_string(int(overlap_fraction * 100)) +
                          " % of the longest window: summed throughput overstates what the server carried at once");
  }
};

// What each client counted for itself adds up: requests, errors, throughput, its own CPU.
void add_client_counts(const std::vector<const RunRecord*>& runs, RunRecord& out) {
  out.requests = out.ok = out.unsent = out.unfinished = out.reconnects = 0;
  out.contamination_retries = out.connections = out.threads = 0;
  out.errors = ErrorCounts{};
  out.errors_total = 0;
  out.throughput_rps = 0;
  double client_cpu_s = 0, bytes = 0, body = 0;
  for (const RunRecord* r : runs) {
    out.requests += r->requests;
    out.ok += r->ok;
    out.unsent += r->unsent;
    out.unfinished += r->unfinished;
    out.reconnects += r->reconnects;
    out.contamination_retries += r->contamination_retries;
    out.connections += r->connections;
    out.threads += r->threads;
    out.errors.merge(r->errors);
    out.errors_total += r->errors_total;
    out.throughput_rps += r->throughput_rps;
    // A run saved before "system" carried only the per-request figure.
    client_cpu_s += r->client_cpu_s > 0 ? r->client_cpu_s : r->client_cpu_us_per_req * double(r->requests) / 1e6;
    bytes += r->response_bytes_per_req * double(r->requests);
    body += r->body_bytes_per_req * double(r->requests);
  }
  const double n = double(out.requests);
  out.response_bytes_per_req = out.requests ? bytes / n : 0.0;
  out.body_bytes_per_req = out.requests ? body / n : 0.0;
  out.client_cpu_s = client_cpu_s;
  out.client_cpu_us_per_req = out.requests ? client_cpu_s * 1e6 / n : 0.0;
}

// The client whose window covers the others best (one with server figures first): the server
// and cache CPU come from it alone, since its /stats delta already counts every client.
size_t server_figures_source(const std::vector<const RunRecord*>& runs, const Windows& w) {
  size_t chosen = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    const bool has_server = runs[i]->server.has_value(), chosen_has = runs[chosen]->server.has_value();
    if ((has_server && !chosen_has) || (has_server == chosen_has && w.coverage(i) > w.coverage(chosen) + 1e-9))
      chosen = i;
  }
  return chosen;
}

void take_server_figures(const RunRecord& src, const std::vector<const RunRecord*>& runs, RunRecord& out) {
  out.server_cpu_us_per_req = src.server_cpu_us_per_req;
  out.cache_cpu_us_per_req = src.cache_cpu_us_per_req;
  out.phases_us_per_req = src.phases_us_per_req;
  out.server = src.server;
  out.hit_ratio = src.hit_ratio;
  out.server_cpu_us_per_hit = src.server_cpu_us_per_hit;
  out.cpu = src.cpu;
  out.idle_error = src.idle_error;  // its figures are net of its idle baseline, or say why not
  out.server_sampling = src.server_sampling;
  out.cache_read_bytes_per_req = src.cache_read_bytes_per_req;
  out.cache_written_bytes_per_req = src.cache_written_bytes_per_req;
  out.client_cpus = src.client_cpus;
  out.server_cpus = src.server_cpus;
  out.cache_cpus = src.cache_cpus;
  out.server_local = src.server_local;
  out.cache_local = src.cache_local;
  out.client_thread_cpus = json::array();  // one list per client machine
  for (const RunRecord* r : runs) out.client_thread_cpus.push_back(r->thread_cpus);
  // Where each part ran: every input's client host (a list, as for the threads' CPUs; an input
  // written before hosts gives an empty one), the server and the cache as the source saw them.
  out.hosts.reset();
  for (const RunRecord* r : runs)
    if (r->hosts) out.hosts = src.hosts.value_or(HostsRecord{});
  if (out.hosts) {
    out.hosts->clients.clear();
    out.hosts->clients_listed = true;
    for (const RunRecord* r : runs) {
      if (!r->hosts || r->hosts->clients.empty()) out.hosts->clients.push_back({});
      if (r->hosts)
        out.hosts->clients.insert(out.hosts->clients.end(), r->hosts->clients.begin(), r->hosts->clients.end());
    }
  }
  // Not judged: each client counts the other clients' CPU as other work on the machine. Each
  // client's own flag stays in merged.clients.
  out.contaminated.reset();
  if (out.cpu) {
    // A state and why alone, read from that JSON so that the other keys stay out: the source's
    // figures of other work are nobody's here.
    fields::read_part(
        {{"state", "unknown"}, {"why", "merged runs of several clients: each counts the others as other work"}},
        out.cpu->contamination);
    out.cpu->flags = out.cpu_flags();  // the source's, less its contamination figures
  }
}

// Per-second series, aligned on the wall clock (whole seconds; sub-second skew stays). Null
// when an input has none.
json merged_series(const std::vector<const RunRecord*>& runs, const Windows& w) {
  Series series;
  for (const RunRecord* r : runs) {
    Series s;
    if (!series_from_json(r->series, &s)) return nullptr;
    const double start = double(r->started_unix_ns) / 1e9;
    series.merge(s, w.have_starts ? size_t(std::llround(std::max(0.0, start - w.first_start))) : 0);
  }
  return series_json(series, 0);
}

json merge_account(const std::vector<const RunRecord*>& runs, const std::vector<std::string>& names, const Windows& w,
                   size_t chosen) {
  json clients = json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = *runs[i];
    clients.push_back({{"file", input_name(names, i)},
                       {"requests", r.requests},
                       {"throughput_rps", r.throughput_rps},
                       {"started_unix_ns", r.started_unix_ns},
                       {"duration_s", r.duration_s},
                       {"start_late_ms", r.start_late_ms ? json(*r.start_late_ms) : json(nullptr)},
                       {"client_cpu_us_per_req", r.client_cpu_us_per_req},
                       {"contaminated", r.contaminated ? json(*r.contaminated) : json(nullptr)}});
  }
  return {{"inputs", runs.size()},
          {"files", names},
          {"clients", clients},
          {"window_overlap_s", w.overlap_s},
          {"overlap_fraction", w.overlap_fraction},
          {"server_figures_from", input_name(names, chosen)},
          {"assumption",
           "the runs overlapped in time: throughput is the sum over clients; server and cache CPU per "
           "request come from one client's /stats delta (it already counts every client's requests)"}};
}

}  // namespace

Result<RunRecord> merge_runs(const std::vector<const RunRecord*>& runs, const std::vector<std::string>& names,
                             std::vector<std::string>* warnings) {
  if (runs.empty()) return Error{Errc::invalid_argument, "nothing to merge"};
  if (const auto dup = same_run_twice(runs, names)) return Error{Errc::invalid_argument, *dup};
  const MergedHistograms hists(runs);
  if (!hists.have[0])
    return Error{Errc::parse_error, "every input needs a \"histogram\" (written by hitcost-load --json)"};

  RunRecord out = *runs.front();  // context fields (mode, strategy, store, keys, rows...) from the first
  add_client_counts(runs, out);
  const Windows windows(runs);
  windows.warn(warnings);
  out.duration_s = windows.longest;
  out.started_unix_ns = windows.first_ns;
  out.snapshot_window_s = windows.longest;
  const size_t chosen = server_figures_source(runs, windows);
  take_server_figures(*runs[chosen], runs, out);
  // One client asks for the floor (topology.sh: the others --no-floor, so that K calibrations
  // do not share the server's threads): the first input that has one.
  for (const RunRecord* r : runs)
    if (r->floor.is_object()) {
      out.floor = r->floor;
      out.floor_error.reset();
      break;
    }
  if (hists.hit().count() + hists.miss().count() > 0)  // X-Cache over all clients' own answers
    out.hit_ratio = double(hists.hit().count()) / double(hists.hit().count() + hists.miss().count());
  hists.into(out);
  out.series = merged_series(runs, windows);
  out.merged = merge_account(runs, names, windows, chosen);
  return out;
}

Result<json> merge_docs(const std::vector<json>& docs, const std::vector<std::string>& names,
                        std::vector<std::string>* warnings) {
  size_t sweeps = 0;
  for (const json& d : docs) sweeps += d.contains("runs") && d["runs"].is_array();
  if (sweeps != 0 && sweeps != docs.size())
    return Error{Errc::invalid_argument, "cannot merge sweep JSONs with single-run JSONs"};
  std::vector<std::vector<RunRecord>> inputs;
  for (size_t i = 0; i < docs.size(); ++i) {
    inputs.push_back(records_of(docs[i]));
    if (sweeps == 0 && inputs.back().empty())
      return Error{Errc::invalid_argument, input_name(names, i) + " is not a run JSON (not an object)"};
  }
  if (sweeps == 0) {
    std::vector<const RunRecord*> runs;
    for (const auto& in : inputs) runs.push_back(&in.front());
    auto merged = merge_runs(runs, names, warnings);
    if (!merged) return merged.error();
    return json(*merged);
  }
  // Sweeps: the same (strategy [log mode], store, repeat) from every client becomes one run.
  using Key = std::tuple<std::string, std::string, int>;
  std::vector<Key> order;
  std::map<Key, std::pair<std::vector<const RunRecord*>, std::vector<std::string>>> groups;
  for (size_t i = 0; i < inputs.size(); ++i)
    for (const RunRecord& r : inputs[i]) {
      const Key key{r.row_label(), r.sweep_store.value_or(r.store), r.repeat.value_or(-1)};
      if (!groups.count(key)) order.push_back(key);
      groups[key].first.push_back(&r);
      groups[key].second.push_back(input_name(names, i));
    }
  std::vector<RunRecord> runs;
  for (const Key& key : order) {
    auto& [members, files] = groups[key];
    if (members.size() != docs.size())
      warnings->push_back(std::get<0>(key) + " repeat " + std::to_string(std::get<2>(key)) + " is in only " +
                          std::to_string(members.size()) + " of " + std::to_string(docs.size()) + " inputs");
    std::vector<std::string> run_warnings;
    auto merged = merge_runs(members, files, &run_warnings);
    if (!merged) return merged.error();
    for (auto& w : run_warnings) warnings->push_back(std::get<0>(key) + ": " + w);
    runs.push_back(std::move(merged).value());
  }
  json out = summarize_runs_json(runs, summary_options_of(docs.front()));
  out["runs"] = runs;
  out["merged"] = {{"inputs", docs.size()}, {"files", names}};
  return out;
}

}  // namespace hitcost::client
