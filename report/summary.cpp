#include "report/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/floor_summary.h"
#include "report/noise.h"

namespace hitcost::client {

namespace {

using nlohmann::json;

// The verdict figure of a run: the server's CPU per hit; per request where a run lacks it.
std::optional<double> per_hit(const RunRecord& r) { return r.server_cpu_us_per_hit; }
// The run's field the per-request figure is (its flag's name): the attributed figure, or
// server_cpu_us_per_req for a run saved before CPU accounting.
const std::optional<double>& per_request_field(const RunRecord& r) {
  if (r.cpu && r.cpu->per_request_us.attributed.server) return r.cpu->per_request_us.attributed.server;
  return r.server_cpu_us_per_req;
}
std::optional<double> per_request(const RunRecord& r) { return per_request_field(r); }
std::optional<double> memory_mib(const RunRecord& r, const char* key) {
  const json& m = r.server_memory_kb;
  if (!m.is_object() || !m.contains(key) || !m[key].is_number()) return std::nullopt;
  return m[key].get<double>() / 1024;
}

std::string fmt(const char* f, auto... args) {
  char buf[512];  // a table line with a long row label ("... log=buffered:64k+sync:1000") fits
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
json range_json(const std::optional<Range>& r) {
  if (!r) return nullptr;
  return {{"min", r->min}, {"median", r->median}, {"max", r->max}};
}
std::string range_text(const std::optional<Range>& r, const char* f) {
  if (!r) return "-";
  return fmt(f, r->median) + " [" + fmt(f, r->min) + ".." + fmt(f, r->max) + "]";
}
json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Which figures a capacity run is left out of, and why: errors, a missing or flagged verdict
// figure and a hit ratio off target from all of them; other work only from those it moves
// (report/noise.h).
struct RunUse {
  std::string why_not;  // "errors", "no_figures", "flagged", "hit_ratio": left out of every figure; "" = kept
  bool cpu = false, capacity = false;
  double cpu_bias = 0;  // the bound of how high other work may have pushed its CPU figures
};
RunUse run_use(const RunRecord& r, const SummaryOptions& o, bool per_hit_metric) {
  RunUse u;
  if (r.errors_total > 0)
    u.why_not = "errors";
  else if (!(per_hit_metric ? per_hit(r) : per_request(r)))
    u.why_not = "no_figures";
  // A verdict figure that cannot be right (report/run_record.h flag_of) feeds no verdict.
  else if (r.flag_of(per_hit_metric ? r.server_cpu_us_per_hit : per_request_field(r)))
    u.why_not = "flagged";
  else if (r.target_hit_ratio && std::abs(*r.target_hit_ratio - r.hit_ratio) > o.hit_ratio_tolerance)
    u.why_not = "hit_ratio";
  if (!u.why_not.empty()) return u;
  const NoiseEffect noise = noise_effect(r);
  u.cpu = !noise.moves_cpu;
  u.capacity = !noise.moves_capacity;
  u.cpu_bias = noise.cpu_move;
  return u;
}

// The round a run belongs to: the sweep's, else its repeat index, else its place among its row's runs.
int round_of(const RunRecord& r, int place) { return r.round.value_or(r.repeat.value_or(place)); }

// The metric: per hit when every capacity run carries it (a run saved by an older client, or a
// server without sampling, falls back to per request for the whole table).
bool every_run_has_per_hit(const std::vector<RunRecord>& runs) {
  for (const RunRecord& r : runs)
    if (!r.is_latency_run() && r.errors_total == 0 && !per_hit(r)) return false;
  return true;
}

using RowKey = std::pair<std::string, std::string>;  // (store, row label: strategy [log=MODE])

// The runs of each store × strategy, rows in the order asked for (the sweep's --strategies,
// stores as first seen), not in the shuffled run order.
std::vector<std::pair<RowKey, std::vector<const RunRecord*>>> rows_in_order(const std::vector<RunRecord>& runs,
                                                                            const SummaryOptions& o) {
  std::vector<std::pair<RowKey, std::vector<const RunRecord*>>> rows;
  std::vector<std::string> store_order;
  for (const RunRecord& r : runs) {
    const RowKey key{r.group_store(), r.row_label()};
    auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.first == key; });
    if (it == rows.end()) {
      rows.push_back({key, {}});
      it = rows.end() - 1;
    }
    it->second.push_back(&r);
    if (std::find(store_order.begin(), store_order.end(), key.first) == store_order.end())
      store_order.push_back(key.first);
  }
  auto rank = [&](const std::string& strategy) {
    const auto it = std::find(o.order.begin(), o.order.end(), strategy);
    return it == o.order.end() ? o.order.size() : size_t(it - o.order.begin());
  };
  auto store_rank = [&](const std::string& s) {
    return size_t(std::find(store_order.begin(), store_order.end(), s) - store_order.begin());
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return std::pair(store_rank(a.first.first), rank(a.first.second)) <
           std::pair(store_rank(b.first.first), rank(b.first.second));
  });
  return rows;
}

