#pragma once
// `hitcost-load sweep`: the comparison table. For each store × strategy it configures the
// server (POST /admin/config with a namespace of its own, so each strategy is measured on
// values it wrote itself), warms ids 0..keys-1, runs `repeat` measured runs, and reports
// min/median/max per figure plus verdicts against the cheapest strategy.
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/options.h"
#include "client/report.h"
#include "client/verdict.h"

namespace hitcost::client {

struct SweepRow {
  std::string store;
  std::string strategy;
  int runs = 0;
  uint64_t errors = 0;
  std::optional<Range> rps, server_cpu, cache_cpu, client_cpu, p50_us, p99_us;
};

// Figures of one store × strategy from its repeats.
SweepRow summarize(const std::string& store, const std::string& strategy, const std::vector<RunReport>& runs);
nlohmann::json row_json(const SweepRow& row);
std::string format_table(const std::vector<SweepRow>& rows);
std::string csv_table(const std::vector<SweepRow>& rows);

// The same figures from run JSONs (to_json's, a saved sweep's "runs", merged runs): rows
// grouped by (sweep_store | store, strategy) in first-seen order, verdicts on server CPU per
// request within each store. Returns {"summary": [...], "verdicts": [...]} as the sweep writes.
nlohmann::json summarize_runs_json(const nlohmann::json& runs);

// The config body for one store × strategy (namespace unique per strategy/store/rows/flags/threshold).
nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy);

// Runs the whole sweep; returns the process exit code. Prints progress unless quiet.
int run_sweep(const SweepOptions& o, const std::atomic<bool>* stop);

}  // namespace hitcost::client
