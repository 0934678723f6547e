#pragma once
// `hitcost-load sweep`: the comparison. For each store, every strategy is configured under a
// namespace of its own (POST /admin/config) and warmed (ids 0..keys-1), so each is measured on
// values it wrote itself and all stay in the store together. Then `repeat` rounds: in each
// round every strategy runs once, in an order shuffled anew per round from the printed seed,
// so drift, a filling cache or a noisy neighbour hits every strategy alike (runs of one
// strategy taken in one block confound all of that with the strategy). Each run measures the
// idle baseline first, then a closed loop (capacity, CPU per hit).
//
// Then, unless --latency-rate 0, one open-loop run per strategy at one common rate (auto: half
// the slowest strategy's median capacity), for latency that is the server's and not queueing.
// The summary, verdicts and reports come from report/summary.h.
//
// With axes (--axis NAME=V1,V2, --log-modes; client/sweep_axes.h) the cells are strategy × every
// value of every axis: each distinct stored form (namespace) is warmed once (the access log or
// the load threads change no stored value, so those cells share the strategy's), and every round
// runs all cells in a shuffled order. Before anything is measured the server is asked about
// every server-side value; one it refuses (no --access-log, a bad mode) ends the sweep with its
// reason.
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/options.h"
#include "client/sweep_axes.h"
#include "core/result.h"
#include "report/summary.h"

namespace hitcost::client {

// The threshold a strategy is stored under: its entry of --thresholds, else --threshold (none:
// the server's). check_thresholds: --thresholds has one byte count per --strategies entry and
// comes without --threshold.
std::optional<int64_t> threshold_of(const SweepOptions& o, const std::string& strategy);
Result<Ok> check_thresholds(const SweepOptions& o);

// The config body for one store × strategy with the cell's server-side settings (log, rows).
// Its namespace is unique per stored form (strategy/store/rows/flags/threshold), not per log
// mode; without a "log" setting there is no "log" key (the server keeps its logging).
nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy,
                            const AxisSettings& settings = {});

// One cell of a store: what one measured run configures.
struct SweepCell {
  std::string store, strategy;  // as asked; "" store = the server's
  AxisSettings axes;            // its value of every axis given
  std::string label;            // its summary row: sweep_row_label(strategy, axes)
  nlohmann::json config;        // the POST /admin/config body (sweep_config)
  // The load plan of its runs: the sweep's with the client-side settings (threads, connections).
  LoadPlan plan_of(const LoadPlan& sweep_plan) const;
};
// Every strategy × every value of every axis, strategy-major (a strategy's cells are adjacent,
// the axes varied in the order given, the last fastest); no axes: one cell per strategy, as a
// sweep always had.
std::vector<SweepCell> sweep_cells(const SweepOptions& o, const std::string& store,
                                   const std::vector<std::string>& strategies, const std::vector<AxisValues>& axes);

// The summary's row order (every cell's label, in sweep_cells' order) and baseline (--baseline,
// default the first strategy, under the first value of every axis), with --alpha and
// --min-effect. invalid_argument when --baseline is not one of `strategies`.
Result<SummaryOptions> sweep_summary_options(const SweepOptions& o, const std::vector<std::string>& strategies,
                                             const std::vector<AxisValues>& axes);

// The axes a sweep's options ask for: --log-modes (the log axis) and each --axis, in that order.
// invalid_argument for a bad one, an axis given twice, or a server-side axis with --admin-url.
Result<std::vector<AxisValues>> sweep_axes_of(const SweepOptions& o);

// The open-loop rate of the latency runs as a fraction of the slowest cell's median capacity:
// low enough that queueing stays small and no request is due before the one before it is
// answered, high enough that the server is busy.
inline constexpr double kLatencyRateOfCapacity = 0.5;

// The order of `n` cells in round `round`: a permutation drawn from `seed` (the same seed,
// the same orders). Exposed for tests.
std::vector<size_t> round_order(size_t n, uint64_t seed, int round);

// Runs the whole sweep; returns the process exit code. Prints progress unless quiet.
int run_sweep(const SweepOptions& o, const std::atomic<bool>* stop);

}  // namespace hitcost::client
