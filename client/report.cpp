#include "client/report.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

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
  if (idle) {
    in.idle_window_s = idle->window_s;
    in.idle_server_cpu_s = idle->server_cpu_s;
    in.idle_cache_cpu_s = idle->cache_cpu_s;
    in.idle_client_cpu_s = idle->client_cpu_s;
    in.idle_machine = idle->machine;
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
nlohmann::json opt_bool(const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// The server's sampled CPU per request of each outcome, by part, CPU and wall apart (µs).
nlohmann::json sampling_json(const ServerDelta& s) {
  nlohmann::json out = {{"period", s.sample_period},
                        {"clock_read_ns", s.clock_read_ns},
                        {"clock_reads", s.clock_reads},
                        {"overhead_fraction", opt(s.sampling_overhead())},
                        {"clean_tiles", s.clean_tiles},
                        {"unobserved_cpu_us", opt(s.unobserved_cpu_us())},
                        {"whole_sample_excess_us", opt(s.sample_excess_us())}};
  for (auto [name, d] : {std::pair{"hit", &s.sampled_hit}, {"miss", &s.sampled_miss}, {"other", &s.sampled_other}}) {
    nlohmann::json cpu = nlohmann::json::object(), wall = nlohmann::json::object();
    for (const auto& [part, ns] : d->parts_cpu_ns) cpu[part] = d->weight > 0 ? ns / d->weight / 1000.0 : 0.0;
    for (const auto& [part, ns] : d->parts_wall_ns) wall[part] = d->weight > 0 ? ns / d->weight / 1000.0 : 0.0;
    out[name] = {{"whole_samples", d->whole_samples}, {"samples", d->samples}, {"cpu_us", opt(d->cpu_us())},
                 {"unobserved_cpu_us", opt(s.unobserved_cpu_us(*d))}, {"detailed_cpu_us", opt(d->detailed_cpu_us())},
                 {"parts_cpu_us", cpu}, {"parts_wall_us", wall}};
  }
  return out;
}
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
  j["duration_s"] = r.load.window_s;  // the window that ran: shorter than planned when interrupted
  j["planned_duration_s"] = r.planned_duration_s;
  j["interrupted"] = r.interrupted();
  j["throughput_rps"] = r.throughput_rps();
  j["hit_ratio"] = r.hit_ratio();
  j["latency_us"] = latency_json(r.load.latency);
  j["hit_latency_us"] = latency_json(r.load.hit);
  j["miss_latency_us"] = latency_json(r.load.miss);
  j["service_latency_us"] = latency_json(r.load.service);
  j["send_lateness_us"] = latency_json(r.load.send_lateness);  // open loop; empty in closed loop
  j["spin_us"] = double(r.load.spin_ns) / 1000.0;  // open loop: the spin before each send at the end
  j["server_cpu_us_per_req"] = opt(r.server_cpu_us_per_req());
  j["cache_cpu_us_per_req"] = opt(r.cache_cpu_us_per_req());
  j["client_cpu_us_per_req"] = r.client_cpu_us_per_req();
  j["errors"] = {{"connect", e.connect}, {"read", e.read},     {"write", e.write},
                 {"timeout", e.timeout}, {"status", e.status}, {"parse", e.parse},
                 {"validation", e.validation}, {"total", e.total()}};
  nlohmann::json samples = nlohmann::json::array();
  for (const ErrorSample& x : r.load.error_samples) samples.push_back({{"kind", x.kind}, {"first", x.detail}});
  j["error_samples"] = samples;  // the first error of each kind with its reason (the server's body for a status)
  const auto over = r.over_error_limit();
  j["error_limit"] = {{"max_error_rate", r.error_limits.wrong_answers},
                      {"max_transport_error_rate", r.error_limits.transport},
                      {"exceeded", over ? nlohmann::json(*over) : nlohmann::json(nullptr)}};
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
                    {"client_cpus", proc::format_cpu_list(r.client_cpus)},
                    {"server_cpus", r.server ? r.server->server_cpus : nlohmann::json("unknown")},
                    {"cache_cpus", r.server ? r.server->cache_cpus : nlohmann::json("unknown")},
                    {"server_local", r.server_local},
                    {"cache_local", r.cache_local}};
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
    j["server"] = {{"backend", s.backend},      {"members_changed", s.members_changed},
                   {"config", s.config},        {"threads", s.threads},
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
  j["system"] = {{"client_cpu_s", r.client_cpu_s}, {"window_s", r.snapshot_window_s}};
  const std::optional<CpuFigures> cpu = r.cpu();
  // The headline: the server's CPU per hit, sampled, net of idle, in cpu.attribution.
  j["server_cpu_us_per_hit"] = cpu ? opt(cpu->server_hit_us) : nlohmann::json(nullptr);
  j["cpu"] = cpu ? cpu_figures_json(*cpu, r.server->requests) : nlohmann::json(nullptr);
  j["server_sampling"] = r.server ? sampling_json(*r.server) : nlohmann::json(nullptr);
  // The server's memory at the window's end: its own (anon + shmem) apart from mapped file
  // pages (RSS counts an mmap store's whole cached file).
  j["server_memory_kb"] = r.server ? r.server->memory : nlohmann::json(nullptr);
  j["contaminated"] = opt_bool(r.contaminated());
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
// The CPU block: the headline per hit, per request at the run's hit ratio in every accounting,
// the server's sampled parts, the idle baseline, attribution and contamination.
std::string format_cpu(const RunReport& r) {
  std::string o;
  const std::optional<CpuFigures> f = r.cpu();
  if (!f) {
    appendf(o, "  CPU us/req    client %.2f (no server stats: no server or cache figures)\n", r.client_cpu_us_per_req());
    return o;
  }
  const ServerDelta& s = *r.server;
  const uint64_t n = s.requests;
  const char* mode = to_string(f->attribution);
  if (f->server_hit_us) {
    appendf(o, "  CPU per hit   server %.2f us  (%s, net of idle: %s %.2f, idle %+.2f, receive work moved %+.2f)",
            *f->server_hit_us, mode, s.read_from_proc() ? "per request, all hits" : "sampled",
            f->server_hit_sampled_us.value_or(0), -f->idle_server_us_per_req,
            f->server_shift_us_per_req);
    if (f->attribution == Attribution::sender_pays && f->server_hit_receiver_us)
      appendf(o, "; receiver-pays %.2f", *f->server_hit_receiver_us);
    if (f->attribution == Attribution::receiver_pays && f->server_hit_sender_us)
      appendf(o, "; sender-pays %.2f", *f->server_hit_sender_us);
    o += "\n";
  } else if (s.read_from_proc()) {
    o += "  CPU per hit   - (a server read from /proc gives CPU per hit only when every answer is an X-Cache hit)\n";
  } else
    o += "  CPU per hit   - (the server did not sample its CPU: --no-metrics, or an older server)\n";
  if (f->server_miss_us) appendf(o, "  CPU per miss  server %.2f us\n", *f->server_miss_us);
  appendf(o, "  CPU us/req    at hit ratio %.3f, net of idle, %s: server %.2f  ", r.hit_ratio(), mode,
          f->per_request_us(f->attributed.server, n));
  if (!f->attributed.peers_split)
    appendf(o, "cache+client %.2f", f->per_request_us(f->attributed.peers(), n));
  else
    appendf(o, "cache %s  client %.2f",
            r.server->cache_cpu_s ? us_or_dash(f->per_request_us(f->attributed.cache, n)).c_str() : "-",
            f->per_request_us(f->attributed.client, n));
  appendf(o, "  total %.2f\n", f->per_request_us(f->attributed.total(), n));
  appendf(o, "                raw (sender-pays, idle included): server %.2f  cache %s  client %.2f", 
          f->per_request_us(f->raw.server, n),
          r.server->cache_cpu_s ? us_or_dash(f->per_request_us(f->raw.cache, n)).c_str() : "-",
          f->per_request_us(f->raw.client, n));
  if (f->machine_busy_net_s) appendf(o, "  machine busy %.2f", f->per_request_us(*f->machine_busy_net_s, n));
  o += "\n";
  for (auto [name, d] : {std::pair{"hit", &s.sampled_hit}, {"miss", &s.sampled_miss}}) {
    if (!d->cpu_us() || d->samples == 0) continue;
    appendf(o, "  server %-5s  CPU us", name);
    for (const auto& [part, ns] : d->parts_cpu_ns)
      if (ns != 0) appendf(o, "  %s %.2f", part.c_str(), ns / d->weight / 1000.0);
    o += "\n                wall us";
    for (const auto& [part, ns] : d->parts_wall_ns)
      if (ns != 0) appendf(o, "  %s %.2f", part.c_str(), ns / d->weight / 1000.0);
    appendf(o, "   (%llu detailed samples: %.2f us in all, %+.2f from their extra clock reads)\n",
            static_cast<unsigned long long>(d->samples), d->detailed_cpu_us().value_or(0),
            d->detailed_cpu_us().value_or(0) - d->cpu_us().value_or(0));
  }
  if (const auto overhead = s.sampling_overhead())
    appendf(o, "  sampling      about 1 in %llu requests, %.0f ns a clock read, %.2f %% of the server's CPU\n",
            static_cast<unsigned long long>(s.sample_period), s.clock_read_ns, *overhead * 100);
  if (const auto excess = s.sample_excess_us())
    appendf(o, "                a whole sample's reads add %+.2f us to the request they time (against %llu clean tiles: "
               "%.2f us/req unobserved); taken out of CPU per hit and per miss\n",
            *excess, static_cast<unsigned long long>(s.clean_tiles), *s.unobserved_cpu_us());
  else if (s.clock_reads)
    appendf(o, "                too few clean tiles (%llu < %llu): CPU per hit as sampled, the reads' own disturbance "
               "left in\n", static_cast<unsigned long long>(s.clean_tiles),
            static_cast<unsigned long long>(ServerDelta::kMinCleanTiles));
  if (f->idle_cores)
    appendf(o, "  idle          server %.4f  cache %.4f  client %.4f cores (%.1f s before the run, no load)\n",
            f->idle_cores->server, f->idle_cores->cache, f->idle_cores->client, r.idle ? r.idle->window_s : 0.0);
  appendf(o, "  attribution   %s\n", f->attribution_note.c_str());
  if (f->attribution == Attribution::sender_pays) appendf(o, "                receiver-pays: %s\n", f->receiver_pays_note.c_str());
  if (f->softirq_server_cpus_s)
    appendf(o, "  receive work  softirq on the server's CPUs %.2f us/req (its peers receiving), on the peers' CPUs %.2f "
               "(the server receiving)\n",
            f->per_request_us(*f->softirq_server_cpus_s, n), f->per_request_us(f->softirq_peer_cpus_s.value_or(0), n));
  appendf(o, "  contamination %s: %s\n", to_string(f->contamination.state), f->contamination.why.c_str());
  return o;
}
}  // namespace

std::string format_error_lines(const RunReport& r) {
  std::string o;
  for (const ErrorSample& x : r.load.error_samples)
    appendf(o, "  first %-12s %s\n", x.kind.c_str(), x.detail.empty() ? "(no reason given)" : x.detail.c_str());
  if (const auto over = r.over_error_limit()) appendf(o, "  ERRORS        %s\n", over->c_str());
  return o;
}

std::string format_terminal(const RunReport& r, bool quiet) {
  std::string o;
  const auto& e = r.load.errors;
  const Histogram& h = r.load.latency;
  auto us = [&](const Histogram& x, double p) { return double(x.value_at_percentile(p)) / 1000.0; };
  if (quiet) {
    appendf(o, "%s %s: %.0f req/s, p50 %.1f us, p99 %.1f us, server %s us/req, client %.2f us/req, errors %llu%s\n",
            r.mode().c_str(), r.strategy().c_str(), r.throughput_rps(), us(h, 50), us(h, 99),
            us_or_dash(r.server_cpu_us_per_req()).c_str(), r.client_cpu_us_per_req(),
            static_cast<unsigned long long>(e.total()), r.interrupted() ? " INTERRUPTED" : "");
    return o;
  }
  appendf(o, "hitcost-load: %s, %d connections, %d thread%s, %.2f s window after %.2f s warmup\n",
          r.mode().c_str(), r.connections, r.threads, r.threads == 1 ? "" : "s", r.load.window_s, r.warmup_s);
  if (r.interrupted())
    appendf(o, "  INTERRUPTED   after %.2f s of the %.2f s planned: every figure is over the %.2f s that ran\n",
            r.load.window_s, r.planned_duration_s, r.load.window_s);
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
  o += format_error_lines(r);
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
    appendf(o, "  send lateness us  p50 %.1f  p99 %.1f  max %.1f  (actual send - intended; the tool's own delay; "
               "spin %.0f us)\n",
            us(r.load.send_lateness, 50), us(r.load.send_lateness, 99), double(r.load.send_lateness.max()) / 1000.0,
            double(r.load.spin_ns) / 1000.0);
  o += format_cpu(r);
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
    if (s.memory.is_object()) {
      auto kb = [&](const char* k) {
        return s.memory.contains(k) && s.memory[k].is_number() ? std::to_string(s.memory[k].get<uint64_t>() / 1024) + " MiB"
                                                               : std::string("-");
      };
      appendf(o, "  server memory own %s (anon + shmem), PSS %s, RSS %s; store file in page cache %s\n",
              kb("process_own_kb").c_str(), kb("pss_kb").c_str(), kb("rss_kb").c_str(),
              kb("store_file_resident_kb").c_str());
    }
    if (s.counters_reset) o += "  WARNING: server counters were reset during the run; server figures are wrong\n";
  } else {
    appendf(o, "  bytes/req     response %.0f\n",
            r.load.requests ? double(r.load.bytes_read) / double(r.load.requests) : 0.0);
    if (!r.server_error.empty()) appendf(o, "  server stats  unavailable: %s\n", r.server_error.c_str());
  }
  o += "  threads ran on";
  for (size_t i = 0; i < r.load.thread_cpus.size(); ++i)
    appendf(o, "  t%zu: cpu %s", i, cpus_text(r.load.thread_cpus[i]).c_str());
  o += r.cpus.empty() ? "  (not pinned)\n" : "  (pinned)\n";
  if (r.server && r.server->read_from_proc()) {
    appendf(o, "  backend       %s, read from /proc%s\n", r.server->backend.c_str(),
            r.server->members_changed ? " (processes came or went in the window: CPU incomplete)" : "");
  }
  if (r.server)
    appendf(o, "  server cpus %s  cache cpus %s\n", placement_text(r.server->server_cpus).c_str(),
            placement_text(r.server->cache_cpus).c_str());
  if (r.contamination_retries)
    appendf(o, "  re-run %d time%s because the machine was busy with other work; the cleanest attempt is shown\n",
            r.contamination_retries, r.contamination_retries == 1 ? "" : "s");
  o += "\n  latency distribution (log2)\n";
  // Without X-Cache tags (another path) the shape alone names the peaks.
  const bool misses_seen = r.load.miss.count() > 0 || r.load.hit.count() == 0;
  o += format_log2(Log2Histogram::from_ns(h), h.mean() / 1000.0, misses_seen);
  return o;
}

