#include "load/load_runner.h"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>

#include "load/load_worker.h"

namespace hitcost::client {

uint64_t open_loop_due_ns(uint64_t t0, uint64_t k, double interval_ns, int thread, int threads) noexcept {
  const double shift = threads > 1 ? double(thread) / double(threads) : 0.0;
  return t0 + uint64_t((double(k) + shift) * interval_ns);
}

RequestTemplate make_request_template(const LoadPlan& plan) {
  RequestTemplate t;
  std::string path = plan.path_template.empty() ? "/" : plan.path_template;
  std::string before = path, after;
  const size_t slot = path.find("{id}");
  if (slot == std::string::npos) {
    t.has_id = false;
  } else {
    before = path.substr(0, slot);
    after = path.substr(slot + 4);
  }
  if (!plan.query.empty()) after += (path.find('?') == std::string::npos ? "?" : "&") + plan.query;
  t.prefix = "GET " + before;
  t.suffix = after + " HTTP/1.1\r\nHost: " + plan.endpoint.host_header + "\r\n\r\n";
  return t;
}

std::vector<RequestTemplate> make_request_templates(const LoadPlan& plan) {
  if (plan.rows_mix.empty()) return {make_request_template(plan)};
  std::vector<RequestTemplate> out;
  for (const RowsShare& share : plan.rows_mix) {
    LoadPlan p = plan;
    p.query = "rows=" + std::to_string(share.rows) + (plan.query.empty() ? "" : "&" + plan.query);
    out.push_back(make_request_template(p));
  }
  return out;
}

namespace {

using detail::LoadThread;

void sleep_until_ns(uint64_t t, const std::atomic<bool>* stop) {
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= t || (stop && stop->load())) return;
    // 5 ms steps: a stop is seen that soon (the snapshots of an interrupted window), at ~200
    // wake-ups a second of client CPU (a few µs each)
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(t - now, 5'000'000)));
  }
}

// The run's timeline, CLOCK_MONOTONIC ns (load_runner.h).
struct Timeline {
  uint64_t t0 = 0;             // the threads start sending
  uint64_t measure_start = 0;  // the window opens
  uint64_t measure_end = 0;    // the window closes; UINT64_MAX in request-count mode
};

using LoadThreads = std::vector<std::unique_ptr<LoadThread>>;

// The connections, the rate and (request-count mode) the requests split evenly over the
// threads, the first ones taking the remainders; no thread for fewer requests than threads.
LoadThreads make_load_threads(const LoadPlan& plan, const std::vector<RequestTemplate>& tmpls, const Timeline& tl,
                              const std::atomic<bool>* stop) {
  LoadThreads load_threads;
  for (int i = 0; i < plan.threads; ++i) {
    const int conns = plan.connections / plan.threads + (i < plan.connections % plan.threads ? 1 : 0);
    const double rate = plan.rate * double(conns) / double(plan.connections);
    const uint64_t quota = plan.requests ? plan.requests / uint64_t(plan.threads) +
                                               (uint64_t(i) < plan.requests % uint64_t(plan.threads) ? 1 : 0)
                                         : 0;
    if (plan.requests && quota == 0) continue;  // fewer requests than threads
    load_threads.push_back(std::make_unique<LoadThread>(plan, tmpls, i, conns, rate, quota, tl.t0, tl.measure_start,
                                                        tl.measure_end, stop));
  }
  return load_threads;
}

// Each load thread's run() on a std::thread of its own; `done` counts those that returned.
// If one cannot be started, those already started run out their plan, then the error.
Status start_threads(LoadThreads& load_threads, std::vector<std::thread>& threads, std::atomic<size_t>& done) {
  for (auto& w : load_threads) {
    try {
      threads.emplace_back([&w, &done] {
        w->run();
        done.fetch_add(1);
      });
    } catch (const std::system_error& e) {
      for (auto& t : threads) t.join();
      return Error{Errc::io_error, std::string("starting a load thread: ") + e.what()};
    }
  }
  return ok_status();
}

// The wall clock (Unix ns) at `mono_then`, a CLOCK_MONOTONIC time now or just past.
uint64_t unix_ns_at(uint64_t mono_then) {
  const uint64_t wall_ns = unix_now_ns();
  const uint64_t mono = now_ns();
  return wall_ns - (mono > mono_then ? mono - mono_then : 0);
}

// Progress ticks while the window runs (duration mode) or until every load thread is done.
void tick_progress(const LoadPlan& plan, const WindowHooks& hooks, const Timeline& tl, const LoadThreads& load_threads,
                   const std::atomic<size_t>& done_threads, const std::atomic<bool>* stop) {
  std::vector<const LiveProgress*> parts;
  for (auto& w : load_threads) parts.push_back(&w->progress());
  uint64_t prev = 0, tick = tl.measure_start;
  for (;;) {
    tick += 1'000'000'000ULL;
    if (!plan.requests && tick > tl.measure_end) break;
    sleep_until_ns(tick, stop);
    if ((stop && stop->load()) || done_threads.load() == load_threads.size()) break;
    const ProgressSnapshot snap = read_progress(parts, double(tick - tl.measure_start) / 1e9, prev, 1.0);
    prev = snap.requests;
    hooks.every_second(snap);
    if (plan.requests && snap.requests >= plan.requests) break;
  }
}

