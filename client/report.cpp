#include "client/report.h"

#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "client/log2_histogram.h"

namespace hitcost::client {

double RunReport::throughput_rps() const {
  return load.window_s > 0 ? double(load.requests) / load.window_s : 0.0;
}

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

std::optional<double> RunReport::busy_cores() const {
  if (!system || snapshot_window_s <= 0) return std::nullopt;
  return system->busy_s / snapshot_window_s;
}

std::optional<double> RunReport::other_cores() const {
  if (!system || !server || snapshot_window_s <= 0) return std::nullopt;
  // The server's CPU counts only when it runs here; with a remote server this is an
  // overestimate of "ours", so the figure is clamped at 0.
  const double ours = server->cpu_s + server->cache_cpu_s.value_or(0.0) + client_cpu_s;
  return std::max(0.0, (system->busy_s - ours) / snapshot_window_s);
}

std::optional<bool> RunReport::contaminated() const {
  const auto other = other_cores();
  if (!other) return std::nullopt;
  return *other > kContaminationCores;
}

nlohmann::json histogram_to_json(const Histogram& h) {
  nlohmann::json counts = nlohmann::json::array();
  const auto& c = h.counts();
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i]) counts.push_back({i, c[i]});
  return {{"unit", "ns"},
          {"layout", "hdr-log-linear"},
          {"sub_bucket_half_count_magnitude", Histogram::kSubBucketHalfCountMagnitude},
          {"bucket_count", Histogram::kBucketCount},
          {"count", h.count()},
          {"min", h.min()},
          {"max", h.max()},
          {"sum", h.sum()},
          {"clamped", h.clamped()},
          {"counts", counts}};
}