// The figures of the runs taken into a row, gathered before they become ranges.
struct RowFigures {
  std::vector<double> rps, hit, req, cache, client, total, ratio, own, file;
  FloorFigures floor;
  void take(const RunRecord& r, SweepRow& row) {
    floor.take(r);
    // A flagged CPU figure (a field of `r`) goes into no median: counted instead.
    auto unflagged = [&](const std::optional<double>& field) -> std::optional<double> {
      if (field && r.flag_of(field)) {
        ++row.flagged_figures;
        return std::nullopt;
      }
      return field;
    };
    static const std::optional<double> kNone;
    const PartyUsRecord* attributed = r.cpu ? &r.cpu->per_request_us.attributed : nullptr;
    const PartyUsRecord* net = r.cpu ? &r.cpu->per_request_us.net : nullptr;
    // The cache's own figure where the attribution could split it from the client's, else
    // its sender-pays figure (marked).
    if (attributed && attributed->cache) {
      if (auto v = unflagged(attributed->cache)) cache.push_back(*v);
    } else if (auto w = unflagged(net ? net->cache : kNone)) {
      cache.push_back(*w);
      row.cache_sender_pays = true;
    }
    rps.push_back(r.throughput_rps);
    if (auto v = unflagged(r.server_cpu_us_per_hit)) hit.push_back(*v);
    if (auto v = unflagged(attributed ? attributed->client : kNone)) client.push_back(*v);
    if (auto v = unflagged(attributed ? attributed->total : kNone)) total.push_back(*v);
    ratio.push_back(r.hit_ratio);
    if (auto v = memory_mib(r, "process_own_kb")) own.push_back(*v);
    if (auto v = memory_mib(r, "store_file_resident_kb")) file.push_back(*v);
    if (auto v = unflagged(per_request_field(r))) req.push_back(*v);
  }
  void into(SweepRow& row) const {
    row.rps = Range::of(rps);
    row.server_hit = Range::of(hit);
    row.server_req = Range::of(req);
    row.cache_req = Range::of(cache);
    row.client_req = Range::of(client);
    row.total_req = Range::of(total);
    row.hit_ratio = Range::of(ratio);
    row.own_mib = Range::of(own);
    row.store_file_mib = Range::of(file);
    floor.into(row);
  }
};

void take_latency_run(const RunRecord& r, SweepRow& row) {
  row.latency_rate = r.rate_rps;
  row.p50_us = r.latency_us.p50;
  row.p99_us = r.latency_us.p99;
  row.p999_us = r.latency_us.p999;
  row.max_us = r.latency_us.max;
  row.lateness_p99_us = r.send_lateness_us.p99;
  row.latency_errors = r.errors_total;
  row.latency_unsent = r.unsent;
}

