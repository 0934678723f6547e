#pragma once
// `hitcost-load merge`: one report from the JSONs of several client machines that loaded the
// same server at the same time (one machine cannot always out-generate the server).
//
// What adds up and what does not:
// - Latency histograms merge exactly, bucket by bucket (same fixed layout everywhere), so
//   merged percentiles are those of all samples together; per-second series merge exactly
//   too (coarse histograms), aligned by each run's started_unix_ns (wall clocks: keep them
//   NTP-synced). Requests, errors by kind, unsent/unfinished add up.
// - Throughput is the SUM of the clients' throughputs. That is right only if the runs
//   overlapped in time; the merged JSON reports the common window (window_overlap_s and
//   overlap_fraction of the longest window) and warns below 90 %.
// - Server and cache CPU per request are NOT summed: each client's /stats delta already
//   contains every client's requests (the server cannot tell them apart), so each client
//   computed the server-wide figure over its own window. Summing would count the server K
//   times. They are taken from one client — the one whose window covers the others best —
//   and named in merged.server_figures_from.
// - Client CPU per request = sum of client CPU seconds / sum of requests (each client counts
//   only itself). Contaminated if any client's machine was.
// - The floor (one calibration, not K: topology.sh asks it of client 1 alone) comes from the
//   first input that has one; how late each client started after --start-at is listed with
//   it in merged.clients (start_late_ms).
// Sweep JSONs: runs with the same (strategy, store, repeat) are merged, then the summary and
// verdicts are recomputed from the merged runs.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "report/run_record.h"

namespace hitcost::client {

// `names` label the inputs (file names) in merged.* fields. An error (invalid_argument: mixed
// kinds, the same run twice; parse_error: an input without a histogram) when the inputs
// cannot be merged. Notes for people in *warnings.
Result<nlohmann::json> merge_docs(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names,
                                  std::vector<std::string>* warnings);

// Merges the records of one run from several clients (the building block of merge_docs), in
// steps: histograms bucket by bucket, the clients' own counts summed, the common window, the
// server figures from one client, the per-second series aligned, merged.* saying how.
Result<RunRecord> merge_runs(const std::vector<const RunRecord*>& runs, const std::vector<std::string>& names,
                             std::vector<std::string>* warnings);

}  // namespace hitcost::client
