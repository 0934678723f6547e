#include "server/stats_report.h"

#include <cmath>
#include <cstdio>
#include <unistd.h>

#include "proc/proc.h"
#include "server/process_stats.h"

namespace hitcost::server {

namespace {
// Sums since the reset; a reader divides the differences of two snapshots (see docs/http-api.md).
// Signed sums (a part corrected for the clock's cost can be < 0) are written as signed.
nlohmann::json sampled_cpu_json(const MetricsSnapshot& m) {
  using nlohmann::json;
  const auto signed_ns = [](uint64_t v) { return static_cast<int64_t>(v); };
  json out = {{"period", m.sample_period},
              {"clock_read_ns", m.clock_read_ns},
              {"clock_reads", m.clock_reads},
              {"clean_tiles", {{"tiles", m.clean_tiles},
                               {"requests", m.clean_tile_cuts},
                               {"cpu_ns", signed_ns(m.clean_tile_cpu_ns)}}}};
  for (size_t o = 0; o < kOutcomes; ++o) {
    const auto& s = m.sampled[o];
    json parts_cpu = json::object(), parts_wall = json::object(), buckets = json::array();
    for (size_t k = 0; k < kCpuParts; ++k) {
      const char* name = to_string(static_cast<CpuPart>(k));
      parts_cpu[name] = signed_ns(s.part_cpu_ns[k]);
      parts_wall[name] = signed_ns(s.part_wall_ns[k]);
    }
    size_t last = 0;
    for (size_t k = 0; k < kLog2Buckets; ++k)
      if (s.cpu_log2[k]) last = k + 1;
    for (size_t k = 0; k < last; ++k) buckets.push_back(s.cpu_log2[k]);
    out[to_string(static_cast<Outcome>(o))] = {{"whole", {{"samples", s.whole_samples},
                                                          {"weight", s.whole_weight},
                                                          {"cpu_ns", signed_ns(s.whole_cpu_ns)}}},
                                                {"samples", s.samples},
                                                {"weight", s.weight},
                                                {"cpu_ns", signed_ns(s.cpu_ns)},
                                                {"parts_cpu_ns", parts_cpu},
                                                {"parts_wall_ns", parts_wall},
                                                {"cpu_log2_buckets", buckets}};
  }
  return out;
}

nlohmann::json kb_or_null(std::optional<uint64_t> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// /stats "memory": what the process holds, told apart from the page cache it maps.
nlohmann::json memory_json(uint64_t rss_kb, const ProcessMemory& pm, const StoreStats& ss) {
  // The process's own memory: anonymous pages (heap, stacks, a memory store's values, a
  // file store's index) plus shmem, which the kernel cannot drop without swap. Mapped file
  // pages (pss_file: an mmap store's file, the binary, libraries) are left out: they are
  // page cache the kernel can drop and read back, and rss_kb counts them whole.
  std::optional<uint64_t> own;
  if (pm.pss_anon_kb && pm.pss_shmem_kb) own = *pm.pss_anon_kb + *pm.pss_shmem_kb;
  // File stores report their file's pages in the page cache, mapped here or not.
  std::optional<uint64_t> store_file_kb;
  if (auto it = ss.extra.find("resident_bytes"); it != ss.extra.end() && it->second >= 0)
    store_file_kb = static_cast<uint64_t>(it->second) / 1024;
  return {{"rss_kb", rss_kb},
          {"pss_kb", kb_or_null(pm.pss_kb)},
          {"pss_anon_kb", kb_or_null(pm.pss_anon_kb)},
          {"pss_file_kb", kb_or_null(pm.pss_file_kb)},
          {"pss_shmem_kb", kb_or_null(pm.pss_shmem_kb)},
          {"process_own_kb", kb_or_null(own)},
          {"store_file_resident_kb", kb_or_null(store_file_kb)}};
}

}  // namespace

nlohmann::json stats_json(const ServerContext& ctx, const RuntimeConfig& cfg) {
  using nlohmann::json;
  MetricsSnapshot m = ctx.metrics.since_reset();
  auto now = std::chrono::steady_clock::now();
  ProcessCpu cpu = process_cpu();
  ProcessIo io = process_io();

  json j;
  j["uptime_s"] = std::chrono::duration<double>(now - ctx.started).count();
  j["interval_s"] = std::chrono::duration<double>(now - ctx.metrics.reset_at()).count();
  j["config"] = cfg.to_json();
  j["threads"] = ctx.threads;
  {
    std::lock_guard lk(ctx.placement_mu);
    j["thread_cpus"] = ctx.thread_cpus;  // affinity of each io thread, e.g. ["0"] or ["0-1"]
  }
  j["pin_failures"] = ctx.pin_failures.load(std::memory_order_relaxed);
  j["pid"] = static_cast<int64_t>(::getpid());
  // Who and where this process is: a client on the same machine (same boot id) finds the
  // same pid with the same start time in its own /proc, and then knows the server is local.
  static const nlohmann::json host = {
      {"boot_id", proc::boot_id()},
      {"pid", static_cast<int64_t>(::getpid())},
      {"start_ticks", proc::read_process(::getpid()).value_or(proc::ProcessInfo{}).start_ticks}};
  j["host"] = host;
  j["metrics_enabled"] = ctx.opts.metrics;
  j["requests"] = m.requests;
  j["pages"] = m.pages;
  j["hits"] = m.hits;
  j["misses"] = m.misses;
  j["decode_errors"] = m.decode_errors;
  j["store_errors"] = m.store_errors;
  j["store_set_errors"] = m.store_set_errors;
  j["bad_requests"] = m.bad_requests();
  json by_kind_decode = json::object(), by_kind_store = json::object();
  for (size_t i = 0; i < kErrcCount; ++i) {
    const char* name = to_string(static_cast<Errc>(i));
    if (m.decode_errors_by_kind[i]) by_kind_decode[name] = m.decode_errors_by_kind[i];
    if (m.store_errors_by_kind[i]) by_kind_store[name] = m.store_errors_by_kind[i];
  }
  j["decode_errors_by_kind"] = by_kind_decode;
  j["store_errors_by_kind"] = by_kind_store;
  json statuses = json::object();
  for (size_t i = 0; i < kCountedStatuses.size(); ++i)
    statuses[std::to_string(kCountedStatuses[i])] = m.status_counts[i];
  j["responses_by_status"] = statuses;
  j["cpu"] = {{"user_s", cpu.user_s - ctx.metrics.cpu_user_at_reset()},
              {"system_s", cpu.system_s - ctx.metrics.cpu_system_at_reset()},
              {"total_user_s", cpu.user_s},
              {"total_system_s", cpu.system_s},
              {"voluntary_switches", cpu.voluntary_switches},
              {"involuntary_switches", cpu.involuntary_switches}};
  const uint64_t rss_kb = process_rss_kb();
  j["rss_kb"] = rss_kb;  // also memory.rss_kb; kept at the top level for older readers
  json phases = json::object();
  for (size_t p = 0; p < kPhases; ++p) {
    const auto& ph = m.phases[p];
    json buckets = json::array();
    // Trim trailing empty buckets; bucket k holds [2^k, 2^(k+1)) ns.
    size_t last = 0;
    for (size_t k = 0; k < kLog2Buckets; ++k)
      if (ph.buckets[k]) last = k + 1;
    for (size_t k = 0; k < last; ++k) buckets.push_back(ph.buckets[k]);
    phases[to_string(static_cast<Phase>(p))] = {{"count", ph.count}, {"sum", ph.sum_ns}, {"log2_buckets", buckets}};
  }
  j["phases_ns"] = phases;
  j["cpu_sampled"] = sampled_cpu_json(m);
  j["cache"] = {{"bytes_read", m.cache_bytes_read}, {"bytes_written", m.cache_bytes_written}};
  j["http"] = {{"bytes_in", m.http_bytes_in},
               {"bytes_out", m.http_bytes_out},
               {"connections_opened", m.connections_opened},
               {"connections_closed", m.connections_closed},
               {"partial_writes", m.partial_writes}};
  if (io.ok)
    j["proc_io"] = {{"rchar", io.rchar}, {"wchar", io.wchar}, {"syscr", io.syscr},
                    {"syscw", io.syscw}, {"read_bytes", io.read_bytes}, {"write_bytes", io.write_bytes}};
  // Store figures are cumulative since the store was opened (memcached's since it started).
  StoreStats ss = cfg.store->stats();
  json extra = json::object();
  for (const auto& [k, v] : ss.extra) extra[k] = v;
  // Where the cache ran: for each memcached node whose pid is a local memcached process,
  // its CPU affinity; "unknown" for remote nodes.
  json cache_cpus = json::array();
  for (const auto& [k, v] : ss.extra) {
    if (!k.starts_with("node.") || !k.ends_with(".pid")) continue;
    cache_cpus.push_back(local_process_cpus(static_cast<int64_t>(v), "memcached"));
  }
  if (!cache_cpus.empty()) extra["cpus"] = cache_cpus;
  j["memory"] = memory_json(rss_kb, process_memory(), ss);
  j["store"] = {{"describe", cfg.store->describe()}, {"gets", ss.gets}, {"hits", ss.hits},
                {"misses", ss.misses}, {"sets", ss.sets}, {"removes", ss.removes},
                {"errors", ss.errors}, {"bytes_read", ss.bytes_read}, {"bytes_written", ss.bytes_written},
                {"extra", extra}};
  return j;
}

namespace {

// Prometheus metric names: [a-zA-Z_:][a-zA-Z0-9_:]*
std::string metric_name(std::string_view s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out;
}

std::string label_value(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out;
}

void line(std::string& out, std::string_view name, std::string_view labels, double v) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  char buf[64];
  if (std::isfinite(v)) std::snprintf(buf, sizeof buf, " %.17g\n", v);
  else std::snprintf(buf, sizeof buf, " NaN\n");
  out += buf;
}

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

double num(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : 0.0; }

// A member of a /stats object, or null when it is not there: nlohmann's const operator[]
// on a missing key reads past the map (undefined behaviour, caught by TSan in CI).
const nlohmann::json& field(const nlohmann::json& j, const std::string& key) {
  static const nlohmann::json absent;
  if (!j.is_object()) return absent;
  const auto it = j.find(key);
  return it == j.end() ? absent : *it;
}

}  // namespace

std::string metrics_text(const nlohmann::json& s) {
  std::string out;
  out.reserve(8192);
  const auto& cfg = field(s, "config");
  std::string info = "strategy=\"" + label_value(field(cfg, "strategy").get<std::string>()) + "\",store=\"" +
                     label_value(field(cfg, "store").get<std::string>()) + "\",flags=\"" +
                     label_value(field(cfg, "flags").get<std::string>()) + "\"";
  family(out, "hitcost_config_info", "gauge", "The configuration in force (value is always 1).");
  line(out, "hitcost_config_info", info, 1);
  family(out, "hitcost_uptime_seconds", "gauge", "Seconds since the server started.");
  line(out, "hitcost_uptime_seconds", "", num(field(s, "uptime_s")));
  family(out, "hitcost_interval_seconds", "gauge", "Seconds since the counters were last reset.");
  line(out, "hitcost_interval_seconds", "", num(field(s, "interval_s")));
  family(out, "hitcost_threads", "gauge", "io threads.");
  line(out, "hitcost_threads", "", num(field(s, "threads")));
  family(out, "hitcost_pin_failures", "gauge", "io threads whose pinning to their --cpus CPU failed.");
  line(out, "hitcost_pin_failures", "", num(field(s, "pin_failures")));
  family(out, "hitcost_metrics_enabled", "gauge", "1 when per-phase timing is on.");
  line(out, "hitcost_metrics_enabled", "", field(s, "metrics_enabled").get<bool>() ? 1 : 0);
  for (const char* c : {"requests", "pages", "hits", "misses", "decode_errors", "store_errors", "store_set_errors",
                        "bad_requests"}) {
    std::string name = std::string("hitcost_") + c + "_total";
    family(out, name, "counter", std::string("Counter '") + c + "' from /stats.");
    line(out, name, "", num(field(s, c)));
  }
  family(out, "hitcost_decode_errors_by_kind_total", "counter", "Unreadable stored values by error kind.");
  for (const auto& [k, v] : field(s, "decode_errors_by_kind").items())
    line(out, "hitcost_decode_errors_by_kind_total", "kind=\"" + label_value(k) + "\"", num(v));
  family(out, "hitcost_store_errors_by_kind_total", "counter", "Store failures by error kind.");
  for (const auto& [k, v] : field(s, "store_errors_by_kind").items())
    line(out, "hitcost_store_errors_by_kind_total", "kind=\"" + label_value(k) + "\"", num(v));
  family(out, "hitcost_responses_total", "counter", "Non-200 responses by status code.");
  for (const auto& [k, v] : field(s, "responses_by_status").items())
    line(out, "hitcost_responses_total", "code=\"" + label_value(k) + "\"", num(v));
  const auto& cpu = field(s, "cpu");
  family(out, "hitcost_cpu_seconds_total", "counter", "Process CPU time since reset (getrusage).");
  line(out, "hitcost_cpu_seconds_total", "mode=\"user\"", num(field(cpu, "user_s")));
  line(out, "hitcost_cpu_seconds_total", "mode=\"system\"", num(field(cpu, "system_s")));
  family(out, "hitcost_context_switches_total", "counter", "Process context switches (getrusage, cumulative).");
  line(out, "hitcost_context_switches_total", "kind=\"voluntary\"", num(field(cpu, "voluntary_switches")));
  line(out, "hitcost_context_switches_total", "kind=\"involuntary\"", num(field(cpu, "involuntary_switches")));
  family(out, "hitcost_rss_bytes", "gauge", "Resident set size.");
  line(out, "hitcost_rss_bytes", "", num(field(s, "rss_kb")) * 1024);
  if (s.contains("memory")) {
    // /stats memory.X_kb → kind="X"; a figure the kernel does not give (null) has no sample.
    family(out, "hitcost_memory_bytes", "gauge",
           "Memory by kind: rss, pss (anon, file, shmem), process_own (anon + shmem), store_file_resident.");
    for (const auto& [k, v] : field(s, "memory").items()) {
      if (!v.is_number() || !k.ends_with("_kb")) continue;
      line(out, "hitcost_memory_bytes", "kind=\"" + label_value(k.substr(0, k.size() - 3)) + "\"", num(v) * 1024);
    }
  }
  family(out, "hitcost_phase_seconds", "histogram", "Time per request phase (steady clock).");
  for (const auto& [phase, ph] : field(s, "phases_ns").items()) {
    double cum = 0;
    const auto& b = field(ph, "log2_buckets");
    for (size_t k = 0; k < b.size(); ++k) {
      cum += num(b[k]);
      char le[48];
      std::snprintf(le, sizeof le, "%.9g", std::ldexp(1.0, static_cast<int>(k) + 1) / 1e9);
      line(out, "hitcost_phase_seconds_bucket", "phase=\"" + phase + "\",le=\"" + le + "\"", cum);
    }
    line(out, "hitcost_phase_seconds_bucket", "phase=\"" + phase + "\",le=\"+Inf\"", num(field(ph, "count")));
    line(out, "hitcost_phase_seconds_sum", "phase=\"" + phase + "\"", num(field(ph, "sum")) / 1e9);
    line(out, "hitcost_phase_seconds_count", "phase=\"" + phase + "\"", num(field(ph, "count")));
  }
  // cpu_sampled holds one object per outcome beside its own figures (period, clean_tiles):
  // the outcomes are named, not found by shape.
  const auto& sampled = field(s, "cpu_sampled");
  family(out, "hitcost_sampled_requests_total", "counter",
         "Requests the CPU samples stand for (sum of sampling periods), by outcome.");
  for (size_t o = 0; o < kOutcomes; ++o) {
    const std::string outcome = to_string(static_cast<Outcome>(o));
    line(out, "hitcost_sampled_requests_total", "outcome=\"" + outcome + "\"",
         num(field(field(sampled, outcome), "weight")));
  }
  // A gauge, not a counter: a part corrected for the clock's own cost may step back.
  family(out, "hitcost_sampled_cpu_seconds_total", "gauge",
         "Thread CPU since reset estimated from samples (each weighted by its period), by outcome and part.");
  for (size_t o = 0; o < kOutcomes; ++o) {
    const std::string outcome = to_string(static_cast<Outcome>(o));
    for (const auto& [part, ns] : field(field(sampled, outcome), "parts_cpu_ns").items())
      line(out, "hitcost_sampled_cpu_seconds_total", "outcome=\"" + outcome + "\",part=\"" + part + "\"",
           num(ns) / 1e9);
  }
  family(out, "hitcost_cpu_sample_period", "gauge", "About 1 in this many requests has its thread CPU sampled.");
  line(out, "hitcost_cpu_sample_period", "", num(field(sampled, "period")));
  // Clean tiles: runs of requests timed whole with no sample in them (docs/http-api.md);
  // their CPU per request is what the samples' own clock reads are measured against.
  const auto& tiles = field(sampled, "clean_tiles");
  family(out, "hitcost_clean_tiles_total", "counter", "Clean tiles timed whole (no CPU sample armed in them).");
  line(out, "hitcost_clean_tiles_total", "", num(field(tiles, "tiles")));
  family(out, "hitcost_clean_tile_requests_total", "counter", "Requests in the clean tiles.");
  line(out, "hitcost_clean_tile_requests_total", "", num(field(tiles, "requests")));
  family(out, "hitcost_clean_tile_cpu_seconds_total", "counter", "Thread CPU of the clean tiles.");
  line(out, "hitcost_clean_tile_cpu_seconds_total", "", num(field(tiles, "cpu_ns")) / 1e9);
  const auto& cache = field(s, "cache");
  const auto& http = field(s, "http");
  family(out, "hitcost_cache_bytes_total", "counter", "Value bytes read from / written to the store.");
  line(out, "hitcost_cache_bytes_total", "direction=\"read\"", num(field(cache, "bytes_read")));
  line(out, "hitcost_cache_bytes_total", "direction=\"written\"", num(field(cache, "bytes_written")));
  family(out, "hitcost_http_bytes_total", "counter", "HTTP bytes received / sent.");
  line(out, "hitcost_http_bytes_total", "direction=\"in\"", num(field(http, "bytes_in")));
  line(out, "hitcost_http_bytes_total", "direction=\"out\"", num(field(http, "bytes_out")));
  family(out, "hitcost_connections_total", "counter", "Connections opened / closed.");
  line(out, "hitcost_connections_total", "event=\"opened\"", num(field(http, "connections_opened")));
  line(out, "hitcost_connections_total", "event=\"closed\"", num(field(http, "connections_closed")));
  family(out, "hitcost_partial_writes_total", "counter", "Responses the socket did not take in one send.");
  line(out, "hitcost_partial_writes_total", "", num(field(http, "partial_writes")));
  if (s.contains("proc_io")) {
    family(out, "hitcost_proc_io_total", "counter", "/proc/self/io fields (cumulative).");
    for (const auto& [k, v] : field(s, "proc_io").items())
      line(out, "hitcost_proc_io_total", "field=\"" + label_value(k) + "\"", num(v));
  }
  const auto& st = field(s, "store");
  family(out, "hitcost_store_ops_total", "counter", "Store operations (cumulative since the store opened).");
  for (const char* c : {"gets", "hits", "misses", "sets", "removes", "errors"})
    line(out, "hitcost_store_ops_total", std::string("op=\"") + c + "\"", num(field(st, c)));
  family(out, "hitcost_store_bytes_total", "counter", "Store value bytes (cumulative since the store opened).");
  line(out, "hitcost_store_bytes_total", "direction=\"read\"", num(field(st, "bytes_read")));
  line(out, "hitcost_store_bytes_total", "direction=\"written\"", num(field(st, "bytes_written")));
  family(out, "hitcost_store_extra", "gauge", "Backend figures (memcached stats, file residency, ...).");
  for (const auto& [k, v] : field(st, "extra").items())
    if (v.is_number()) line(out, "hitcost_store_extra", "name=\"" + label_value(metric_name(k)) + "\"", num(v));
  return out;
}

}  // namespace hitcost::server