SweepRow summarize_row(const RowKey& key, const std::vector<const RunRecord*>& runs, const SummaryOptions& o,
                       bool per_hit_metric) {
  SweepRow row;
  row.store = key.first;
  row.strategy = key.second;
  if (!runs.empty()) row.axes = runs.front()->axes;  // the same in every run: they are in the key
  RowFigures kept;
  std::vector<double> capacity_rps;
  for (const RunRecord* r : runs) {
    if (r->is_latency_run()) {
      take_latency_run(*r, row);
      continue;
    }
    const int place = row.runs++;
    row.errors += r->errors_total;
    const RunUse use = run_use(*r, o, per_hit_metric);
    if (use.why_not == "errors") ++row.excluded_errors;
    if (use.why_not == "no_figures") ++row.excluded_no_figures;
    if (use.why_not == "hit_ratio") ++row.excluded_hit_ratio;
    if (use.why_not == "flagged") ++row.excluded_flagged;
    if (!use.why_not.empty()) continue;
    if (use.capacity) {
      ++row.used_capacity;
      capacity_rps.push_back(r->throughput_rps);
    } else {
      ++row.excluded_noise_capacity;
    }
    if (!use.cpu) {
      ++row.excluded_noise_cpu;
      continue;
    }
    ++row.used;
    const std::string attribution = r->attribution();
    row.attribution = row.attribution.empty() || row.attribution == attribution ? attribution : "mixed";
    row.metric_values.push_back(*(per_hit_metric ? per_hit(*r) : per_request(*r)));
    row.metric_rounds.push_back(round_of(*r, place));
    row.metric_bias.push_back(use.cpu_bias);
    kept.take(*r, row);
  }
  // Nothing kept: the figures of the runs left out, marked, so that a busy machine still
  // shows what it measured; they never feed a verdict.
  if (row.used == 0 && row.runs > 0) {
    row.from_left_out = true;
    for (const RunRecord* r : runs)
      if (!r->is_latency_run()) kept.take(*r, row);
  }
  kept.into(row);
  // req/s only from the runs other work did not slow down (the CPU figures keep more runs).
  if (!row.from_left_out) row.rps = Range::of(capacity_rps);
  return row;
}

// Each store's strategies against its baseline, as one family over the whole sweep:
// m = Σ over stores (strategies − 1).
void add_verdicts(Summary& out, const SummaryOptions& o) {
  std::map<std::string, std::vector<Sample>> by_store;
  std::vector<std::string> stores;
  for (const SweepRow& row : out.rows) {
    if (row.runs == 0) continue;
    if (!by_store.count(row.store)) stores.push_back(row.store);
    by_store[row.store].push_back({row.strategy, row.metric_values, row.metric_rounds, row.metric_bias});
  }
  for (const auto& store : stores) out.comparisons += by_store[store].size() - 1;
  if (o.family) out.comparisons = std::max(out.comparisons, o.family);
  for (const auto& store : stores) {
    const auto& samples = by_store[store];
    if (samples.size() < 2) continue;
    const bool named =
        std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.name == o.baseline; });
    const std::string baseline = named ? o.baseline : samples.front().name;
    for (Verdict& v : compare_to_baseline(samples, baseline, out.metric, o.verdict, out.comparisons))
      out.verdicts.emplace_back(store, std::move(v));
  }
}

}  // namespace

Summary summarize(const std::vector<RunRecord>& runs, const SummaryOptions& o) {
  Summary out;
  out.options = o;
  const bool per_hit_metric = every_run_has_per_hit(runs);
  out.metric = per_hit_metric ? "server CPU per hit" : "server CPU per request";
  for (const auto& [key, members] : rows_in_order(runs, o))
    out.rows.push_back(summarize_row(key, members, o, per_hit_metric));
  out.noise = noise_note(runs);
  for (const RunRecord& r : runs)
    if (r.replay.is_object())
      out.load = "replay of " + r.replay.value("trace", std::string("a trace")) + ", open loop at its own pace x " +
                 fmt("%g", r.replay.value("speed", 1.0));
  add_verdicts(out, o);
  return out;
}

