#pragma once
// A self-contained HTML report: one file, no external assets (no CDN, no fonts, no network:
// benchmark machines are often offline), charts as inline SVG drawn here in C++ so that the
// numbers in the picture are exactly the numbers in the JSON.
//
// Built from JSON only — run JSONs, sweep JSONs ({runs, summary, verdicts}) or merged ones —
// read into RunRecords (client/run_record.h), so `run --html`, `sweep --html`, `report` and
// `merge --html` draw the same page. The summary and verdicts are recomputed from the runs
// with the options the first document recorded (client/summary.h).
//
// Contents: what was measured (mode, connections, threads, CPU placement, contamination);
// latency percentiles per strategy (p50/p90/p99/p99.9/max, log axis); CPU per request split
// by server phase plus cache and client CPU (stacked); a log2 latency histogram per run with
// the hit/miss peaks labelled; the per-second series; the summary table (median [min..max]),
// the verdicts, and every run's CSV columns in one table (client/run_record.h). Every chart is an <svg class="chart"
// data-chart="KIND">; bars carry class names (lat-bar, cpu-seg, log2-bar) and data-strategy so tests can count them. A
// few lines of inline JS check after load that every chart has a non-empty layout box and set <body
// data-charts-rendered="N">; a script error sets data-js-error.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hitcost::client {

std::string html_report(const std::vector<nlohmann::json>& docs, const std::string& title);

}  // namespace hitcost::client