bool histogram_from_json(const nlohmann::json& j, Histogram* h) {
  try {
    if (j.at("sub_bucket_half_count_magnitude").get<int>() != Histogram::kSubBucketHalfCountMagnitude ||
        j.at("bucket_count").get<int>() != Histogram::kBucketCount)
      return false;
    std::vector<std::pair<size_t, uint64_t>> sparse;
    for (const auto& pair : j.at("counts")) sparse.emplace_back(pair.at(0).get<size_t>(), pair.at(1).get<uint64_t>());
    return h->restore(sparse, j.at("min").get<uint64_t>(), j.at("max").get<uint64_t>(),
                      j.at("sum").get<uint64_t>(), j.value("clamped", uint64_t{0}));
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

nlohmann::json latency_json(const Histogram& h) {
  auto us = [&](double p) { return double(h.value_at_percentile(p)) / 1000.0; };
  return {{"count", h.count()}, {"min", double(h.min()) / 1000.0}, {"mean", h.mean() / 1000.0},
          {"p50", us(50)},      {"p90", us(90)},                   {"p99", us(99)},
          {"p999", us(99.9)},   {"p9999", us(99.99)},              {"max", double(h.max()) / 1000.0}};
}

namespace {
nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
}  // namespace

nlohmann::json to_json(const RunReport& r) {
  const auto& e = r.load.errors;
  nlohmann::json j;
  j["mode"] = r.mode();
  j["url"] = r.url;
  j["path_template"] = r.path_template;
  j["connections"] = r.connections;
  j["threads"] = r.threads;
  j["cpus"] = r.cpus;
  j["thread_cpus"] = r.load.thread_cpus;
  j["rate_rps"] = r.rate;
  j["keys"] = r.keys;
  j["key_dist"] = r.key_dist;
  j["target_hit_ratio"] = opt(r.target_hit_ratio);
  j["rows"] = r.rows ? nlohmann::json(*r.rows) : nlohmann::json(nullptr);
  j["warmup_s"] = r.warmup_s;
  j["requests"] = r.load.requests;
  j["ok"] = r.load.ok;
  j["duration_s"] = r.load.window_s;
  j["throughput_rps"] = r.throughput_rps();
  j["hit_ratio"] = r.hit_ratio();
  j["latency_us"] = latency_json(r.load.latency);
  j["hit_latency_us"] = latency_json(r.load.hit);
  j["miss_latency_us"] = latency_json(r.load.miss);
  j["service_latency_us"] = latency_json(r.load.service);
  j["send_lateness_us"] = latency_json(r.load.send_lateness);  // open loop; empty in closed loop
  j["server_cpu_us_per_req"] = opt(r.server_cpu_us_per_req());
  j["cache_cpu_us_per_req"] = opt(r.cache_cpu_us_per_req());
  j["client_cpu_us_per_req"] = r.client_cpu_us_per_req();
  j["errors"] = {{"connect", e.connect}, {"read", e.read},     {"write", e.write},
                 {"timeout", e.timeout}, {"status", e.status}, {"parse", e.parse},
                 {"validation", e.validation}, {"total", e.total()}};
  j["unfinished"] = r.load.unfinished;
  j["unsent"] = r.load.unsent;
  j["started_unix_ns"] = r.load.started_unix_ns;
  j["contamination_retries"] = r.contamination_retries;
  if (!r.rows_mix.empty()) {
    nlohmann::json mix = nlohmann::json::array();
    for (size_t i = 0; i < r.rows_mix.size(); ++i)
      mix.push_back({{"rows", r.rows_mix[i].rows}, {"weight", r.rows_mix[i].weight},
                     {"requests", i < r.load.rows_requests.size() ? r.load.rows_requests[i] : 0}});
    j["rows_mix"] = mix;
  }
  // Where each party ran: CPU figures from a shared core are not comparable to pinned ones.
  j["placement"] = {{"client_pinned", r.cpus},
                    {"client_thread_cpus", r.load.thread_cpus},
                    {"server_cpus", r.server ? r.server->server_cpus : nlohmann::json("unknown")},
                    {"cache_cpus", r.server ? r.server->cache_cpus : nlohmann::json("unknown")}};
  j["reconnects"] = r.load.reconnects;
  j["strategy"] = r.strategy();
  j["store"] = r.store();
  nlohmann::json bytes = {{"response", r.load.requests ? double(r.load.bytes_read) / double(r.load.requests) : 0.0},
                          {"body", r.load.requests ? double(r.load.body_bytes) / double(r.load.requests) : 0.0}};
  if (r.server) {
    const ServerDelta& s = *r.server;
    nlohmann::json phases = nlohmann::json::object();
    for (const auto& p : s.phases) phases[p.name] = s.requests ? double(p.sum_ns) / 1000.0 / double(s.requests) : 0.0;
    j["phases_us_per_req"] = phases;
    bytes["cache_read"] = s.requests ? double(s.cache_bytes_read) / double(s.requests) : 0.0;
    bytes["cache_written"] = s.requests ? double(s.cache_bytes_written) / double(s.requests) : 0.0;
    j["server"] = {{"config", s.config},        {"threads", s.threads},
                   {"interval_s", s.interval_s}, {"requests", s.requests},
                   {"pages", s.pages},           {"hits", s.hits},
                   {"misses", s.misses},         {"decode_errors", s.decode_errors},
                   {"store_errors", s.store_errors}, {"bad_requests", s.bad_requests},
                   {"cpu_s", s.cpu_s},           {"cache_cpu_s", opt(s.cache_cpu_s)},
                   {"counters_reset", s.counters_reset}};
  } else {
    j["phases_us_per_req"] = nullptr;
    j["server"] = nullptr;
    if (!r.server_error.empty()) j["server_error"] = r.server_error;
  }
  j["bytes_per_req"] = bytes;
  j["system"] = {{"busy_cores", opt(r.busy_cores())},
                 {"other_cores", opt(r.other_cores())},
                 {"client_cpu_s", r.client_cpu_s},
                 {"window_s", r.snapshot_window_s}};
  const auto cont = r.contaminated();
  j["contaminated"] = cont ? nlohmann::json(*cont) : nlohmann::json(nullptr);
  if (!r.sweep_store.empty() || r.repeat_index >= 0) j["repeat"] = r.repeat_index;
  j["histogram"] = histogram_to_json(r.load.latency);
  j["histogram_hit"] = histogram_to_json(r.load.hit);
  j["histogram_miss"] = histogram_to_json(r.load.miss);
  j["histogram_service"] = histogram_to_json(r.load.service);
  j["histogram_send_lateness"] = histogram_to_json(r.load.send_lateness);
  j["series"] = series_json(r.load.series, r.load.window_s);
  return j;
}

namespace {
void appendf(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}
std::string cpus_text(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(cpus[i]);  // appended separately: GCC 12 -Wrestrict false positive on "," + str
  }
  return s.empty() ? "?" : s;
}
// ["0-1"] or "unknown" or [0,1] as plain text
std::string placement_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string s;
  for (const auto& e : v) {  // appended piecewise: GCC 12 -Wrestrict false positive on "x" + str
    if (!s.empty()) s += ' ';
    s += e.is_string() ? e.get<std::string>() : e.dump();
  }
  return s.empty() ? "unknown" : s;
}
std::string us_or_dash(const std::optional<double>& v) {
  char buf[32];
  if (!v) return "-";
  std::snprintf(buf, sizeof buf, "%.2f", *v);
  return buf;
}
}  // namespace