Summary summarize(const json& runs, const SummaryOptions& o) {
  std::vector<RunRecord> records;
  for (const json& r : runs) records.push_back(r.get<RunRecord>());
  return summarize(records, o);
}

nlohmann::json summary_options_json(const SummaryOptions& o) {
  return {{"baseline", o.baseline},
          {"order", o.order},
          {"alpha", o.verdict.alpha},
          {"min_effect", o.verdict.min_effect},
          {"hit_ratio_tolerance", o.hit_ratio_tolerance},
          {"looks", o.verdict.sequential ? "sequential" : "one"},
          {"min_rounds", o.verdict.design.min_rounds},
          {"max_rounds", o.verdict.design.max_rounds},
          {"spending_gamma", o.verdict.design.gamma}};
}

SummaryOptions summary_options_of(const json& doc) {
  SummaryOptions o;
  if (!doc.contains("verdict_options") || !doc["verdict_options"].is_object()) return o;
  const json& v = doc["verdict_options"];
  o.baseline = v.value("baseline", std::string());
  if (v.contains("order") && v["order"].is_array())
    for (const auto& s : v["order"])
      if (s.is_string()) o.order.push_back(s.get<std::string>());
  o.verdict.alpha = v.value("alpha", o.verdict.alpha);
  o.verdict.min_effect = v.value("min_effect", o.verdict.min_effect);
  o.hit_ratio_tolerance = v.value("hit_ratio_tolerance", o.hit_ratio_tolerance);
  // A sweep saved before sequential looks had one look at its last round.
  o.verdict.sequential = v.value("looks", std::string("one")) == "sequential";
  o.verdict.design.min_rounds = v.value("min_rounds", o.verdict.design.min_rounds);
  o.verdict.design.max_rounds = v.value("max_rounds", o.verdict.design.max_rounds);
  o.verdict.design.gamma = v.value("spending_gamma", o.verdict.design.gamma);
  return o;
}

const std::vector<RangeColumn>& range_columns() {
  static const std::vector<RangeColumn> columns = {
      {"throughput_rps", "rps", "req/s (capacity)", "%.0f", &SweepRow::rps},
      {"server_cpu_us_per_hit", "server_cpu_us_per_hit", "server µs/hit", "%.2f", &SweepRow::server_hit},
      {"server_cpu_us_per_req", "server_cpu_us_per_req", "server µs/req", "%.2f", &SweepRow::server_req},
      {"cache_cpu_us_per_req", "cache_cpu_us_per_req", "cache µs/req", "%.2f", &SweepRow::cache_req},
      {"client_cpu_us_per_req", "client_cpu_us_per_req", nullptr, "%.2f", &SweepRow::client_req},
      {"total_cpu_us_per_req", "total_cpu_us_per_req", "total µs/req", "%.2f", &SweepRow::total_req},
      {"hit_ratio", "hit_ratio", "hit ratio", "%.3f", &SweepRow::hit_ratio},
      {"server_own_memory_mib", "server_own_mib", "server MiB, own", "%.0f", &SweepRow::own_mib},
      {"store_file_resident_mib", "store_file_mib", "store file MiB, cached", "%.0f", &SweepRow::store_file_mib},
  };
  return columns;
}

