#pragma once
// A self-contained HTML report: one file, no external assets (no CDN, no fonts, no network:
// benchmark machines are often offline), charts as inline SVG drawn here in C++ so that the
// numbers in the picture are exactly the numbers in the JSON.
//
// Built from JSON only — run JSONs, sweep JSONs ({runs, summary, verdicts}) or merged ones —
// read into RunRecords (report/run_record.h), so `run --html`, `sweep --html`, `report` and
// `merge --html` draw the same page. The summary and verdicts are recomputed from the runs
// with the options the first document recorded (report/summary.h).
//
// Contents: what was measured (mode, connections, threads, CPU placement, the CPU accounting,
// contamination: figures over runs as median [min..max], rounded to what their spread
// resolves); the summary table, the latency table and the verdicts; latency percentiles per
// strategy (p50/p90/p99/p99.9/max, log axis); the server's CPU per hit by part, corrected like
// the headline so the parts add up to the summary's median, beside each phase's wall time; every
// run's CSV columns; every run's CPU figures raw and net, with every flagged figure and its
// reason (figures/cpu_accounting.h); a log2 latency histogram and the per-second series per run.
// Charts list strategies in the summary's row order. A figure that cannot be right is marked
// (class "flagged", its reason as a tooltip), never shown as a plain number, and left out of
// ranges. Per-run values live in the per-run tables and the JSON, never listed in one cell.
//
// Every chart is an <svg class="chart" data-chart="KIND">; bars carry class names (lat-bar,
// phase-seg, log2-bar) and data-strategy so tests can count them. Inline JS checks after load
// that every chart has a non-empty layout box (<body data-charts-rendered="N">) and that no text
// is cut or overlaps another (data-texts-checked, data-text-overflow, data-overflow-what); a
// script error sets data-js-error.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hitcost::client {

std::string html_report(const std::vector<nlohmann::json>& docs, const std::string& title);

}  // namespace hitcost::client