std::string format_terminal(const RunReport& r, bool quiet) {
  std::string o;
  const auto& e = r.load.errors;
  const Histogram& h = r.load.latency;
  auto us = [&](const Histogram& x, double p) { return double(x.value_at_percentile(p)) / 1000.0; };
  if (quiet) {
    appendf(o, "%s %s: %.0f req/s, p50 %.1f us, p99 %.1f us, server %s us/req, client %.2f us/req, errors %llu\n",
            r.mode().c_str(), r.strategy().c_str(), r.throughput_rps(), us(h, 50), us(h, 99),
            us_or_dash(r.server_cpu_us_per_req()).c_str(), r.client_cpu_us_per_req(),
            static_cast<unsigned long long>(e.total()));
    return o;
  }
  appendf(o, "hitcost-load: %s, %d connections, %d thread%s, %.2f s window after %.2f s warmup\n",
          r.mode().c_str(), r.connections, r.threads, r.threads == 1 ? "" : "s", r.load.window_s, r.warmup_s);
  if (r.rate > 0) appendf(o, "  open loop at %.0f req/s; latency from the intended send time\n", r.rate);
  else appendf(o, "  closed loop: latency from the actual send (stalls are under-represented)\n");
  appendf(o, "  %s%s  keys %llu %s", r.url.c_str(), r.path_template.c_str(),
          static_cast<unsigned long long>(r.keys), r.key_dist.c_str());
  if (r.target_hit_ratio) appendf(o, "  target hit ratio %.3f", *r.target_hit_ratio);
  if (r.rows) appendf(o, "  rows %d", *r.rows);
  appendf(o, "\n  strategy %s  store %s\n\n", r.strategy().empty() ? "?" : r.strategy().c_str(),
          r.store().empty() ? "?" : r.store().c_str());
  appendf(o, "  requests      %-10llu %.1f req/s   errors %llu (connect %llu, read %llu, write %llu, timeout %llu, "
             "status %llu, parse %llu, validation %llu)\n",
          static_cast<unsigned long long>(r.load.requests), r.throughput_rps(),
          static_cast<unsigned long long>(e.total()), static_cast<unsigned long long>(e.connect),
          static_cast<unsigned long long>(e.read), static_cast<unsigned long long>(e.write),
          static_cast<unsigned long long>(e.timeout), static_cast<unsigned long long>(e.status),
          static_cast<unsigned long long>(e.parse), static_cast<unsigned long long>(e.validation));
  if (r.load.unfinished || r.load.unsent)
    appendf(o, "  OVERLOAD      %llu requests due in the window were never sent and %llu not answered; both are in "
               "the latency as (window end - intended time)\n",
            static_cast<unsigned long long>(r.load.unsent), static_cast<unsigned long long>(r.load.unfinished));
  if (!r.rows_mix.empty()) {
    o += "  rows mix     ";
    for (size_t i = 0; i < r.rows_mix.size(); ++i)
      appendf(o, "  %d rows: %llu", r.rows_mix[i].rows,
              static_cast<unsigned long long>(i < r.load.rows_requests.size() ? r.load.rows_requests[i] : 0));
    o += "\n";
  }
  const uint64_t tagged = r.load.hit.count() + r.load.miss.count();
  appendf(o, "  hit ratio     %.4f %s", r.hit_ratio(), r.server ? "(server counters)" : "(X-Cache)");
  if (r.server && tagged) appendf(o, "  %.4f (X-Cache)", double(r.load.hit.count()) / double(tagged));
  o += "\n";
  appendf(o, "  latency us    p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f  mean %.1f\n",
          us(h, 50), us(h, 90), us(h, 99), us(h, 99.9), us(h, 99.99), double(h.max()) / 1000.0, h.mean() / 1000.0);
  if (r.load.hit.count())
    appendf(o, "  hits   us     p50 %.1f  p99 %.1f  (n=%llu)\n", us(r.load.hit, 50), us(r.load.hit, 99),
            static_cast<unsigned long long>(r.load.hit.count()));
  if (r.load.miss.count())
    appendf(o, "  misses us     p50 %.1f  p99 %.1f  (n=%llu)\n", us(r.load.miss, 50), us(r.load.miss, 99),
            static_cast<unsigned long long>(r.load.miss.count()));
  if (r.rate > 0)
    appendf(o, "  service us    p50 %.1f  p99 %.1f  (from the actual send)\n", us(r.load.service, 50),
            us(r.load.service, 99));
  if (r.rate > 0)
    appendf(o, "  send lateness us  p50 %.1f  p99 %.1f  max %.1f  (actual send - intended; the tool's own delay)\n",
            us(r.load.send_lateness, 50), us(r.load.send_lateness, 99), double(r.load.send_lateness.max()) / 1000.0);
  appendf(o, "  CPU us/req    server %s  cache %s  client %.2f\n", us_or_dash(r.server_cpu_us_per_req()).c_str(),
          us_or_dash(r.cache_cpu_us_per_req()).c_str(), r.client_cpu_us_per_req());
  if (r.server) {
    const ServerDelta& s = *r.server;
    o += "  phases us/req";
    for (const auto& p : s.phases)
      appendf(o, "  %s %.2f", p.name.c_str(), s.requests ? double(p.sum_ns) / 1000.0 / double(s.requests) : 0.0);
    o += "\n";
    appendf(o, "  bytes/req     response %.0f  cache read %.0f  cache written %.0f\n",
            r.load.requests ? double(r.load.bytes_read) / double(r.load.requests) : 0.0,
            s.requests ? double(s.cache_bytes_read) / double(s.requests) : 0.0,
            s.requests ? double(s.cache_bytes_written) / double(s.requests) : 0.0);
    if (s.decode_errors || s.store_errors || s.bad_requests)
      appendf(o, "  server errors decode %llu  store %llu  bad requests %llu\n",
              static_cast<unsigned long long>(s.decode_errors), static_cast<unsigned long long>(s.store_errors),
              static_cast<unsigned long long>(s.bad_requests));
    if (s.counters_reset) o += "  WARNING: server counters were reset during the run; server figures are wrong\n";
  } else {
    appendf(o, "  bytes/req     response %.0f\n",
            r.load.requests ? double(r.load.bytes_read) / double(r.load.requests) : 0.0);
    if (!r.server_error.empty()) appendf(o, "  server stats  unavailable: %s\n", r.server_error.c_str());
  }
  if (const auto busy = r.busy_cores()) {
    appendf(o, "  machine       %.2f cores busy", *busy);
    if (const auto other = r.other_cores())
      appendf(o, "; %.2f cores not server/cache/client -> %s", *other,
              *r.contaminated() ? "CONTAMINATED (other processes used CPU; CPU figures may be skewed)" : "clean");
    o += "\n";
  }
  o += "  threads ran on";
  for (size_t i = 0; i < r.load.thread_cpus.size(); ++i)
    appendf(o, "  t%zu: cpu %s", i, cpus_text(r.load.thread_cpus[i]).c_str());
  o += r.cpus.empty() ? "  (not pinned)\n" : "  (pinned)\n";
  if (r.server)
    appendf(o, "  server cpus %s  cache cpus %s\n", placement_text(r.server->server_cpus).c_str(),
            placement_text(r.server->cache_cpus).c_str());
  if (r.contamination_retries)
    appendf(o, "  re-run %d time%s because the machine was busy with other work\n", r.contamination_retries,
            r.contamination_retries == 1 ? "" : "s");
  o += "\n  latency distribution (log2)\n";
  // Without X-Cache tags (another path) the shape alone names the peaks.
  const bool misses_seen = r.load.miss.count() > 0 || r.load.hit.count() == 0;
  o += format_log2(Log2Histogram::from_ns(h), h.mean() / 1000.0, misses_seen);
  return o;
}

