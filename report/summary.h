#pragma once
// The comparison table and its verdicts, from run records (report/run_record.h: a sweep's own,
// a saved sweep's "runs", merged runs): the one place where a sweep's figures are summarised. The sweep, the
// merge and the HTML report all read this; the text and CSV reporters print it.
//
// Each run is either a capacity run (closed loop: CPU per hit, req/s) or a latency run
// (open loop at one rate common to all strategies: the latency distribution), by its "role".
// Capacity runs that cannot be trusted are left out of the figures and the verdicts and
// counted: runs with errors, runs without server figures, runs whose hit ratio missed the
// target, contaminated runs, runs whose verdict figure cannot be right (flagged).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/run_record.h"
#include "report/verdict.h"

namespace hitcost::client {

struct SummaryOptions {
  // Rows are named by their label (SweepRow::strategy): the strategy, with " log=MODE" in a
  // sweep with --log-modes.
  std::string baseline;            // the row every other is compared with; "" = the first seen per store
  std::vector<std::string> order;  // row labels in the order rows are listed (others after them)
  VerdictOptions verdict;
  double hit_ratio_tolerance = 0.02;  // |measured − target| above this excludes a run
  // The family the verdicts' error is shared by; 0 = the comparisons of the runs given. A sweep
  // that looks at one store's runs at a time sets it to the whole sweep's.
  size_t family = 0;
  // Column names in the text: a sweep's rows are strategies grouped by store; `compare`
  // (report/compare.h) puts backends in rows grouped by strategy.
  std::string row_label = "strategy", group_label = "store";
};

// One CPU part of a hit against its floor (report/floor_summary.h): medians over the kept runs
// that had a floor; the ratio is per run (measured ÷ floor), so it pairs each run with its own
// calibration. No ratio for a part whose floor is 0 (`other`: nothing a library could do faster).
struct FloorPart {
  std::string part;  // "receive", "fetch", "unwrap", "decode", "render", "write", "other"
  std::optional<Range> measured_us, floor_us, ratio;
};

struct SweepRow {
  // `strategy` is the row's label: the strategy, or "STRATEGY NAME=VALUE ..." when the runs carry
  // a sweep cell's axis settings (sweep --axis; run_record.h sweep_row_label). The order, the
  // baseline and the verdicts name rows by it.
  std::string store, strategy;
  AxisSettings axes;  // the runs' axis settings; empty = none (no "axes" key in the JSON)
  // Capacity runs measured; kept for the CPU figures and the verdicts (`used`) and for the
  // capacity figure (req/s) (`used_capacity`). A run is left out only of the figures its
  // trouble can bias (report/noise.h): errors, a missing figure or a hit ratio off target
  // from all of them; other work on the machine from those it was measured to move.
  int runs = 0, used = 0, used_capacity = 0;
  int excluded_errors = 0, excluded_no_figures = 0, excluded_hit_ratio = 0;
  int excluded_noise_cpu = 0;       // other work enough to move CPU per hit (left out of CPU and verdicts)
  int excluded_noise_capacity = 0;  // other work enough to move req/s (left out of req/s only)
  int excluded_flagged = 0;         // the verdict figure cannot be right (report/run_record.h flag_of)
  uint64_t errors = 0;
  std::string attribution;         // of the kept runs ("mixed" when they differ)
  bool cache_sender_pays = false;  // the cache column is sender-pays (cache and client shared CPUs)
  bool from_left_out = false;      // no run was kept: the figures are those of the runs left out
  std::optional<Range> rps, server_hit, server_req, cache_req, client_req, total_req, hit_ratio;
  std::optional<Range> own_mib, store_file_mib;  // server memory: its own, the store file's cached pages
  // The floor of a hit (calibrated before each run) and CPU per hit ÷ that floor, per run.
  std::optional<Range> floor_hit, floor_ratio;
  // The whole hit in one loop (floor/hit_floor.h composed_us) and CPU per hit ÷ it, per run: what
  // the server adds beyond what its steps cost each other.
  std::optional<Range> composed_hit, composed_ratio;
  std::vector<FloorPart> floor_parts;  // by part, in the hit's order; empty without floors
  std::vector<double> metric_values;   // the verdict figure of each kept run, in run order
  std::vector<int> metric_rounds;      // the round of each of them (the verdicts pair by round)
  std::vector<double> metric_bias;     // how high other work may have pushed each (report/noise.h)
  // CPU figures of the runs taken that were flagged (report/run_record.h flag_of: a net figure
  // below zero...): left out of the medians above, counted here.
  int flagged_figures = 0;
  // The latency run (open loop), if the sweep made one.
  std::optional<double> latency_rate, p50_us, p99_us, p999_us, max_us, lateness_p99_us;
  uint64_t latency_errors = 0, latency_unsent = 0;
};

// The median [min..max] columns of a row, in one table: the JSON key, the CSV column prefix
// (_min, _median, _max follow), the HTML header (nullptr: not in the HTML table) and its
// printf format. summary_json, csv_summary and the HTML report walk it.
struct RangeColumn {
  const char* json;
  const char* csv;
  const char* html;
  const char* format;
  std::optional<Range> SweepRow::*member;
};
const std::vector<RangeColumn>& range_columns();

struct Summary {
  std::vector<SweepRow> rows;
  std::vector<std::pair<std::string, Verdict>> verdicts;  // (store, verdict)
  std::string metric;  // "server CPU per hit" (or "... per request" when a run lacks it)
  size_t comparisons = 0;
  std::string noise;  // report/noise.h noise_note: the other work beside the runs, and what it cost
  // The load the runs put on: "closed loop", or the replayed trace ("replay of T: open loop at its
  // own pace"), which the capacity table's heading names.
  std::string load = "closed loop";
  SummaryOptions options;
};

Summary summarize(const std::vector<RunRecord>& runs, const SummaryOptions& o);
Summary summarize(const nlohmann::json& runs, const SummaryOptions& o);  // a JSON array of runs
// {"summary": [rows], "verdicts": [...], "metric", "verdict_options"}: what a sweep writes.
nlohmann::json summary_json(const Summary& s);
nlohmann::json summarize_runs_json(const std::vector<RunRecord>& runs, const SummaryOptions& o = {});
nlohmann::json summarize_runs_json(const nlohmann::json& runs, const SummaryOptions& o = {});
// Options as a saved sweep recorded them (baseline, alpha, min effect); defaults otherwise.
SummaryOptions summary_options_of(const nlohmann::json& sweep_doc);
nlohmann::json summary_options_json(const SummaryOptions& o);

// One line: what the verdicts compare, how the rounds are paired and looked at, the family.
// " (N)" after the req/s range when it is over fewer runs than the CPU figures (runs whose other
// work moves req/s and not CPU per hit: report/noise.h); "" otherwise. Text and HTML print it.
std::string capacity_runs_note(const SweepRow& r);
std::string verdict_header(const Summary& s);
std::string format_summary(const Summary& s);  // the tables and the verdict lines
std::string csv_summary(const Summary& s);     // one row per store × strategy

}  // namespace hitcost::client