json summary_json(const Summary& s) {
  json rows = json::array(), verdicts = json::array();
  for (const SweepRow& r : s.rows) {
    json row = {{"store", r.store},
                {"strategy", r.strategy},
                {"runs", r.runs},
                {"used", r.used},
                {"used_capacity", r.used_capacity},
                {"excluded",
                 {{"errors", r.excluded_errors},
                  {"no_figures", r.excluded_no_figures},
                  {"hit_ratio", r.excluded_hit_ratio},
                  {"noise_cpu", r.excluded_noise_cpu},
                  {"noise_capacity", r.excluded_noise_capacity}}},
                {"errors", r.errors},
                {"attribution", r.attribution},
                {"cache_cpu_sender_pays", r.cache_sender_pays},
                {"figures_from_left_out_runs", r.from_left_out},
                {"metric_values", r.metric_values},
                {"metric_rounds", r.metric_rounds},
                {"metric_bias", r.metric_bias},
                {"latency", r.latency_rate ? json{{"rate_rps", *r.latency_rate},
                                                  {"p50_us", opt(r.p50_us)},
                                                  {"p99_us", opt(r.p99_us)},
                                                  {"p999_us", opt(r.p999_us)},
                                                  {"max_us", opt(r.max_us)},
                                                  {"send_lateness_p99_us", opt(r.lateness_p99_us)},
                                                  {"errors", r.latency_errors},
                                                  {"unsent", r.latency_unsent}}
                                           : json(nullptr)}};
    for (const RangeColumn& c : range_columns()) row[c.json] = range_json(r.*c.member);
    if (!r.axes.empty()) row["axes"] = r.axes;  // absent without sweep axes: saved sweeps unchanged
    // Absent when nothing was flagged: saved sweeps summarise into what they saved.
    if (r.excluded_flagged) row["excluded"]["flagged"] = r.excluded_flagged;
    if (r.flagged_figures) row["flagged_figures"] = r.flagged_figures;
    if (r.floor_hit) row["floor"] = floor_json(r);  // absent without floors: saved sweeps unchanged
    rows.push_back(std::move(row));
  }
  for (const auto& [store, v] : s.verdicts)
    verdicts.push_back({{"store", store},
                        {"subject", v.subject},
                        {"baseline", v.baseline},
                        {"metric", v.metric},
                        {"kind", to_string(v.kind)},
                        {"decided", v.decided()},
                        {"ratio", opt(v.ratio)},
                        {"low", opt(v.low)},
                        {"high", opt(v.high)},
                        {"confidence", v.confidence},
                        {"pairs", v.pairs},
                        {"decided_after_rounds", v.decided_at ? json(v.decided_at) : json(nullptr)},
                        {"more_rounds", v.more_rounds ? json(*v.more_rounds) : json(nullptr)},
                        {"text", (store.empty() ? "" : "[" + store + "] ") + v.text}});
  return {{"summary", rows},    {"verdicts", verdicts},
          {"metric", s.metric}, {"comparisons", s.comparisons},
          {"noise", s.noise},   {"verdict_options", summary_options_json(s.options)}};
}

json summarize_runs_json(const json& runs, const SummaryOptions& o) { return summary_json(summarize(runs, o)); }
json summarize_runs_json(const std::vector<RunRecord>& runs, const SummaryOptions& o) {
  return summary_json(summarize(runs, o));
}

std::string verdict_header(const Summary& s) {
  const VerdictOptions& v = s.options.verdict;
  const std::string looks = v.sequential ? fmt("looked at after every round from %d, the error spent by round %d",
                                               std::max(2, v.design.min_rounds), v.design.max_rounds)
                                         : std::string("one look, after the last round");
  return fmt(
      "verdicts on %s, each against the baseline, paired by round (%s): \"costs\" ratio [interval], \"the "
      "same within %.0f %%\", or undecided; every interval of the %zu comparison%s holds together at %.0f %%",
      s.metric.c_str(), looks.c_str(), v.min_effect * 100, s.comparisons, s.comparisons == 1 ? "" : "s",
      (1 - v.alpha) * 100);
}

std::string capacity_runs_note(const SweepRow& r) {
  return r.used_capacity < r.used ? fmt(" (%d)", r.used_capacity) : "";
}

