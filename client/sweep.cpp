#include "client/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>

#include "client/html_report.h"

namespace hitcost::client {

namespace {
nlohmann::json range_json(const std::optional<Range>& r) {
  if (!r) return nullptr;
  return {{"min", r->min}, {"median", r->median}, {"max", r->max}};
}
std::string range_text(const std::optional<Range>& r, const char* fmt) {
  if (!r) return "-";
  char a[32], b[32], c[32], out[128];
  std::snprintf(a, sizeof a, fmt, r->median);
  std::snprintf(b, sizeof b, fmt, r->min);
  std::snprintf(c, sizeof c, fmt, r->max);
  std::snprintf(out, sizeof out, "%s [%s..%s]", a, b, c);
  return out;
}
}  // namespace

SweepRow summarize(const std::string& store, const std::string& strategy, const std::vector<RunReport>& runs) {
  SweepRow row{store, strategy, int(runs.size()), 0, {}, {}, {}, {}, {}, {}};
  std::vector<double> rps, srv, cache, client, p50, p99;
  for (const auto& r : runs) {
    row.errors += r.load.errors.total();
    rps.push_back(r.throughput_rps());
    if (auto v = r.server_cpu_us_per_req()) srv.push_back(*v);
    if (auto v = r.cache_cpu_us_per_req()) cache.push_back(*v);
    client.push_back(r.client_cpu_us_per_req());
    p50.push_back(double(r.load.latency.value_at_percentile(50)) / 1000.0);
    p99.push_back(double(r.load.latency.value_at_percentile(99)) / 1000.0);
  }
  row.rps = Range::of(rps);
  row.server_cpu = Range::of(srv);
  row.cache_cpu = Range::of(cache);
  row.client_cpu = Range::of(client);
  row.p50_us = Range::of(p50);
  row.p99_us = Range::of(p99);
  return row;
}

nlohmann::json row_json(const SweepRow& row) {
  return {{"store", row.store},
          {"strategy", row.strategy},
          {"runs", row.runs},
          {"errors", row.errors},
          {"throughput_rps", range_json(row.rps)},
          {"server_cpu_us_per_req", range_json(row.server_cpu)},
          {"cache_cpu_us_per_req", range_json(row.cache_cpu)},
          {"client_cpu_us_per_req", range_json(row.client_cpu)},
          {"p50_us", range_json(row.p50_us)},
          {"p99_us", range_json(row.p99_us)}};
}

std::string format_table(const std::vector<SweepRow>& rows) {
  std::string out;
  char line[1024];
  int store_width = 10;
  for (const auto& r : rows) store_width = std::max(store_width, static_cast<int>(r.store.size()));
  std::snprintf(line, sizeof line, "%-22s %-*s %-26s %-24s %-22s %-22s %-22s %s\n", "strategy", store_width, "store",
                "req/s med [min..max]", "server us/req", "cache us/req", "p50 us", "p99 us", "errors");
  out += line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-22s %-*s %-26s %-24s %-22s %-22s %-22s %llu\n", r.strategy.c_str(),
                  store_width, r.store.empty() ? "-" : r.store.c_str(), range_text(r.rps, "%.0f").c_str(),
                  range_text(r.server_cpu, "%.2f").c_str(), range_text(r.cache_cpu, "%.2f").c_str(),
                  range_text(r.p50_us, "%.1f").c_str(), range_text(r.p99_us, "%.1f").c_str(),
                  static_cast<unsigned long long>(r.errors));
    out += line;
  }
  return out;
}

std::string csv_table(const std::vector<SweepRow>& rows) {
  std::string out = "store,strategy,runs,errors";
  for (const char* f : {"rps", "server_cpu_us", "cache_cpu_us", "client_cpu_us", "p50_us", "p99_us"})
    for (const char* s : {"min", "median", "max"}) out += std::string(",") + f + "_" + s;
  out += "\n";
  for (const auto& r : rows) {
    out += r.store + "," + r.strategy + "," + std::to_string(r.runs) + "," + std::to_string(r.errors);
    for (const auto* range : {&r.rps, &r.server_cpu, &r.cache_cpu, &r.client_cpu, &r.p50_us, &r.p99_us}) {
      for (int k = 0; k < 3; ++k) {
        out += ",";
        if (*range) {
          const double v = k == 0 ? (*range)->min : k == 1 ? (*range)->median : (*range)->max;
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.6g", v);
          out += buf;
        }
      }
    }
    out += "\n";
  }
  return out;
}

