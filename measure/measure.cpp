#include "measure/measure.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <thread>

#include "measure/floor_request.h"
#include "measure/slow_requests.h"

namespace hitcost::client {

double RunReport::throughput_rps() const { return load.window_s > 0 ? double(load.requests) / load.window_s : 0.0; }

double RunReport::hit_ratio() const {
  if (server && server->hits + server->misses > 0) return server->hit_ratio();
  const uint64_t n = load.hit.count() + load.miss.count();
  return n ? double(load.hit.count()) / double(n) : 0.0;
}

std::string RunReport::strategy() const {
  if (!requested_strategy.empty()) return requested_strategy;
  if (server && server->config.contains("strategy") && server->config["strategy"].is_string())
    return server->config["strategy"].get<std::string>();
  return "";
}

std::string RunReport::store() const {
  if (server && server->config.contains("store") && server->config["store"].is_string())
    return server->config["store"].get<std::string>();
  return sweep_store;
}

std::optional<double> RunReport::server_cpu_us_per_req() const {
  if (!server || server->requests == 0) return std::nullopt;
  return server->server_cpu_us_per_req();
}

std::optional<double> RunReport::cache_cpu_us_per_req() const {
  if (!server) return std::nullopt;
  return server->cache_cpu_us_per_req();
}

double RunReport::client_cpu_us_per_req() const {
  return load.requests ? client_cpu_s * 1e6 / double(load.requests) : 0.0;
}

std::optional<CpuFigures> RunReport::cpu() const {
  if (!server) return std::nullopt;
  const ServerDelta& s = *server;
  CpuReadings in;
  in.window_s = snapshot_window_s;
  in.server_requests = s.requests;
  in.server_cpu_s = s.cpu_s;
  in.cache_cpu_s = s.cache_cpu_s;
  in.client_cpu_s = client_cpu_s;
  in.machine = machine;
  in.census = census;
  if (idle) {
    in.idle_window_s = idle->window_s;
    in.idle_server_cpu_s = idle->server_cpu_s;
    in.idle_cache_cpu_s = idle->cache_cpu_s;
    in.idle_client_cpu_s = idle->client_cpu_s;
    in.idle_machine = idle->machine;
    in.idle_census = idle->census;
  }
  in.server_local = server_local;
  in.cache_local = cache_local;
  in.server_cpus = s.server_cpu_list();
  in.cache_cpus = s.cache_cpu_list();
  in.client_cpus = client_cpus;
  in.bytes_client_received = double(s.http_bytes_out);
  in.bytes_cache_received = s.cache_net_bytes_read.value_or(double(s.cache_bytes_written));
  in.sampled_hit_us = s.unobserved_cpu_us(s.sampled_hit);
  in.sampled_miss_us = s.unobserved_cpu_us(s.sampled_miss);
  in.sampled_other_us = s.unobserved_cpu_us(s.sampled_other);
  in.server_hits = s.hits;
  in.server_misses = s.misses;
  if (s.sampled_hit.weight > 0) {
    const SampledDelta& d = s.sampled_hit;
    for (const auto& [part, ns] : d.parts_cpu_ns) {
      SampledPart p{part, ns / d.weight / 1000.0, std::nullopt};
      if (part_has_wall(part))
        for (const auto& [wall_part, wall_ns] : d.parts_wall_ns)
          if (wall_part == part) p.wall_us = wall_ns / d.weight / 1000.0;
      in.hit_parts.push_back(std::move(p));
    }
  }
  // A server read from /proc samples nothing; when every answer was a hit, its CPU per
  // request is its CPU per hit (taken net of idle and attributed below like a sample).
  if (s.read_from_proc() && s.requests > 0 && s.hits == s.requests) {
    in.sampled_hit_us = s.cpu_s * 1e6 / double(s.requests);
  }
  in.contamination_threshold = contamination_threshold;
  return account(in, attribution);
}

std::optional<bool> RunReport::contaminated() const {
  const auto f = cpu();
  if (!f || f->contamination.state == Contamination::State::unknown) return std::nullopt;
  return f->contamination.state == Contamination::State::contaminated;
}

namespace {
// Snapshots of everything a CPU figure needs, at one instant.
struct Snapshot {
  std::optional<nlohmann::json> stats;
  std::string stats_error;  // why stats is empty when the server was asked
  std::optional<proc::MachineCpu> machine;
  std::optional<proc::ProcessCensus> census;
  double client_cpu_s = 0;
  uint64_t t_ns = 0;
};
// Where the server's figures come from: its /stats, or /proc for a set of processes.
struct StatsSource {
  bool http = true;
  const ProcessSetSpec* server = nullptr;  // non-empty: /proc
  const ProcessSetSpec* cache = nullptr;
  bool processes() const { return server && !server->empty(); }
  bool any() const { return http || processes(); }
};

Result<nlohmann::json> read_stats(const LoadPlan& plan, const StatsSource& src) {
  static const ProcessSetSpec none;
  return src.processes() ? process_set_stats(*src.server, src.cache ? *src.cache : none, double(now_ns()) / 1e9)
                         : fetch_stats(plan.endpoint);
}

// The server's figures are read just before (stats_first) or just after the clocks, so that
// the window they span contains the one the clocks span.
Snapshot take_snapshot(const LoadPlan& plan, const StatsSource& src, bool stats_first) {
  Snapshot s;
  auto read = [&] {
    if (!src.any()) return;
    auto stats = read_stats(plan, src);
    if (stats)
      s.stats = std::move(stats).value();
    else
      s.stats_error = stats.error().message;
  };
  if (stats_first) read();
  s.machine = proc::read_machine_cpu();
  s.census = proc::read_process_census();
  s.client_cpu_s = self_cpu_s();
  s.t_ns = now_ns();
  if (!stats_first) read();
  return s;
}
std::optional<proc::CensusCpu> census_delta(const Snapshot& a, const Snapshot& b) {
  if (!a.census || !b.census) return std::nullopt;
  return proc::census_cpu(*a.census, *b.census);
}
std::optional<proc::MachineCpu> machine_delta(const Snapshot& a, const Snapshot& b) {
  if (!a.machine || !b.machine) return std::nullopt;
  return b.machine->minus(*a.machine);
}

// No load for `idle_ns`: what the server, the cache and this client burn on their own.
std::optional<IdleBaseline> measure_idle(const LoadPlan& plan, const StatsSource& src, uint64_t idle_ns,
                                         const std::atomic<bool>* stop) {
  const Snapshot a = take_snapshot(plan, src, true);
  const uint64_t until = a.t_ns + idle_ns;
  while (now_ns() < until && !(stop && stop->load())) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Snapshot b = take_snapshot(plan, src, false);
  if (!a.stats || !b.stats) return std::nullopt;
  ServerDelta d = stats_delta(*a.stats, *b.stats);
  if (src.processes()) complete_process_delta(d, *a.stats, *b.stats, 0, 0, 0);
  IdleBaseline idle;
  idle.window_s = double(b.t_ns - a.t_ns) / 1e9;
  idle.server_cpu_s = d.cpu_s;
  idle.cache_cpu_s = d.cache_cpu_s;
  idle.client_cpu_s = b.client_cpu_s - a.client_cpu_s;
  idle.machine = machine_delta(a, b);
  idle.census = census_delta(a, b);
  idle.server_pages = d.hits + d.misses;
  return idle;
}

// Sleeps until the wall clock reads `unix_ns` (at once if it has passed; early on `stop`).
// Returns how many ms past it the clock read then: the sleep's overrun, or how late we came.
double wait_for_wall_time(uint64_t unix_ns, const std::atomic<bool>* stop) {
  for (uint64_t now = unix_now_ns(); now < unix_ns && !(stop && stop->load()); now = unix_now_ns())
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(unix_ns - now, 20'000'000)));
  return double(int64_t(unix_now_ns() - unix_ns)) / 1e6;
}