namespace {

// The widths of the tables' first two columns: 22 as always for the row label, wider only for
// longer labels ("struct:json+zlib log=buffered:64k+sync:1000"); the store column fits its header.
struct SummaryWidths {
  int label = 22, store = 5;
};
SummaryWidths summary_widths(const Summary& s) {
  SummaryWidths w;
  w.store = std::max(w.store, int(s.options.group_label.size()));
  for (const auto& r : s.rows) w.store = std::max(w.store, int(r.store.size()));
  for (const auto& r : s.rows) w.label = std::max(w.label, int(r.strategy.size()));
  return w;
}

// The capacity and CPU table: its heading, a line per row with runs, and the notes under it.
std::string capacity_table(const Summary& s, const SummaryWidths& w) {
  std::string out;
  std::string attribution;
  for (const auto& r : s.rows)
    if (!r.attribution.empty())
      attribution = attribution.empty() || attribution == r.attribution ? r.attribution : "mixed";
  out += fmt("capacity and CPU: %s; CPU net of idle, %s; figures are median [min..max] of the kept runs\n",
             s.load.c_str(), attribution.empty() ? "sender-pays" : attribution.c_str());
  const bool file_store =
      std::any_of(s.rows.begin(), s.rows.end(), [](const SweepRow& r) { return r.store_file_mib.has_value(); });
  out +=
      fmt("%-*s %-*s %-5s %-24s %-24s %-24s %-22s %-22s %-9s %s\n", w.label, s.options.row_label.c_str(), w.store,
          s.options.group_label.c_str(), "kept", "req/s (capacity)", "server us/hit", "server us/req", "cache us/req",
          "total us/req", "hit ratio", file_store ? "server MiB own / store file cached" : "server MiB own");
  for (const auto& r : s.rows) {
    if (r.runs == 0) continue;
    out +=
        fmt("%-*s %-*s %-5s %-24s %-24s %-24s %-22s %-22s %-9s %s\n", w.label, r.strategy.c_str(), w.store,
            r.store.empty() ? "-" : r.store.c_str(), fmt(r.from_left_out ? "%d/%d!" : "%d/%d", r.used, r.runs).c_str(),
            (range_text(r.rps, "%.0f") + capacity_runs_note(r)).c_str(), range_text(r.server_hit, "%.2f").c_str(),
            range_text(r.server_req, "%.2f").c_str(),
            (range_text(r.cache_req, "%.2f") + (r.cache_sender_pays ? " *" : "")).c_str(),
            range_text(r.total_req, "%.2f").c_str(), r.hit_ratio ? fmt("%.3f", r.hit_ratio->median).c_str() : "-",
            ((r.own_mib ? fmt("%.0f", r.own_mib->median) : std::string("-")) +
             (file_store ? " / " + (r.store_file_mib ? fmt("%.0f", r.store_file_mib->median) : std::string("-")) : ""))
                .c_str());
  }
  if (std::any_of(s.rows.begin(), s.rows.end(), [](const SweepRow& r) { return r.cache_sender_pays; }))
    out += "* sender-pays: the cache and this client share CPUs, so only their sum could be moved to the receiver\n";
  if (std::any_of(s.rows.begin(), s.rows.end(), [](const SweepRow& r) { return r.from_left_out; }))
    out +=
        "! no run of this strategy could be kept: its figures are from the runs left out (see why below) and are "
        "not compared\n";
  return out;
}

// "left out: ROW [STORE] (2 with errors, ...)" for the rows that kept fewer runs than they had;
// "" when every run was kept.
std::string left_out_line(const Summary& s) {
  int excluded = 0;
  for (const auto& r : s.rows) excluded += r.runs - r.used + r.excluded_noise_capacity;
  if (!excluded) return "";
  std::string out = "left out:";
  for (const auto& r : s.rows) {
    if (r.runs == r.used && r.excluded_noise_capacity == 0) continue;
    out += " " + r.strategy + (r.store.empty() ? "" : " [" + r.store + "]") + " (";
    std::string parts;
    for (auto [n, what] : {std::pair{r.excluded_errors, "with errors"},
                           {r.excluded_no_figures, "without server figures"},
                           {r.excluded_hit_ratio, "off the target hit ratio"},
                           {r.excluded_flagged, "with a CPU figure that cannot be right"},
                           {r.excluded_noise_cpu, "with other work enough to move CPU per hit"},
                           {r.excluded_noise_capacity, "from req/s only: other work enough to move it"}})
      if (n) parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    out += parts + ")";
  }
  return out + "\n";
}

// The open-loop latency table; "" when no row has a latency run.
std::string latency_table(const Summary& s, const SummaryWidths& w) {
  bool any_latency = false;
  for (const auto& r : s.rows) any_latency = any_latency || r.latency_rate.has_value();
  if (!any_latency) return "";
  std::string out = "\nlatency: open loop, every strategy at the same rate; from the intended send time (us)\n";
  out += fmt("%-*s %-*s %-10s %-10s %-10s %-10s %-10s %-16s %s\n", w.label, s.options.row_label.c_str(), w.store,
             s.options.group_label.c_str(), "req/s", "p50", "p99", "p99.9", "max", "send late p99", "errors");
  for (const auto& r : s.rows) {
    if (!r.latency_rate) continue;
    auto v = [](const std::optional<double>& x) { return x ? fmt("%.1f", *x) : std::string("-"); };
    out += fmt("%-*s %-*s %-10.0f %-10s %-10s %-10s %-10s %-16s %llu%s\n", w.label, r.strategy.c_str(), w.store,
               r.store.empty() ? "-" : r.store.c_str(), *r.latency_rate, v(r.p50_us).c_str(), v(r.p99_us).c_str(),
               v(r.p999_us).c_str(), v(r.max_us).c_str(), v(r.lateness_p99_us).c_str(),
               static_cast<unsigned long long>(r.latency_errors),
               r.latency_unsent
                   ? fmt(" (%llu never sent: overload)", static_cast<unsigned long long>(r.latency_unsent)).c_str()
                   : "");
  }
  return out;
}

}  // namespace