namespace {
RunReport measure_once(const LoadPlan& plan, bool server_stats,
                       std::function<void(const ProgressSnapshot&)> every_second, const std::atomic<bool>* stop) {
  RunReport r;
  r.url = "http://" + plan.endpoint.host_header;
  r.path_template = plan.path_template;
  r.connections = plan.connections;
  r.threads = plan.threads;
  r.cpus = plan.cpus;
  r.rate = plan.rate;
  r.keys = plan.keys.keys;
  r.key_dist = plan.keys.dist.kind == KeyDist::Kind::uniform ? "uniform" : "zipf:" + std::to_string(plan.keys.dist.zipf_s);
  r.target_hit_ratio = plan.keys.hit_ratio;
  r.requested_strategy = plan.expect_strategy;
  r.warmup_s = double(plan.warmup_ns) / 1e9;

  std::optional<nlohmann::json> before, after;
  std::optional<SystemCpu> sys_before, sys_after;
  double cpu_before = 0, cpu_after = 0;
  uint64_t t_before = 0, t_after = 0;
  std::string err;
  WindowHooks hooks;
  hooks.every_second = std::move(every_second);
  hooks.at_start = [&] {
    if (server_stats) before = fetch_stats(plan.endpoint, &err);
    sys_before = read_system_cpu();
    cpu_before = self_cpu_s();
    t_before = now_ns();
  };
  hooks.at_end = [&] {
    cpu_after = self_cpu_s();
    sys_after = read_system_cpu();
    t_after = now_ns();
    if (server_stats && before) after = fetch_stats(plan.endpoint, &err);
  };
  r.load = run_load(plan, hooks, stop);
  r.client_cpu_s = cpu_after - cpu_before;
  r.snapshot_window_s = double(t_after - t_before) / 1e9;
  if (sys_before && sys_after)
    r.system = SystemCpu{sys_after->busy_s - sys_before->busy_s, sys_after->total_s - sys_before->total_s};
  if (before && after) r.server = stats_delta(*before, *after);
  else r.server_error = err;
  r.rows_mix = plan.rows_mix;
  return r;
}
}  // namespace