namespace {
std::optional<double> num_at(const nlohmann::json& j, const char* pointer) {
  const auto p = nlohmann::json::json_pointer(pointer);
  if (!j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}
std::string run_store(const nlohmann::json& run) {
  const std::string s = run.value("sweep_store", std::string());
  if (!s.empty()) return s;
  return run.contains("store") && run["store"].is_string() ? run["store"].get<std::string>() : "";
}
}  // namespace

nlohmann::json summarize_runs_json(const nlohmann::json& runs) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const nlohmann::json*>> groups;
  for (const auto& run : runs) {
    const auto key = std::make_pair(run_store(run), run.value("strategy", std::string()));
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&run);
  }
  nlohmann::json summary = nlohmann::json::array(), verdicts = nlohmann::json::array();
  std::map<std::string, std::vector<std::pair<std::string, Range>>> cpu_by_store;
  for (const auto& key : order) {
    SweepRow row{key.first, key.second, 0, 0, {}, {}, {}, {}, {}, {}};
    std::vector<double> rps, srv, cache, client, p50, p99;
    for (const nlohmann::json* r : groups[key]) {
      ++row.runs;
      row.errors += uint64_t(num_at(*r, "/errors/total").value_or(0));
      for (auto [vec, ptr] : {std::pair{&rps, "/throughput_rps"}, {&srv, "/server_cpu_us_per_req"},
                              {&cache, "/cache_cpu_us_per_req"}, {&client, "/client_cpu_us_per_req"},
                              {&p50, "/latency_us/p50"}, {&p99, "/latency_us/p99"}})
        if (auto v = num_at(*r, ptr)) vec->push_back(*v);
    }
    row.rps = Range::of(rps);
    row.server_cpu = Range::of(srv);
    row.cache_cpu = Range::of(cache);
    row.client_cpu = Range::of(client);
    row.p50_us = Range::of(p50);
    row.p99_us = Range::of(p99);
    if (row.server_cpu) cpu_by_store[key.first].emplace_back(key.second, *row.server_cpu);
    summary.push_back(row_json(row));
  }
  for (const auto& [store, entries] : cpu_by_store)
    for (const Verdict& v : judge_against_cheapest(entries, "server CPU per request"))
      verdicts.push_back({{"store", store}, {"subject", v.subject}, {"baseline", v.baseline}, {"metric", v.metric},
                          {"ratio", v.ratio}, {"conclusive", v.conclusive},
                          {"text", (store.empty() ? "" : "[" + store + "] ") + v.text}});
  return {{"summary", summary}, {"verdicts", verdicts}};
}

nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy) {
  std::string ns = "sw-" + namespace_token(strategy) + "-" + (store.empty() ? "cur" : namespace_token(store)) +
                   "-r" + std::to_string(o.rows);
  if (!o.flags.empty()) ns += "-" + namespace_token(o.flags);
  if (o.threshold) ns += "-t" + std::to_string(*o.threshold);
  nlohmann::json body = {{"strategy", strategy}, {"namespace", ns}, {"rows", o.rows}};
  if (!store.empty()) body["store"] = store;
  if (!o.flags.empty()) body["flags"] = o.flags;
  if (o.threshold) body["threshold"] = *o.threshold;
  return body;
}