std::string format_summary(const Summary& s) {
  const SummaryWidths w = summary_widths(s);
  std::string out = capacity_table(s, w) + left_out_line(s) + floor_table(s, w.label, w.store) + latency_table(s, w);
  if (!s.noise.empty()) out += "\n" + s.noise + "\n";
  if (!s.verdicts.empty()) {
    out += "\n" + verdict_header(s) + "\n";
    for (const auto& [store, v] : s.verdicts) out += "  " + (store.empty() ? "" : "[" + store + "] ") + v.text + "\n";
  }
  return out;
}

std::string csv_summary(const Summary& s) {
  std::string out = "store,strategy,runs,used,errors,attribution";
  for (const RangeColumn& c : range_columns())
    for (const char* k : {"min", "median", "max"}) out += std::string(",") + c.csv + "_" + k;
  out += ",latency_rate_rps,p50_us,p99_us,p999_us,send_lateness_p99_us";
  // The floor's columns only in a sweep that has floors: the CSV of one without is as it was.
  const bool floors =
      std::any_of(s.rows.begin(), s.rows.end(), [](const SweepRow& r) { return r.floor_hit.has_value(); });
  if (floors) out += "," + floor_csv_header();
  out += "\n";
  auto cell = [](const std::optional<double>& v) { return v ? fmt("%.6g", *v) : std::string(); };
  for (const auto& r : s.rows) {
    if (r.runs == 0 && !r.latency_rate) continue;
    out += r.store + "," + r.strategy + "," + std::to_string(r.runs) + "," + std::to_string(r.used) + "," +
           std::to_string(r.errors) + "," + r.attribution;
    for (const RangeColumn& c : range_columns()) {
      const std::optional<Range>& range = r.*c.member;
      for (int k = 0; k < 3; ++k) {
        out += ',';  // appended apart: GCC 12's -Wrestrict false positive on "," + std::string&&
        if (range) out += cell(k == 0 ? range->min : k == 1 ? range->median : range->max);
      }
    }
    for (const auto* v : {&r.latency_rate, &r.p50_us, &r.p99_us, &r.p999_us, &r.lateness_p99_us}) {
      out += ',';
      out += cell(*v);
    }
    if (floors) out += "," + floor_csv_cells(r);
    out += "\n";
  }
  return out;
}

}  // namespace hitcost::client