RunReport measure_run(const LoadPlan& plan, bool server_stats, const std::atomic<bool>* stop) {
  return measure_once(plan, server_stats, nullptr, stop);
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
  RunReport r;
  for (int attempt = 0;; ++attempt) {
    r = measure_once(plan, o.server_stats, tick, stop);
    if (o.progress) {
      std::string clear(80, ' ');
      clear.front() = clear.back() = '\r';
      (void)!::write(2, clear.data(), clear.size());
    }
    r.contamination_retries = attempt;
    if (attempt >= o.retry_contaminated || !r.contaminated().value_or(false) || (stop && stop->load())) break;
    std::fprintf(stderr, "  run contaminated (%.2f cores used by other processes): retry %d/%d\n",
                 r.other_cores().value_or(0), attempt + 1, o.retry_contaminated);
    plan.keys.miss_start = std::max(plan.keys.miss_start, r.load.miss_end);
  }
  return r;
}

std::string csv_run_header() {
  return "mode,strategy,store,connections,threads,rate_rps,requests,errors,duration_s,throughput_rps,hit_ratio,"
         "p50_us,p90_us,p99_us,p999_us,max_us,server_cpu_us_per_req,cache_cpu_us_per_req,client_cpu_us_per_req,"
         "unsent,unfinished,contaminated,contamination_retries,started_unix_ns\n";
}

std::string csv_run_row(const nlohmann::json& j) {
  auto field = [&](const nlohmann::json& v) -> std::string {
    if (v.is_null()) return "";
    if (v.is_string()) {  // quoted only when needed (RFC 4180)
      std::string s = v.get<std::string>();
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string q(1, '"');
      for (char c : s) {
        q += c;
        if (c == '"') q += c;  // a quote inside is doubled
      }
      q += '"';
      return q;
    }
    if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
    if (v.is_number_float()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
      return buf;
    }
    return v.dump();
  };
  auto get = [&](const char* ptr) {
    const auto p = nlohmann::json::json_pointer(ptr);
    return j.contains(p) ? j.at(p) : nlohmann::json(nullptr);
  };
  std::string out;
  bool first = true;
  for (const char* ptr : {"/mode", "/strategy", "/store", "/connections", "/threads", "/rate_rps", "/requests",
                          "/errors/total", "/duration_s", "/throughput_rps", "/hit_ratio", "/latency_us/p50",
                          "/latency_us/p90", "/latency_us/p99", "/latency_us/p999", "/latency_us/max",
                          "/server_cpu_us_per_req", "/cache_cpu_us_per_req", "/client_cpu_us_per_req", "/unsent",
                          "/unfinished", "/contaminated", "/contamination_retries", "/started_unix_ns"}) {
    if (!first) out += ',';
    first = false;
    out += field(get(ptr));
  }
  return out + "\n";
}

}  // namespace hitcost::client
