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
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/options.h"

namespace hitcost::client {

// The config body for one store × strategy (namespace unique per strategy/store/rows/flags/threshold).
nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy);

// The order of `n` cells in round `round`: a permutation drawn from `seed` (the same seed,
// the same orders). Exposed for tests.
std::vector<size_t> round_order(size_t n, uint64_t seed, int round);

// Runs the whole sweep; returns the process exit code. Prints progress unless quiet.
int run_sweep(const SweepOptions& o, const std::atomic<bool>* stop);

}  // namespace hitcost::client
