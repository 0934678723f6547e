#pragma once
// The load engine: T threads, each with its own epoll loop, its share of the connections,
// its own key chooser and its own histograms (no locks or shared writes on the hot path).
//
// Closed loop (rate == 0): every connection keeps exactly one request in flight; latency is
// measured from the actual send. Open loop (rate > 0): requests are due at fixed intended
// times (rate split over threads by their connection share); a due request goes out on the
// next idle connection, and latency is measured from the *intended* time, so a server stall
// shows up in every request that should have been sent during it (coordinated omission
// corrected, as in wrk2). Still one request in flight per connection: if the rate exceeds
// what C connections can carry, the backlog grows and so do the latencies — as it should.
//
// Open-loop schedule: thread i of T sends its k-th request at
// open_loop_due_ns(t0, k, interval, i, T) = t0 + (k + i/T) · interval, where interval is
// 1e9 / (its share of the rate) ns: each thread's schedule is shifted by i/T of its own
// interval, so with equal shares the T threads together send evenly spaced requests instead
// of T at once. The shift moves the schedule, not its spacing: the total rate is unchanged.
//
// Open-loop punctuality. Sending late inflates latency-from-intended with the tool's own
// delay, so every load thread sets its timer slack to 1 ns (the default 50 µs would make each
// epoll wake-up, hence each send, up to 50 µs late), sleeps only until `spin_ns` before the
// next due send and polls epoll with a zero timeout from there. That spin is client CPU: in
// open loop, the client CPU per request reported includes it. How long to spin is the
// machine's: with 1 ns of slack a timed wait still ends ~50 µs late in the VMs here (85 µs
// after 500 µs waits), so by default (`spin_adaptive`) each thread measures how late its timed
// waits end and spins the 90th percentile of the last 32 plus 5 µs (5 µs .. 1 ms). What lateness remains is
// measured: `send_lateness` holds (actual send − intended time) of every measured open-loop
// request that was sent. It also includes waiting for a free connection when all C are busy
// (the server fell behind; see `unsent`), so a large p99 there is either this machine or an
// overload — the service time and the unsent/unfinished counts tell which.
//
// Timeline (CLOCK_MONOTONIC ns): t0 → warmup → [measure_start, measure_end) → stop.
// A request counts when it was (intended to be) sent inside the window and its last byte
// arrived before the window closed (duration mode), or when it is among the first
// `requests` sent after warmup (request-count mode).
//
// Requests that never got an answer are not dropped from the distribution; leaving them out
// would hide exactly the worst requests. Each is recorded once in `latency` (never in
// `hit`/`miss` or the per-second series) and is not a response (`requests` excludes it):
// - timed out (both loop modes, measured requests only): recorded in `latency` as
//   (detection time − intended send time) and in `service` as (detection time − actual send),
//   both ≥ timeout_ns (detection runs every 2 ms); counted in `errors.timeout`. The connection
//   is closed, so a late answer cannot arrive and be counted a second time.
// - open loop, end of the window: a request due a few µs before the window ends is still in
//   flight (or not yet sent) when it ends; that is the edge of the window, not overload. So
//   the requests due inside the window are followed for up to kDrainNs after it: sent late if
//   they must be (their latency counts from the intended time), their answers read and counted
//   like any (not in the per-second series). What is still due but never sent (every
//   connection busy: the server fell behind) or sent but not answered when the drain ends is
//   overload: recorded in `latency` as (drain end − intended send time), a lower bound of what
//   it would have waited; counted in `unsent` and `unfinished`. Closed loop always ends with C
//   requests cut off in flight: an artefact of stopping, not counted.
// So, duration mode: latency.count() == requests + errors.timeout + unsent + unfinished
// (closed loop: the last two are 0). A measured request lost to a read, write or parse error
// is counted as that error only. Open loop without such errors, every measured request sent
// has one send_lateness sample: send_lateness.count() == requests + errors.timeout + unfinished.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "figures/error_counts.h"
#include "figures/histogram.h"
#include "figures/series.h"
#include "load/key_chooser.h"
#include "load/net.h"
#include "load/replay_schedule.h"