namespace {
// Snapshots of everything a CPU figure needs, at one instant.
struct Snapshot {
  std::optional<nlohmann::json> stats;
  std::optional<proc::MachineCpu> machine;
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

std::optional<nlohmann::json> read_stats(const LoadPlan& plan, const StatsSource& src, std::string* err) {
  static const ProcessSetSpec none;
  auto stats = src.processes()
                   ? process_set_stats(*src.server, src.cache ? *src.cache : none, double(now_ns()) / 1e9)
                   : fetch_stats(plan.endpoint);
  if (!stats) {
    if (err) *err = stats.error().message;
    return std::nullopt;
  }
  return std::move(stats).value();
}

Snapshot take_snapshot(const LoadPlan& plan, const StatsSource& src, bool stats_first, std::string* err) {
  Snapshot s;
  if (src.any() && stats_first) s.stats = read_stats(plan, src, err);
  s.machine = proc::read_machine_cpu();
  s.client_cpu_s = self_cpu_s();
  s.t_ns = now_ns();
  if (src.any() && !stats_first) s.stats = read_stats(plan, src, err);
  return s;
}
std::optional<proc::MachineCpu> machine_delta(const Snapshot& a, const Snapshot& b) {
  if (!a.machine || !b.machine) return std::nullopt;
  return b.machine->minus(*a.machine);
}

// No load for `idle_ns`: what the server, the cache and this client burn on their own.
std::optional<IdleBaseline> measure_idle(const LoadPlan& plan, const StatsSource& src, uint64_t idle_ns,
                                        const std::atomic<bool>* stop) {
  std::string err;
  const Snapshot a = take_snapshot(plan, src, true, &err);
  const uint64_t until = a.t_ns + idle_ns;
  while (now_ns() < until && !(stop && stop->load())) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Snapshot b = take_snapshot(plan, src, false, &err);
  if (!a.stats || !b.stats) return std::nullopt;
  ServerDelta d = stats_delta(*a.stats, *b.stats);
  if (src.processes()) complete_process_delta(d, *a.stats, *b.stats, 0, 0, 0);
  IdleBaseline idle;
  idle.window_s = double(b.t_ns - a.t_ns) / 1e9;
  idle.server_cpu_s = d.cpu_s;
  idle.cache_cpu_s = d.cache_cpu_s;
  idle.client_cpu_s = b.client_cpu_s - a.client_cpu_s;
  idle.machine = machine_delta(a, b);
  return idle;
}

void describe_plan(const LoadPlan& plan, RunReport& r) {
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
  r.planned_duration_s = plan.requests ? 0.0 : double(plan.duration_ns) / 1e9;
  r.rows_mix = plan.rows_mix;
  if (!plan.cpus.empty()) {
    r.client_cpus = plan.cpus;
    std::sort(r.client_cpus.begin(), r.client_cpus.end());
    r.client_cpus.erase(std::unique(r.client_cpus.begin(), r.client_cpus.end()), r.client_cpus.end());
  } else if (auto self = proc::read_process(::getpid())) {
    r.client_cpus = self->allowed_cpus;
  }
}

RunReport measure_once(const LoadPlan& plan, const StatsSource& src,
                       std::function<void(const ProgressSnapshot&)> every_second, const std::atomic<bool>* stop) {
  RunReport r;
  describe_plan(plan, r);
  Snapshot before, after;
  std::string err;
  WindowHooks hooks;
  hooks.every_second = std::move(every_second);
  StatsSource second = src;  // if the first /stats failed, the second is not asked for
  hooks.at_start = [&] {
    before = take_snapshot(plan, src, true, &err);
    if (!before.stats) second = StatsSource{false, nullptr, nullptr};
  };
  hooks.at_end = [&] { after = take_snapshot(plan, second, false, &err); };
  r.load = run_load(plan, hooks, stop);
  r.client_cpu_s = after.client_cpu_s - before.client_cpu_s;
  r.snapshot_window_s = after.t_ns > before.t_ns ? double(after.t_ns - before.t_ns) / 1e9 : 0.0;
  r.machine = machine_delta(before, after);
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
    r.server_error = err;
  }
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
    std::optional<IdleBaseline> idle;
    if (src.any() && o.idle_ns > 0) idle = measure_idle(plan, src, o.idle_ns, stop);
    RunReport r = measure_once(plan, src, tick, stop);
    if (o.progress) {
      std::string clear(80, ' ');
      clear.front() = clear.back() = '\r';
      (void)!::write(2, clear.data(), clear.size());
    }
    r.idle = idle;
    r.error_limits = o.error_limits;
    r.attribution = o.attribution;
    r.contamination_threshold = o.contamination_threshold;
    plan.keys.miss_start = std::max(plan.keys.miss_start, r.load.miss_end);
    const bool dirty = r.contaminated().value_or(false);
    if (!best || dirt(r) < dirt(*best)) best = std::move(r);
    best->contamination_retries = attempt;
    if (attempt >= o.retry_contaminated || !dirty || (stop && stop->load())) break;
    const auto f = best->cpu();
    std::fprintf(stderr, "  run contaminated (%s): retry %d/%d\n", f ? f->contamination.why.c_str() : "?",
                 attempt + 1, o.retry_contaminated);
  }
  best->load.miss_end = std::max(best->load.miss_end, plan.keys.miss_start);  // ids no attempt may reuse
  return *best;
}

