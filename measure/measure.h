#pragma once
// The runner: one measured run, end to end (google/benchmark's runner/reporter split: this
// measures, measure/run_output.h and report/run_record.h report). A RunReport holds the raw
// measurement: the load result, the server's /stats deltas, this machine's CPU readings; its
// methods derive the per-request figures. record_of (measure/run_output.h) turns it into the
// RunRecord every reporter reads.
#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "figures/cpu_accounting.h"
#include "figures/histogram.h"
#include "load/error_limits.h"
#include "load/load_runner.h"
#include "measure/process_set.h"
#include "measure/server_stats.h"
#include "report/run_record.h"
#include "report/run_request.h"

namespace hitcost::client {

// CPU of the three parties with no load, measured just before a run (cpu_accounting.h, 1).
struct IdleBaseline {
  double window_s = 0;
  double server_cpu_s = 0;
  std::optional<double> cache_cpu_s;
  double client_cpu_s = 0;
  std::optional<proc::MachineCpu> machine;
  std::optional<proc::CensusCpu> census = {};  // every process's CPU over the idle window
  // Pages (/page, /value: hits and misses) the server answered in the window. Another
  // client's checks before its run are a page or two; its load, thousands a second: then the
  // window's CPU is no baseline, and measure_run drops it.
  uint64_t server_pages = 0;
  static constexpr double kMaxPagesPerSecond = 10;
  bool loaded() const noexcept { return double(server_pages) > kMaxPagesPerSecond * std::max(window_s, 0.1); }
};

struct RunReport : RunRequest {
  // what was asked, besides the RunRequest
  std::string requested_strategy;  // "" = whatever the server is configured with
  ErrorLimits error_limits;        // what a measurement may have (load/error_limits.h)
  // what happened
  LoadResult load;
  std::optional<ServerDelta> server;  // absent with --no-server-stats or on failure
  std::string server_error;
  double client_cpu_s = 0;                  // getrusage(RUSAGE_SELF) over the window
  std::optional<proc::MachineCpu> machine;  // per-CPU /proc/stat delta over the window
  std::optional<proc::CensusCpu> census;    // every process's CPU over the window (other work vs the kernel's)
  double snapshot_window_s = 0;             // wall time between the two snapshots
  std::optional<IdleBaseline> idle;         // absent with --idle 0 or without server stats
  nlohmann::json floor;                     // the hit's floor (measure/floor_request.h); null: none
  nlohmann::json slowest;   // the window's slowest requests (measure/slow_requests.h); null: no slow log
  std::string floor_error;  // why there is none, when one was asked
  std::string idle_error;   // why no idle baseline was subtracted, when one was asked
  // --start-at: the wall time (Unix ns) the load was asked to start at, and how far past it it
  // started (the floor and the idle baseline come before it; negative never: it waits).
  std::optional<uint64_t> start_at_unix_ns;
  double start_late_ms = 0;
  // Placement, resolved while the processes were there to look at.
  bool server_local = false;                           // same machine (boot id, pid and start time match)
  bool cache_local = false;                            // every cache node is a local memcached process
  std::vector<int> client_cpus;                        // CPUs the load threads may run on
  HostsRecord hosts;                                   // where each part ran (this client's, the server's)
  Attribution attribution = Attribution::sender_pays;  // asked for (receiver-pays falls back, with a note)
  double contamination_threshold = 0.05;
  // sweep context (absent for a single run)
  std::string sweep_store;
  int repeat_index = -1;
  std::vector<RowsShare> rows_mix;  // --rows-mix; counts per entry in load.rows_requests
  int contamination_retries = 0;    // runs thrown away because they were contaminated

  std::string mode() const { return rate_rps > 0 ? "open-loop" : "closed-loop"; }
  bool interrupted() const { return load.interrupted; }
  // nullopt when the errors are within error_limits; else why not (load/error_limits.h).
  std::optional<std::string> over_error_limit() const { return client::over_error_limit(load, error_limits); }
  double throughput_rps() const;
  double hit_ratio() const;      // server's counters when present, else X-Cache
  std::string strategy() const;  // requested, else the server's configured one
  std::string store() const;
  // Raw, sender-pays, idle included: the legacy per-request figures (see cpu() for the rest).
  std::optional<double> server_cpu_us_per_req() const;
  std::optional<double> cache_cpu_us_per_req() const;
  double client_cpu_us_per_req() const;
  // Every CPU figure of the run: idle baseline, attribution, contamination, CPU per hit.
  // nullopt without server stats.
  std::optional<CpuFigures> cpu() const;
  // nullopt when it cannot be judged (see Contamination::why).
  std::optional<bool> contaminated() const;
};

struct MeasureOptions {
  bool server_stats = true;
  // Non-empty: the server (and the cache) are read from /proc instead of GET /stats.
  ProcessSetSpec server_processes, cache_processes;
  bool progress = false;             // rewrite one status line on stderr every second (a TTY only)
  int retry_contaminated = 0;        // re-run a contaminated run up to N times; the cleanest counts
  uint64_t idle_ns = 1'000'000'000;  // idle baseline before each run; 0 = none
  bool floor = true;                 // calibrate the hit's floor on the server before each run (--no-floor)
  Attribution attribution = Attribution::sender_pays;
  double contamination_threshold = 0.05;
  ErrorLimits error_limits;
  // The load starts at this wall time (Unix ns), so that clients on several machines measure
  // the same window: the floor first, then the idle baseline in the idle_ns before it (shorter
  // if the floor ran late; none once it has passed: the others are loading), then the load.
  std::optional<uint64_t> start_at_unix_ns;
};
// measure_run plus the idle baseline, the progress line and contamination retries. Each retry
// asks never-seen ids past the previous attempt's (plan.keys.miss_start advances), so misses
// stay misses; of all attempts the one with the least other work on its CPUs is kept.
RunReport measure_run(LoadPlan plan, const MeasureOptions& o, const std::atomic<bool>* stop);
// The load and the window-edge snapshots only: no idle baseline, no retries.
RunReport measure_run(const LoadPlan& plan, bool server_stats, const std::atomic<bool>* stop);

}  // namespace hitcost::client