// The idle baseline before a run: `idle_ns` of no load; with a start time, the idle_ns just
// before it (what is left of them after the floor, or none when it has passed). A window in
// which the server answered pages was not idle (another client's load): dropped, and why is
// said in `why_none`, as is a start time that left no window.
std::optional<IdleBaseline> idle_before(const LoadPlan& plan, const StatsSource& src, uint64_t idle_ns,
                                        std::optional<uint64_t> start_at, const std::atomic<bool>* stop,
                                        std::string& why_none) {
  if (!src.any() || idle_ns == 0) return std::nullopt;
  uint64_t window_ns = idle_ns;
  if (start_at) {
    if (*start_at > idle_ns) wait_for_wall_time(*start_at - idle_ns, stop);
    // The window ends a little before the start: its closing snapshot (/stats, /proc) takes
    // ~10-20 ms here, and the load must not wait for it.
    constexpr uint64_t kSnapshotRoom = 50'000'000;
    const uint64_t now = unix_now_ns();
    window_ns = *start_at > now + kSnapshotRoom ? *start_at - now - kSnapshotRoom : 0;
    // Less than a quarter of the window asked: too short to say what idle costs.
    if (window_ns < idle_ns / 4) {
      why_none = "only " + std::to_string(window_ns / 1'000'000) + " of the " + std::to_string(idle_ns / 1'000'000) +
                 " ms before --start-at were left after the floor (or a late start): too short to measure idle";
      return std::nullopt;
    }
  }
  std::optional<IdleBaseline> idle = measure_idle(plan, src, window_ns, stop);
  if (idle && idle->loaded()) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "not idle: the server answered %llu pages in the %.2f s before the run (another client's load?); "
                  "no idle baseline taken off",
                  static_cast<unsigned long long>(idle->server_pages), idle->window_s);
    why_none = text;
    return std::nullopt;
  }
  return idle;
}

