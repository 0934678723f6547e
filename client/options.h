#pragma once
// Command-line options of `hitcost-load` (run) and `hitcost-load sweep`, the small parsers
// behind them (durations, CPU lists) and the translation of run options into a LoadPlan.
// Parsing failures are Errc::invalid_argument with the text to print; exceptions stay in main().
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/duration.h"
#include "core/result.h"
#include "load/error_limits.h"
#include "load/load_runner.h"
#include "proc/proc.h"

namespace CLI {
class App;
}

namespace hitcost::client {

// "0,1,4-7" → {0,1,4,5,6,7}; nullopt when malformed.
using proc::parse_cpu_list;
// Comma-separated list, empty items dropped.
std::vector<std::string> split_list(std::string_view text);
// "12,34" → {12, 34}: pids of processes visible here now; invalid_argument otherwise
// ("'x' is not a pid", "no process 12 visible here ...", "no pid given"). With Lookup::no
// (--check-args) only the form is checked: no process is looked for in /proc.
Result<std::vector<int64_t>> parse_pid_list(std::string_view text, Lookup lookup = Lookup::yes);
// "5:0.2,50:0.7,500:0.1" → {{5,0.2},{50,0.7},{500,0.1}} (rows:weight; weights need not sum
// to 1, they are normalised). nullopt when malformed, rows outside 1..1e6 or a weight <= 0.
std::optional<std::vector<RowsShare>> parse_rows_mix(std::string_view text);

// --log-modes: "off,line,buffered:64k+sync:1000" → the modes in order, spaces around each
// trimmed; "" → {} (no logging axis). invalid_argument on an empty entry ("off,,line", a
// trailing comma) or a mode listed twice. The mode grammar is the server's (server/log_mode.h):
// the sweep asks it about every mode before measuring anything.
Result<std::vector<std::string>> parse_log_modes(std::string_view text);

// Options shared by `run` and `sweep` (the load shape).
struct LoadOptions {
  std::string url;
  std::string warmup = "1s";
  std::string timeout = "2s";
  int connections = 16;
  int threads = 1;
  uint64_t keys = 1000;
  std::string key_dist = "uniform";
  std::string path_template = "/page/{id}";
  double rate = 0;  // req/s total; 0 = closed loop
  // open loop: poll instead of sleeping this close to a due send, µs; "auto" = follow how late
  // this machine's timed waits end (load/load_runner.h)
  std::string spin_us = "auto";
  std::string cpus;  // "0,1" → pin load thread i to cpus[i % n]
  std::optional<uint64_t> miss_start;
  uint64_t seed = 1;
  bool quiet = false;
  bool no_server_stats = false;
  bool no_progress = false;    // progress line is drawn only when stderr is a terminal anyway
  std::string rows_mix;        // "rows:weight,..." chosen per request
  int retry_contaminated = 0;  // sweep: 1
  std::string html_out;
  std::string idle = "1s";                // idle baseline before each run ("0" = none)
  bool no_floor = false;                  // skip the floor's calibration before each run
  std::string attribution = "sender";     // sender | receiver (see figures/cpu_accounting.h, 2)
  double contamination_threshold = 0.05;  // other work on our CPUs, as a fraction of our own CPU
  // A server hitcost-load did not build, measured from /proc (measure/process_set.h):
  std::string server_pids, server_tree;  // "12,34"; tree: each pid and its descendants
  std::string cache_pids, cache_tree;    // the same for the cache (memcached)
  ErrorLimits error_limits;              // --max-error-rate, --max-transport-error-rate
  // Replay this trace (trace/trace_file.h) at `speed` x its own pace instead of the key chooser's
  // load (load/replay_schedule.h; attach_trace below): a run, or every run of a sweep.
  std::string trace;
  double speed = 1;
  std::string values;  // with trace: the corpus the server serves; keys become /value/{n} ids
  // --check-args: the line checked as a run would check it, then "hitcost-load: arguments ok";
  // nothing connected, written, read or looked up (names, CPUs, pids; see build_plan).
  bool check_args = false;
  // The admin token's file (hitcost-server --admin-token-file): read once at start (not with
  // --check-args) and sent on every admin request (measure/admin_client.h set_admin_token).
  std::string admin_token_file;
};

struct RunOptions : LoadOptions {
  std::string duration = "10s";
  uint64_t requests = 0;  // > 0: stop after N measured requests instead of duration
  std::optional<double> hit_ratio;
  std::optional<int> rows;
  std::string strategy;  // per-request ?strategy=
  std::string json_out;
  std::string hdr_out;
  std::string csv_out;
  bool series = false;  // print the per-second table
  // The load starts at this wall time, Unix ms (what `date +%s%3N` prints): K clients on
  // several machines measure one window (measure/measure.h MeasureOptions::start_at_unix_ns).
  std::optional<uint64_t> start_at_ms;
};

struct SweepOptions : LoadOptions {
  SweepOptions() { retry_contaminated = 1; }
  std::string duration = "3s";
  std::string strategies = "html,html+zlib,struct:json,struct:json+zlib";
  std::string stores;  // empty: keep the server's current store
  int rows = 50;
  double hit_ratio = 0.99;
  // Rounds: without --repeat the sweep runs until decided — after min_rounds, a round at a time
  // until every verdict is decided, max_rounds paired rounds are in hand, or max_time is spent
  // (report/verdict.h: the looks are paid for). --repeat N runs N rounds and looks once.
  std::optional<int> repeat;
  int min_rounds = 3;
  int max_rounds = 20;
  std::string max_time = "0";          // a duration; "0" = no time budget
  std::string baseline;                // compared with every other strategy; "" = the first of --strategies
                                       // (with log modes: under the first mode)
  double alpha = 0.05;                 // family-wise error of the verdicts
  double min_effect = 0.05;            // differences below this are not called
  std::string latency_rate = "auto";   // open-loop latency run per strategy: auto | REQ/S | 0 (none)
  std::optional<uint64_t> order_seed;  // shuffles the order of strategies in each round
  std::string flags;                   // flag scheme, optional
  std::optional<int64_t> threshold;
  // One compression threshold per --strategies entry, in its order ("2000,0"): each strategy
  // stored under its own rule, as recommend-check.sh compares today's with the recommended one.
  // "" = --threshold (or the server's) for all.
  std::string thresholds;
  std::string admin_url;  // where /admin/config and /admin/warm go; "" = --url
  std::string json_out;
  std::string csv_out;
  // The logging axis: the server's access-log modes ("off,line,buffered:64k"), each crossed with
  // every strategy; "" = the sweep leaves the server's logging alone (no "log" in any config).
  // The same as --axis log=MODES.
  std::string log_modes;
  std::vector<std::string> axes;  // --axis NAME=V1,V2 (client/sweep_axes.h), each crossed with the rest
};

void add_run_options(CLI::App& app, RunOptions& o);
// --check-args when the line passed: prints "hitcost-load: arguments ok" on stdout; returns 0.
int arguments_ok();
void add_sweep_options(CLI::App& app, SweepOptions& o);

// `hitcost-load report IN.json... --html OUT` and `hitcost-load merge IN.json... [--json] [--html]`.
struct FilesOptions {
  std::vector<std::string> inputs;
  std::string json_out;
  std::string html_out;
  std::string csv_out;
  std::string title;
};
void add_report_options(CLI::App& app, FilesOptions& o);

// `hitcost-load compare LABEL=SWEEP.json...` (report/compare.h).
struct CompareOptions {
  std::vector<std::string> inputs;  // "label=file"
  std::string baseline;             // "" = the first input's label
  double alpha = 0.05;
  double min_effect = 0.05;
  // The inputs are rounds (the i-th sweep of each label is round i): looked at after every
  // round from min_rounds, as scripts/php-compare.sh does until decided; 0 = one look.
  int min_rounds = 0;
  int max_rounds = 20;
  std::string json_out, csv_out, html_out;
};
void add_compare_options(CLI::App& app, CompareOptions& o);
void add_merge_options(CLI::App& app, FilesOptions& o);

// The measuring options shared by run and sweep (idle baseline, attribution, contamination).
// invalid_argument on a bad value ("bad --idle: x", "--server-pids: 'x' is not a pid").
// Lookup::no (--check-args): no pid looked for in /proc.
struct MeasureOptions;
Result<MeasureOptions> measure_options(const LoadOptions& o, Lookup lookup = Lookup::yes);
// A run's --start-at into `mo`. invalid_argument with --retry-contaminated (a retry would run
// alone, after the others) and, with Lookup::yes, for a time over an hour from this clock's
// now (seconds or µs given for ms, or clocks apart).
Status apply_start_at(const RunOptions& o, MeasureOptions& mo, Lookup lookup = Lookup::yes);

// --trace: sizes pages on the server (GET /page/{id}?rows=1 and ?rows=201 of an id past the
// trace's, each removed again with DELETE), builds the schedule and makes `plan` its replay: an
// open loop whose window is the trace's span at `speed` (the warm-up carries its prewarm PUTs).
// --rate N instead of --speed: the speed that gives the trace's mean rate N/s. invalid_argument
// for both at once and for options a replay does not take (--requests, --rows, --rows-mix,
// --hit-ratio, a --path-template other than /page/{id}); the trace's errors; connection when the
// server does not answer the sizing requests.
Status attach_trace(LoadPlan& plan, const LoadOptions& o, bool counted_requests, bool hit_ratio, bool rows);
// attach_trace's refusals that need no trace and no server, checked with the rest of the line
// (before the server is asked anything, and by --check-args); ok without --trace.
Status check_trace_options(const LoadOptions& o, bool counted_requests, bool hit_ratio, bool rows);
// "replay TRACE: E events, K keys at Sx over T s: R reads, W writes, D deletes (I inferred ...), ..."
std::string replay_line(const ReplaySchedule& schedule, uint64_t duration_ns);

// Checks and converts; invalid_argument on a bad value. `hit_ratio`, `rows`, `strategy`
// and `duration` are passed separately because run and sweep set them differently.
// Lookup::yes (a run): --cpus must be online here, and a --url host name is resolved, once,
// after every other check (a connection error, "cannot resolve host NAME: ...", when it does
// not). Lookup::no (--check-args): neither; the name is checked for its form only.
Result<LoadPlan> build_plan(const LoadOptions& o, std::string_view duration, uint64_t requests,
                            std::optional<double> hit_ratio, std::optional<int> rows, const std::string& strategy,
                            Lookup lookup = Lookup::yes);

// First never-seen id for --hit-ratio when --miss-start is not given: far above the warmed
// set and different on every invocation (1e7 ids per second of wall clock, modulo 25 hours),
// so a second run against the same server does not re-ask ids the first run turned into
// hits. Stays below 9.1e11: hitcost-server answers 404 above --max-id (default 1e12).
uint64_t default_miss_start(uint64_t keys);

}  // namespace hitcost::client