namespace hitcost::client {

// One entry of --rows-mix: requests ask ?rows=rows with probability weight / sum(weights).
struct RowsShare {
  int rows = 50;
  double weight = 1;
};

struct LoadPlan {
  Endpoint endpoint;
  std::string path_template = "/page/{id}";  // {id} replaced per request; may be absent
  std::string query;                         // appended as-is ("rows=50&strategy=html"), no '?'
  uint64_t warmup_ns = 1'000'000'000;
  uint64_t duration_ns = 10'000'000'000;  // used when requests == 0
  uint64_t requests = 0;                  // > 0: stop after this many measured requests
  int connections = 16;
  int threads = 1;
  std::vector<int> cpus;  // thread i pinned to cpus[i % size]; empty = no pin
  KeySpec keys;
  double rate = 0;  // total req/s; 0 = closed loop
  uint64_t timeout_ns = 2'000'000'000;
  std::string expect_strategy;      // non-empty: X-Strategy must match (validation)
  bool expect_cache_header = true;  // 2xx without X-Cache is a validation error
  uint64_t seed = 1;
  std::vector<RowsShare> rows_mix;  // non-empty: ?rows= chosen per request (before `query`)
  bool live_progress = false;       // keep LiveProgress counters for WindowHooks::every_second
  uint64_t spin_ns = 30'000;        // open loop: poll, not sleep, this close to a due send; 0 = never
  bool spin_adaptive = true;        // open loop: spin_ns follows the measured wake-up delay
  // A replayed trace (load/replay_schedule.h): an open loop whose requests are the schedule's —
  // thread i walks per_thread[i], each request due at the window's start + its due_ns (the
  // prewarm PUTs during the warm-up, unmeasured) — instead of the key chooser's at `rate`. Paths
  // are /page/{id}?rows=R (+ `query`); `keys`, `rate`, `rows_mix` and `requests` are not used.
  std::shared_ptr<const ReplaySchedule> replay;
};

struct LoadResult {
  Histogram latency;        // all measured responses, ns (open loop: from the intended time)
  Histogram hit;            // X-Cache: hit
  Histogram miss;           // X-Cache: miss
  Histogram service;        // from the actual send (equals `latency` in closed loop)
  Histogram send_lateness;  // open loop: actual send − intended time, ns; empty in closed loop
  ErrorCounts errors;
  uint64_t requests = 0;    // measured complete responses, any status
  uint64_t ok = 0;          // of which 2xx
  uint64_t bytes_read = 0;  // all response bytes of measured responses
  uint64_t body_bytes = 0;
  uint64_t reconnects = 0;                    // connections re-opened after the first (any reason)
  uint64_t unfinished = 0;                    // open loop: sent in the window, not answered at its end
  uint64_t unsent = 0;                        // open loop: due in the window, never sent (server fell behind)
  uint64_t started_unix_ns = 0;               // the window's start by the wall clock (aligns merged clients)
  Series series;                              // per second of the window, by arrival time
  std::vector<uint64_t> rows_requests;        // measured responses per rows_mix entry
  double window_s = 0;                        // the measured window's length
  uint64_t miss_end = 0;                      // next unused never-seen id (feed into the next run)
  std::vector<std::vector<int>> thread_cpus;  // CPUs each load thread was seen on
  uint64_t spin_ns = 0;                       // open loop: the spin at the end (largest over threads)
  std::vector<ErrorSample> error_samples;     // the first error of each kind (all threads)
  // `stop` ended the run before its planned end: window_s and the series cover only what ran
  // (duration mode: from the window's start to the stop; nothing if stopped in the warmup).
  bool interrupted = false;
  std::string setup_error;  // a thread could not start its loop (run_load returns it as its error)
  // A replay: measured requests by kind (read, write, remove) that were answered, any status.
  std::array<uint64_t, kReplayKinds> replay_answered{};
};

// Called by the coordinating thread at the window edges (server /stats, rusage, /proc/stat).
struct WindowHooks {
  std::function<void()> at_start;
  std::function<void()> at_end;
  // Once per second inside the window (needs plan.live_progress), on the coordinating thread.
  std::function<void(const ProgressSnapshot&)> every_second;
};

// The open-loop schedule above: when thread `thread` of `threads` should send its k-th
// request (k from 0), CLOCK_MONOTONIC ns. interval_ns = 1e9 / that thread's rate.
uint64_t open_loop_due_ns(uint64_t t0, uint64_t k, double interval_ns, int thread, int threads) noexcept;

// Runs one load phase and blocks until it is over. `stop` (may be null) ends it early.
// Errors: io_error for set-up failures only (epoll_create1, thread start); errors of the
// load itself are counted in LoadResult::errors.
Result<LoadResult> run_load(const LoadPlan& plan, const WindowHooks& hooks, const std::atomic<bool>* stop = nullptr);

// "GET <path-with-id-slot><query> HTTP/1.1\r\nHost: ...\r\n\r\n" split at the id slot.
struct RequestTemplate {
  std::string prefix;  // up to the id
  std::string suffix;  // after the id (rest of path, query, headers)
  bool has_id = true;
};
RequestTemplate make_request_template(const LoadPlan& plan);
// One template per rows_mix entry ("rows=R" ahead of plan.query), or just the one above.
std::vector<RequestTemplate> make_request_templates(const LoadPlan& plan);

}  // namespace hitcost::client