void describe_plan(const LoadPlan& plan, RunReport& r) {
  r.url = "http://" + plan.endpoint.host_header;
  r.url_address = address_text(plan.endpoint);
  r.path_template = plan.path_template;
  r.connections = plan.connections;
  r.threads = plan.threads;
  r.cpus = plan.cpus;
  r.rate_rps = plan.rate;
  r.keys = plan.keys.keys;
  r.key_dist =
      plan.keys.dist.kind == KeyDist::Kind::uniform ? "uniform" : "zipf:" + std::to_string(plan.keys.dist.zipf_s);
  r.target_hit_ratio = plan.keys.hit_ratio;
  r.requested_strategy = plan.expect_strategy;
  r.warmup_s = double(plan.warmup_ns) / 1e9;
  r.planned_duration_s = plan.requests ? 0.0 : double(plan.duration_ns) / 1e9;
  r.rows_mix = plan.rows_mix;
  if (plan.replay) {
    const ReplaySchedule& s = *plan.replay;
    const ReplayCounts& c = s.counts;
    r.replay = {{"trace", s.trace_path},
                {"trace_crc32c", s.trace_crc},
                {"events", c.events},
                {"speed", s.speed},
                {"span_s", double(s.span_ns) / 1e9},
                {"keys", c.keys},
                {"reads", c.reads},
                {"writes", c.writes + c.inferred_writes},
                {"inferred_writes", c.inferred_writes},
                {"deletes", c.removes + c.inferred_removes},
                {"inferred_deletes", c.inferred_removes},
                {"not_replayed", c.not_replayed},
                {"prewarmed", c.prewarmed},
                {"recorded_found", c.recorded_found},
                {"recorded_not_found", c.recorded_not_found},
                {"recorded_found_per_s", s.recorded_found_per_s},
                {"recorded_not_found_per_s", s.recorded_not_found_per_s},
                {"route", s.values ? "/value/{n}" : "/page/{id}"}};
    if (s.values) {
      r.replay["values_corpus"] = s.corpus_path;
      r.replay["keys_in_class"] = c.keys_in_class;
      r.replay["keys_nearest"] = c.keys_nearest;
    }
  }
  if (!plan.cpus.empty()) {
    r.client_cpus = plan.cpus;
    std::sort(r.client_cpus.begin(), r.client_cpus.end());
    r.client_cpus.erase(std::unique(r.client_cpus.begin(), r.client_cpus.end()), r.client_cpus.end());
  } else if (auto self = proc::read_process(::getpid())) {
    r.client_cpus = self->allowed_cpus;
  }
}