// The load threads' results in one: histograms, counts and series merged.
LoadResult merge_results(const LoadPlan& plan, LoadThreads& load_threads) {
  LoadResult out;
  out.rows_requests.assign(plan.rows_mix.size(), 0);
  for (auto& w : load_threads) {
    LoadResult& r = w->result();
    out.latency.merge(r.latency);
    out.hit.merge(r.hit);
    out.miss.merge(r.miss);
    out.service.merge(r.service);
    out.send_lateness.merge(r.send_lateness);
    out.errors.merge(r.errors);
    out.requests += r.requests;
    out.ok += r.ok;
    out.bytes_read += r.bytes_read;
    out.body_bytes += r.body_bytes;
    out.reconnects += r.reconnects;
    out.unfinished += r.unfinished;
    out.unsent += r.unsent;
    out.series.merge(r.series);
    for (size_t k = 0; k < r.rows_requests.size(); ++k) out.rows_requests[k] += r.rows_requests[k];
    for (int k = 0; k < kReplayKinds; ++k) out.replay_answered[size_t(k)] += r.replay_answered[size_t(k)];
    out.miss_end = std::max(out.miss_end, r.miss_end);
    out.thread_cpus.push_back(r.thread_cpus.empty() ? std::vector<int>{} : r.thread_cpus.front());
    out.spin_ns = std::max(out.spin_ns, r.spin_ns);
    for (const ErrorSample& e : r.error_samples) keep_first_error(out.error_samples, e.kind, e.detail);
  }
  return out;
}

// The window as it ran, into `out` (the merged results): whether `stop` cut it short, one
// series point per second of it, and its length.
void close_window(LoadResult& out, const LoadPlan& plan, const Timeline& tl, const LoadThreads& load_threads,
                  const std::atomic<bool>* stop) {
  uint64_t last_done = tl.measure_start;
  uint64_t stopped = 0;  // the last load thread's sight of `stop`: every response counted came before it
  for (auto& w : load_threads) {
    last_done = std::max(last_done, w->last_done_ns());
    stopped = std::max(stopped, w->stopped_ns());
  }
  uint64_t window_end = tl.measure_end;
  if (stopped) window_end = std::max(tl.measure_start, std::min(tl.measure_end, stopped));
  out.interrupted = stop && stop->load() &&
                    (plan.requests ? out.requests + out.errors.total() < plan.requests : window_end < tl.measure_end);
  if (!plan.requests) {
    // Exactly one point per started second of the window, empty seconds included (a full
    // stall must show as zeros, not vanish); a response stamped at the very end joins the last.
    // An interrupted window has the seconds that started before the stop, no more.
    const size_t n = size_t((window_end - tl.measure_start + Series::kIntervalNs - 1) / Series::kIntervalNs);
    auto& pts = out.series.points;
    for (size_t i = n; n > 0 && i < pts.size(); ++i) pts[n - 1].merge(pts[i]);
    pts.resize(n);
  }
  out.window_s = double((plan.requests ? last_done : window_end) - tl.measure_start) / 1e9;
}

}  // namespace

Result<LoadResult> run_load(const LoadPlan& plan_in, const WindowHooks& hooks, const std::atomic<bool>* stop) {
  LoadPlan plan = plan_in;
  plan.threads = std::max(1, plan.threads);
  plan.connections = std::max(plan.connections, plan.threads);
  const std::vector<RequestTemplate> tmpls = make_request_templates(plan);
  Timeline tl;
  tl.t0 = now_ns() + 20'000'000;  // let the threads start first
  tl.measure_start = tl.t0 + plan.warmup_ns;
  tl.measure_end = plan.requests ? UINT64_MAX : tl.measure_start + plan.duration_ns;

  LoadThreads load_threads = make_load_threads(plan, tmpls, tl, stop);
  std::vector<std::thread> threads;
  std::atomic<size_t> done_threads{0};
  if (Status s = start_threads(load_threads, threads, done_threads); !s) return s.error();

  sleep_until_ns(tl.measure_start, stop);
  if (hooks.at_start) hooks.at_start();
  const uint64_t started_unix_ns = unix_ns_at(tl.measure_start);
  if (plan.live_progress && hooks.every_second) tick_progress(plan, hooks, tl, load_threads, done_threads, stop);
  // Duration mode: the window ends at measure_end, or where the load threads saw `stop` (they
  // read nothing after it; see close_window). The snapshots are taken when this thread sees it,
  // within one sleep_until_ns step (5 ms) later.
  if (!plan.requests) {
    sleep_until_ns(tl.measure_end, stop);
    if (hooks.at_end) hooks.at_end();
  }
  for (auto& t : threads) t.join();
  if (plan.requests && hooks.at_end) hooks.at_end();
  for (auto& w : load_threads)
    if (!w->result().setup_error.empty()) return Error{Errc::io_error, w->result().setup_error};

  LoadResult out = merge_results(plan, load_threads);
  out.started_unix_ns = started_unix_ns;
  close_window(out, plan, tl, load_threads, stop);
  return out;
}

}  // namespace hitcost::client