int run_sweep(const SweepOptions& o, const std::atomic<bool>* stop) {
  std::string err;
  auto plan = build_plan(o, o.duration, 0, o.hit_ratio, std::nullopt, "", &err);
  if (!plan) {
    std::fprintf(stderr, "hitcost-load sweep: %s\n", err.c_str());
    return 2;
  }
  const auto strategies = split_list(o.strategies);
  std::vector<std::string> stores = split_list(o.stores);
  if (stores.empty()) stores.push_back("");
  if (strategies.empty()) {
    std::fprintf(stderr, "hitcost-load sweep: --strategies is empty\n");
    return 2;
  }
  nlohmann::json runs_json = nlohmann::json::array(), summary_json = nlohmann::json::array(),
                 verdicts_json = nlohmann::json::array();
  std::vector<SweepRow> rows;
  std::vector<std::string> verdict_lines;
  uint64_t next_miss = plan->keys.miss_start;
  int failures = 0;
  for (const auto& store : stores) {
    std::vector<std::pair<std::string, Range>> cpu_entries;
    for (const auto& strategy : strategies) {
      if (stop && stop->load()) return 130;
      const nlohmann::json body = sweep_config(o, store, strategy);
      HttpReply cfg = http_request(plan->endpoint, "POST", "/admin/config", body.dump());
      if (!cfg.ok()) {
        std::fprintf(stderr, "skip %s on %s: POST /admin/config: %s\n", strategy.c_str(),
                     store.empty() ? "current store" : store.c_str(), cfg.error.c_str());
        ++failures;
        continue;
      }
      // The server answers with its canonical config; X-Strategy must then match it.
      auto answered = nlohmann::json::parse(cfg.body, nullptr, false);
      LoadPlan p = *plan;
      p.expect_strategy = strategy;
      if (answered.is_object() && answered.contains("strategy") && answered["strategy"].is_string())
        p.expect_strategy = answered["strategy"].get<std::string>();
      // The table names the store that was measured, also when the sweep kept the server's.
      std::string shown_store = store;
      if (shown_store.empty() && answered.is_object() && answered.contains("store") && answered["store"].is_string())
        shown_store = answered["store"].get<std::string>();
      // Every page size the load will ask for must be in the store, or "99 % hits" is a lie.
      std::vector<int> warm_rows;
      for (const RowsShare& share : plan->rows_mix) warm_rows.push_back(share.rows);
      if (warm_rows.empty()) warm_rows.push_back(o.rows);
      bool warmed = true;
      for (int page_rows : warm_rows) {
        const std::string warm_target =
            "/admin/warm?from=0&to=" + std::to_string(o.keys) + "&rows=" + std::to_string(page_rows);
        HttpReply warm = http_request(plan->endpoint, "POST", warm_target, "", 600'000);
        if (!warm.ok()) {
          std::fprintf(stderr, "skip %s: POST %s: %s\n", strategy.c_str(), warm_target.c_str(), warm.error.c_str());
          warmed = false;
          break;
        }
        while (!warm.body.empty() && std::isspace(static_cast<unsigned char>(warm.body.back()))) warm.body.pop_back();
        if (!o.quiet) std::printf("%s%s%s: warmed %d rows: %s\n", strategy.c_str(), store.empty() ? "" : " on ",
                                  store.c_str(), page_rows, warm.body.c_str());
        auto w = nlohmann::json::parse(warm.body, nullptr, false);
        if (w.is_object() && w.value("errors", 0) > 0)
          std::fprintf(stderr, "warning: %d pages of %s could not be stored: expect a lower hit ratio\n",
                       w.value("errors", 0), strategy.c_str());
      }
      if (!warmed) {
        ++failures;
        continue;
      }
      std::vector<RunReport> reports;
      for (int rep = 0; rep < o.repeat; ++rep) {
        if (stop && stop->load()) return 130;
        p.keys.miss_start = next_miss;
        MeasureOptions mo;
        mo.progress = !o.no_progress && ::isatty(2);
        mo.retry_contaminated = o.retry_contaminated;
        RunReport r = measure_run(p, mo, stop);
        next_miss = std::max(next_miss, r.load.miss_end);
        r.requested_strategy = "";  // report the server's configured strategy
        r.sweep_store = store;
        r.repeat_index = rep;
        if (p.rows_mix.empty()) r.rows = o.rows;
        nlohmann::json j = to_json(r);
        j["strategy"] = strategy;
        j["sweep_store"] = store;
        runs_json.push_back(std::move(j));
        if (!o.quiet) std::printf("  run %d/%d: %s", rep + 1, o.repeat, format_terminal(r, true).c_str());
        if (!r.server) std::fprintf(stderr, "  server stats unavailable: %s\n", r.server_error.c_str());
        if (r.contaminated().value_or(false))
          std::fprintf(stderr, "  warning: run contaminated (%.2f cores used by other processes) after %d retr%s\n",
                       r.other_cores().value_or(0), r.contamination_retries,
                       r.contamination_retries == 1 ? "y" : "ies");
        reports.push_back(std::move(r));
      }
      SweepRow row = summarize(shown_store, strategy, reports);
      if (row.server_cpu) cpu_entries.emplace_back(strategy, *row.server_cpu);
      summary_json.push_back(row_json(row));
      rows.push_back(std::move(row));
    }
    for (const Verdict& v : judge_against_cheapest(cpu_entries, "server CPU per request")) {
      verdict_lines.push_back((store.empty() ? "" : "[" + store + "] ") + v.text);
      verdicts_json.push_back({{"store", store}, {"subject", v.subject}, {"baseline", v.baseline},
                               {"metric", v.metric}, {"ratio", v.ratio}, {"conclusive", v.conclusive},
                               {"text", v.text}});
    }
  }
  std::printf("\n%s\n", format_table(rows).c_str());
  for (const auto& line : verdict_lines) std::printf("%s\n", line.c_str());
  if (!o.json_out.empty()) {
    std::ofstream out(o.json_out);
    out << nlohmann::json{{"runs", runs_json}, {"summary", summary_json}, {"verdicts", verdicts_json}}.dump(2) << "\n";
    if (!out) std::fprintf(stderr, "cannot write %s\n", o.json_out.c_str());
  }
  if (!o.html_out.empty()) {
    const nlohmann::json doc{{"runs", runs_json}, {"summary", summary_json}, {"verdicts", verdicts_json}};
    std::string error;
    if (!write_html_report(o.html_out, {doc}, "hitcost sweep", &error))
      std::fprintf(stderr, "cannot write %s: %s\n", o.html_out.c_str(), error.c_str());
  }
  if (!o.csv_out.empty()) {
    std::ofstream out(o.csv_out);
    out << csv_table(rows);
    if (!out) std::fprintf(stderr, "cannot write %s\n", o.csv_out.c_str());
  }
  return failures ? 1 : 0;
}

}  // namespace hitcost::client