// Where each part ran: this client; the server by its /stats "host" (local: by its identity);
// each cache node as the server names it, on the server's host when the server found its
// memcached process there (a CPU list in store.extra.cpus, not "unknown"), local when that host
// is this one. A server read from /proc and its cache set are on this host by definition.
HostsRecord hosts_of(const RunReport& r, const nlohmann::json* after) {
  HostsRecord h;
  h.clients.push_back({proc::hostname(), proc::boot_id()});
  if (!r.server) return h;
  const ServerDelta& s = *r.server;
  h.server =
      ServerHostRecord{s.identity ? s.identity->hostname : "", s.identity ? s.identity->boot_id : "", r.server_local};
  if (s.read_from_proc()) {
    if (after)
      for (const Member& m : members_of(*after, "cache_processes"))
        h.cache.push_back({"pid " + std::to_string(m.pid), true, true});
    return h;
  }
  for (size_t i = 0; i < s.cache_nodes.size(); ++i) {
    const bool found = s.cache_cpus.is_array() && i < s.cache_cpus.size() && s.cache_cpus[i].is_string() &&
                       proc::parse_cpu_list(s.cache_cpus[i].get<std::string>()).has_value();
    h.cache.push_back({s.cache_nodes[i], found, found && r.server_local});
  }
  return h;
}

RunReport measure_once(const LoadPlan& plan, const StatsSource& src,
                       std::function<void(const ProgressSnapshot&)> every_second, const std::atomic<bool>* stop) {
  RunReport r;
  describe_plan(plan, r);
  Snapshot before, after;
  WindowHooks hooks;
  hooks.every_second = std::move(every_second);
  StatsSource second = src;           // if the first /stats failed, the second is not asked for
  std::optional<uint64_t> slow_mark;  // the server's slow log at the window's start (measure/slow_requests.h)
  hooks.at_start = [&] {
    before = take_snapshot(plan, src, true);
    if (!before.stats) second = StatsSource{false, nullptr, nullptr};
    if (second.http) slow_mark = slow_log_mark(plan.endpoint);
  };
  hooks.at_end = [&] {
    after = take_snapshot(plan, second, false);
    if (slow_mark) r.slowest = slowest_since(plan.endpoint, *slow_mark);
  };
  Result<LoadResult> load = run_load(plan, hooks, stop);
  if (!load) throw std::runtime_error(load.error().message);  // set-up failure: client/main.cpp reports it
  r.load = std::move(*load);
  if (plan.replay) {
    const auto& a = r.load.replay_answered;
    r.replay["answered"] = {{"read", a[size_t(ReplayKind::read)]},
                            {"write", a[size_t(ReplayKind::write)]},
                            {"delete", a[size_t(ReplayKind::remove)]}};
  }
  r.client_cpu_s = after.client_cpu_s - before.client_cpu_s;
  r.snapshot_window_s = after.t_ns > before.t_ns ? double(after.t_ns - before.t_ns) / 1e9 : 0.0;
  r.machine = machine_delta(before, after);
  r.census = census_delta(before, after);
  if (before.stats && after.stats) {
    r.server = stats_delta(*before.stats, *after.stats);
    if (src.processes()) {
      complete_process_delta(*r.server, *before.stats, *after.stats, r.load.requests, r.load.hit.count(),
                             r.load.miss.count());
    }
    // Local while we can look: the server by its identity, the cache nodes as the server saw them.
    r.server_local = r.server->identity && r.server->identity->is_local();
    r.cache_local = r.server_local && !r.server->cache_cpu_list().empty();
  } else {
    r.server_error = !before.stats_error.empty() ? before.stats_error : after.stats_error;
  }
  r.hosts = hosts_of(r, after.stats ? &*after.stats : nullptr);
  return r;
}
}  // namespace

