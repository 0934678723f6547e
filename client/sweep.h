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
// The summary, verdicts and reports come from client/summary.h.
//
// With --log-modes the cells are strategy × log mode: each strategy is still warmed once (the
// access log changes no stored value, so the namespace stays the strategy's), and every round
// runs all cells in a shuffled order. Before anything is measured the server is asked about
// every mode; one it refuses (no --access-log, a bad mode) ends the sweep with its reason.
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/options.h"
#include "client/summary.h"
#include "core/result.h"

namespace hitcost::client {

// The config body for one store × strategy (namespace unique per strategy/store/rows/flags/
// threshold, not per log mode) with "log": `log_mode` unless it is "" (then no "log" key: the
// server keeps its logging).
nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy,
                            const std::string& log_mode = "");

// One cell of a store: what one measured run configures.
struct SweepCell {
  std::string store, strategy, log_mode;  // as asked; "" store = the server's, "" log mode = not set
  std::string label;                      // its summary row: sweep_row_label(strategy, log_mode)
  nlohmann::json config;                  // the POST /admin/config body (sweep_config)
};
// Every strategy × every log mode, strategy-major (a strategy's cells are adjacent, under the
// modes in the order given); no log modes: one cell per strategy, as a sweep always had.
std::vector<SweepCell> sweep_cells(const SweepOptions& o, const std::string& store,
                                   const std::vector<std::string>& strategies,
                                   const std::vector<std::string>& log_modes);

// The summary's row order (every cell's label, in sweep_cells' order) and baseline (--baseline,
// default the first strategy, under the first log mode), with --alpha and --min-effect.
// invalid_argument when --baseline is not one of `strategies`.
Result<SummaryOptions> sweep_summary_options(const SweepOptions& o, const std::vector<std::string>& strategies,
                                             const std::vector<std::string>& log_modes);

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
