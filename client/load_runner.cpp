#include "client/load_runner.h"

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
#include <stdexcept>
#include <thread>

#include "client/load_worker.h"

namespace hitcost::client {

uint64_t open_loop_due_ns(uint64_t t0, uint64_t k, double interval_ns, int thread, int threads) noexcept {
  const double shift = threads > 1 ? double(thread) / double(threads) : 0.0;
  return t0 + uint64_t((double(k) + shift) * interval_ns);
}

void ErrorCounts::merge(const ErrorCounts& o) noexcept {
  connect += o.connect;
  read += o.read;
  write += o.write;
  timeout += o.timeout;
  status += o.status;
  parse += o.parse;
  validation += o.validation;
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

void keep_first_error(std::vector<ErrorSample>& samples, std::string_view kind, std::string_view detail) {
  for (const ErrorSample& e : samples)
    if (e.kind == kind) return;
  // One printable line: the server's body may end in a newline or hold HTML.
  std::string line;
  for (char ch : detail.substr(0, ResponseParser::kErrorBodyMax))
    line += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  samples.push_back({std::string(kind), std::move(line)});
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

}  // namespace

LoadResult run_load(const LoadPlan& plan_in, const WindowHooks& hooks, const std::atomic<bool>* stop) {
  LoadPlan plan = plan_in;
  plan.threads = std::max(1, plan.threads);
  plan.connections = std::max(plan.connections, plan.threads);
  const std::vector<RequestTemplate> tmpls = make_request_templates(plan);
  const uint64_t t0 = now_ns() + 20'000'000;  // let the threads start first
  const uint64_t measure_start = t0 + plan.warmup_ns;
  const uint64_t measure_end = plan.requests ? UINT64_MAX : measure_start + plan.duration_ns;

  std::vector<std::unique_ptr<LoadThread>> load_threads;
  for (int i = 0; i < plan.threads; ++i) {
    const int conns = plan.connections / plan.threads + (i < plan.connections % plan.threads ? 1 : 0);
    const double rate = plan.rate * double(conns) / double(plan.connections);
    const uint64_t quota = plan.requests ? plan.requests / uint64_t(plan.threads) +
                                               (uint64_t(i) < plan.requests % uint64_t(plan.threads) ? 1 : 0)
                                         : 0;
    if (plan.requests && quota == 0) continue;  // fewer requests than threads
    load_threads.push_back(
        std::make_unique<LoadThread>(plan, tmpls, i, conns, rate, quota, t0, measure_start, measure_end, stop));
  }
  std::vector<std::thread> threads;
  std::atomic<size_t> done_threads{0};
  for (auto& w : load_threads)
    threads.emplace_back([&w, &done_threads] {
      w->run();
      done_threads.fetch_add(1);
    });

  sleep_until_ns(measure_start, stop);
  if (hooks.at_start) hooks.at_start();
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  const uint64_t mono = now_ns();
  const uint64_t wall_ns = uint64_t(wall.tv_sec) * 1'000'000'000ULL + uint64_t(wall.tv_nsec);
  const uint64_t started_unix_ns = wall_ns - (mono > measure_start ? mono - measure_start : 0);
  // Progress ticks while the window runs (duration mode) or until every load thread is done.
  if (plan.live_progress && hooks.every_second) {
    std::vector<const LiveProgress*> parts;
    for (auto& w : load_threads) parts.push_back(&w->progress());
    uint64_t prev = 0, tick = measure_start;
    for (;;) {
      tick += 1'000'000'000ULL;
      if (!plan.requests && tick > measure_end) break;
      sleep_until_ns(tick, stop);
      if ((stop && stop->load()) || done_threads.load() == load_threads.size()) break;
      const ProgressSnapshot snap = read_progress(parts, double(tick - measure_start) / 1e9, prev, 1.0);
      prev = snap.requests;
      hooks.every_second(snap);
      if (plan.requests && snap.requests >= plan.requests) break;
    }
  }
  // Duration mode: the window ends at measure_end, or where the load threads saw `stop` (they
  // read nothing after it; see below). The snapshots are taken when this thread sees it, within
  // one sleep_until_ns step (5 ms) later.
  uint64_t window_end = measure_end;
  if (!plan.requests) {
    sleep_until_ns(measure_end, stop);
    if (hooks.at_end) hooks.at_end();
  }
  for (auto& t : threads) t.join();
  if (plan.requests && hooks.at_end) hooks.at_end();
  for (auto& w : load_threads)
    if (!w->result().setup_error.empty()) throw std::runtime_error(w->result().setup_error);

  LoadResult out;
  out.started_unix_ns = started_unix_ns;
  out.rows_requests.assign(plan.rows_mix.size(), 0);
  uint64_t last_done = measure_start;
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
    out.miss_end = std::max(out.miss_end, r.miss_end);
    out.thread_cpus.push_back(r.thread_cpus.empty() ? std::vector<int>{} : r.thread_cpus.front());
    out.spin_ns = std::max(out.spin_ns, r.spin_ns);
    for (const ErrorSample& e : r.error_samples) keep_first_error(out.error_samples, e.kind, e.detail);
    last_done = std::max(last_done, w->last_done_ns());
  }
  uint64_t stopped = 0;  // the last load thread's sight of `stop`: every response counted came before it
  for (auto& w : load_threads) stopped = std::max(stopped, w->stopped_ns());
  if (stopped) window_end = std::max(measure_start, std::min(measure_end, stopped));
  out.interrupted = stop && stop->load() &&
                    (plan.requests ? out.requests + out.errors.total() < plan.requests : window_end < measure_end);
  if (!plan.requests) {
    // Exactly one point per started second of the window, empty seconds included (a full
    // stall must show as zeros, not vanish); a response stamped at the very end joins the last.
    // An interrupted window has the seconds that started before the stop, no more.
    const size_t n = size_t((window_end - measure_start + Series::kIntervalNs - 1) / Series::kIntervalNs);
    auto& pts = out.series.points;
    for (size_t i = n; n > 0 && i < pts.size(); ++i) pts[n - 1].merge(pts[i]);
    pts.resize(n);
  }
  out.window_s = double((plan.requests ? last_done : window_end) - measure_start) / 1e9;
  return out;
}

}  // namespace hitcost::client