namespace {
// One row per CSV column: its header name and where its value is in a run JSON. The header
// and every row come from this list, so they cannot drift apart.
struct CsvColumn {
  const char* name;
  const char* pointer;
};
constexpr CsvColumn kCsvColumns[] = {
    {"mode", "/mode"},
    {"strategy", "/strategy"},
    {"store", "/store"},
    {"connections", "/connections"},
    {"threads", "/threads"},
    {"rate_rps", "/rate_rps"},
    {"requests", "/requests"},
    {"errors", "/errors/total"},
    {"duration_s", "/duration_s"},
    {"throughput_rps", "/throughput_rps"},
    {"hit_ratio", "/hit_ratio"},
    {"p50_us", "/latency_us/p50"},
    {"p90_us", "/latency_us/p90"},
    {"p99_us", "/latency_us/p99"},
    {"p999_us", "/latency_us/p999"},
    {"max_us", "/latency_us/max"},
    {"server_cpu_us_per_req", "/server_cpu_us_per_req"},
    {"cache_cpu_us_per_req", "/cache_cpu_us_per_req"},
    {"client_cpu_us_per_req", "/client_cpu_us_per_req"},
    {"unsent", "/unsent"},
    {"unfinished", "/unfinished"},
    {"contaminated", "/contaminated"},
    {"contamination_retries", "/contamination_retries"},
    {"started_unix_ns", "/started_unix_ns"},
    {"interrupted", "/interrupted"},
};
}  // namespace

std::string csv_run_header() {
  std::string out;
  for (const CsvColumn& col : kCsvColumns) {
    if (!out.empty()) out += ',';
    out += col.name;
  }
  return out + "\n";
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
  for (const CsvColumn& col : kCsvColumns) {
    if (!first) out += ',';
    first = false;
    out += field(get(col.pointer));
  }
  return out + "\n";
}

}  // namespace hitcost::client