RunReport measure_run(const LoadPlan& plan, bool server_stats, const std::atomic<bool>* stop) {
  return measure_once(plan, StatsSource{server_stats, nullptr, nullptr}, nullptr, stop);
}

RunReport measure_run(LoadPlan plan, const MeasureOptions& o, const std::atomic<bool>* stop) {
  std::function<void(const ProgressSnapshot&)> tick;
  if (o.progress) {
    plan.live_progress = true;
    tick = [](const ProgressSnapshot& p) {
      std::string line(1, '\r');  // built piecewise: GCC 12 -Wrestrict false positive on "\r" + str
      line += format_progress(p);
      line += "   ";
      (void)!::write(2, line.data(), line.size());  // one write: the line is never torn
    };
  }
  // How much other work shared the run's CPUs: the attempt with the least is kept.
  auto dirt = [](const RunReport& x) {
    const auto f = x.cpu();
    return f && f->contamination.state != Contamination::State::unknown ? f->contamination.fraction() : 0.0;
  };
  std::optional<RunReport> best;
  for (int attempt = 0;; ++attempt) {
    const StatsSource src{o.server_stats && o.server_processes.empty(), &o.server_processes, &o.cache_processes};
    // The floor first: its CPU is over before the idle baseline starts.
    nlohmann::json floor;
    std::string floor_error;
    if (o.floor && src.http && plan.replay) {
      // The floor is one page size's; a replay asks the trace's many (a page per key's value).
      floor_error = "not calibrated for a replayed trace: its pages have the trace's sizes, the floor one";
    } else if (o.floor && src.http) {
      auto f = calibrate_floor(plan);
      if (f)
        floor = std::move(*f);
      else
        floor_error = f.error().message;
    }
    const std::optional<uint64_t> start_at = attempt == 0 ? o.start_at_unix_ns : std::nullopt;
    std::string idle_error;
    std::optional<IdleBaseline> idle = idle_before(plan, src, o.idle_ns, start_at, stop, idle_error);
    double start_late_ms = 0;
    if (start_at) start_late_ms = wait_for_wall_time(*start_at, stop);
    RunReport r = measure_once(plan, src, tick, stop);
    if (o.progress) {
      std::string clear(80, ' ');
      clear.front() = clear.back() = '\r';
      (void)!::write(2, clear.data(), clear.size());
    }
    r.idle = idle;
    r.floor = std::move(floor);
    r.floor_error = std::move(floor_error);
    r.idle_error = std::move(idle_error);
    r.start_at_unix_ns = start_at;
    r.start_late_ms = start_late_ms;
    r.error_limits = o.error_limits;
    r.attribution = o.attribution;
    r.contamination_threshold = o.contamination_threshold;
    plan.keys.miss_start = std::max(plan.keys.miss_start, r.load.miss_end);
    const bool dirty = r.contaminated().value_or(false);
    if (!best || dirt(r) < dirt(*best)) best = std::move(r);
    best->contamination_retries = attempt;
    if (attempt >= o.retry_contaminated || !dirty || (stop && stop->load())) break;
    const auto f = best->cpu();
    std::fprintf(stderr, "  run contaminated (%s): retry %d/%d\n", f ? f->contamination.why.c_str() : "?", attempt + 1,
                 o.retry_contaminated);
  }
  best->load.miss_end = std::max(best->load.miss_end, plan.keys.miss_start);  // ids no attempt may reuse
  return *best;
}

}  // namespace hitcost::client
