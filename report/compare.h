#pragma once
// `hitcost-load compare c++=A.json php=B.json c++=C.json php=D.json [--baseline c++]`: the
// same strategies measured on different backends (hitcost-server and the PHP application
// reading the same values, say), compared strategy by strategy. Each input is a sweep JSON
// labelled with the backend it measured; the capacity runs of all inputs are pooled, the
// rows become backends grouped by strategy, and every backend is compared with the baseline
// backend on each strategy by the sweep's own verdict rule (report/summary.h), corrected for
// the number of comparisons. Give the sweeps of the backends alternately (round by round)
// so that drift hits both alike; the inputs' order is kept in the output.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "report/run_record.h"
#include "report/summary.h"

namespace hitcost::client {

// "php=out/php-1.json" → {"php", "out/php-1.json"}; nullopt when there is no '=' or a side is empty.
std::optional<std::pair<std::string, std::string>> parse_labelled_input(const std::string& text);

// The pooled runs: each capacity run of `docs[i].second` (a sweep JSON with "runs") with its
// row label (strategy, with " NAME=VALUE ..." from a sweep with axes) moved to sweep_store,
// axes cleared and strategy set to the label `docs[i].first`. Latency runs
// are left out (their rates differ between backends). Rounds: the k-th input of a label is
// round k (a sweep's own rounds within it follow: round k·R + r for a sweep of R rounds), so
// that the verdicts pair each backend's run with the baseline's of the same round. invalid_argument for a doc without
// runs, or when no input has a capacity run.
Result<std::vector<RunRecord>> pool_backend_runs(const std::vector<std::pair<std::string, nlohmann::json>>& docs);

// Summary options for a pooled comparison: rows are backends (baseline first), grouped by strategy.
SummaryOptions compare_options(const std::vector<std::string>& labels, const std::string& baseline,
                               const VerdictOptions& verdict);

}  // namespace hitcost::client
