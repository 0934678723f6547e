#include "server/stats_report.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "proc/proc.h"
#include "server/slow_log.h"

namespace hitcost::server {

namespace {

// Sampled sums are two's complement (a part corrected for the clock's cost can be < 0):
// both outputs report them signed.
int64_t signed_ns(uint64_t v) { return static_cast<int64_t>(v); }

// log2 buckets up to the last non-empty one: bucket k holds [2^k, 2^(k+1)) ns.
size_t used_buckets(const std::array<uint64_t, kLog2Buckets>& buckets) {
  size_t last = 0;
  for (size_t k = 0; k < kLog2Buckets; ++k)
    if (buckets[k]) last = k + 1;
  return last;
}

// The values of an enum in the order of their names. /stats objects keyed by name come out
// sorted (nlohmann::json keeps keys in a std::map), and /metrics lists those samples in the
// same order, as it did when it was read back from /stats.
template <class Enum, size_t N>
std::array<size_t, N> name_order() {
  std::array<size_t, N> order;
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [](size_t a, size_t b) {
    return std::string_view(to_string(static_cast<Enum>(a))) < std::string_view(to_string(static_cast<Enum>(b)));
  });
  return order;
}

// /proc/self/io fields in name order (see name_order).
std::array<std::pair<const char*, uint64_t>, 6> proc_io_fields(const ProcessIo& io) {
  return {{{"rchar", io.rchar},
           {"read_bytes", io.read_bytes},
           {"syscr", io.syscr},
           {"syscw", io.syscw},
           {"wchar", io.wchar},
           {"write_bytes", io.write_bytes}}};
}

// Store operations in the order /stats and /metrics have always listed them.
std::array<std::pair<const char*, uint64_t>, 6> store_ops(const StoreStats& ss) {
  return {{{"gets", ss.gets},
           {"hits", ss.hits},
           {"misses", ss.misses},
           {"sets", ss.sets},
           {"removes", ss.removes},
           {"errors", ss.errors}}};
}

// /stats "memory", by its key (X_kb): what the process holds, told apart from the page cache it
// maps. Empty: the kernel does not give the figure (null in /stats, no sample in /metrics).
std::map<std::string, std::optional<uint64_t>> memory_kb(const StatsFigures& f) {
  const ProcessMemory& pm = f.memory;
  // The process's own memory: anonymous pages (heap, stacks, a memory store's values, a
  // file store's index) plus shmem, which the kernel cannot drop without swap. Mapped file
  // pages (pss_file: an mmap store's file, the binary, libraries) are left out: they are
  // page cache the kernel can drop and read back, and rss_kb counts them whole.
  std::optional<uint64_t> own;
  if (pm.pss_anon_kb && pm.pss_shmem_kb) own = *pm.pss_anon_kb + *pm.pss_shmem_kb;
  // File stores report their file's pages in the page cache, mapped here or not.
  std::optional<uint64_t> store_file_kb;
  if (auto it = f.store.extra.find("resident_bytes"); it != f.store.extra.end() && it->second >= 0)
    store_file_kb = static_cast<uint64_t>(it->second) / 1024;
  return {{"rss_kb", f.rss_kb},
          {"pss_kb", pm.pss_kb},
          {"pss_anon_kb", pm.pss_anon_kb},
          {"pss_file_kb", pm.pss_file_kb},
          {"pss_shmem_kb", pm.pss_shmem_kb},
          {"process_own_kb", own},
          {"store_file_resident_kb", store_file_kb}};
}

// Sums since the reset; a reader divides the differences of two snapshots (see docs/http-api.md).
nlohmann::json sampled_cpu_json(const MetricsSnapshot& m) {
  using nlohmann::json;
  json out = {
      {"period", m.sample_period},
      {"clock_read_ns", m.clock_read_ns},
      {"clock_reads", m.clock_reads},
      {"clean_tiles",
       {{"tiles", m.clean_tiles}, {"requests", m.clean_tile_cuts}, {"cpu_ns", signed_ns(m.clean_tile_cpu_ns)}}}};
  for (size_t o = 0; o < kOutcomes; ++o) {
    const auto& s = m.sampled[o];
    json parts_cpu = json::object(), parts_wall = json::object(), buckets = json::array();
    for (size_t k = 0; k < kCpuParts; ++k) {
      const char* name = to_string(static_cast<CpuPart>(k));
      parts_cpu[name] = signed_ns(s.part_cpu_ns[k]);
      parts_wall[name] = signed_ns(s.part_wall_ns[k]);
    }
    for (size_t k = 0, used = used_buckets(s.cpu_log2); k < used; ++k) buckets.push_back(s.cpu_log2[k]);
    out[to_string(static_cast<Outcome>(o))] = {
        {"whole", {{"samples", s.whole_samples}, {"weight", s.whole_weight}, {"cpu_ns", signed_ns(s.whole_cpu_ns)}}},
        {"samples", s.samples},
        {"weight", s.weight},
        {"cpu_ns", signed_ns(s.cpu_ns)},
        {"parts_cpu_ns", parts_cpu},
        {"parts_wall_ns", parts_wall},
        {"cpu_log2_buckets", buckets}};
  }
  return out;
}

}  // namespace

nlohmann::json sync_json(std::string_view policy, const SyncStats::Figures& f) {
  nlohmann::json buckets = nlohmann::json::array();
  for (size_t k = 0, used = used_buckets(f.log2_ns); k < used; ++k) buckets.push_back(f.log2_ns[k]);
  return {{"policy", policy},     {"calls", f.calls},   {"errors", f.errors},
          {"sum_ns", f.total_ns}, {"max_ns", f.max_ns}, {"log2_buckets", buckets}};
}

StatsFigures read_stats(const ServerContext& ctx, const RuntimeConfig& cfg) {
  StatsFigures f;
  f.counters = ctx.metrics.since_reset();
  const auto now = std::chrono::steady_clock::now();
  f.uptime_s = std::chrono::duration<double>(now - ctx.started).count();
  f.interval_s = std::chrono::duration<double>(now - ctx.metrics.reset_at()).count();
  f.config = cfg.to_json();
  f.threads = ctx.threads;
  {
    std::lock_guard lk(ctx.placement_mu);
    f.thread_cpus = ctx.thread_cpus;
  }
  f.pin_failures = ctx.pin_failures.load(std::memory_order_relaxed);
  f.metrics_enabled = ctx.opts.metrics;
  f.cpu = process_cpu();
  f.cpu_user_at_reset = ctx.metrics.cpu_user_at_reset();
  f.cpu_system_at_reset = ctx.metrics.cpu_system_at_reset();
  f.io = process_io();
  f.rss_kb = process_rss_kb();
  f.memory = process_memory();
  if (const AccessLogFile* log = ctx.access_log)
    f.log = StatsFigures::Log{log->path(), log->reopens(), log->last_error(),
                              cfg.log.on() ? cfg.log.sync.to_string() : "none", log->sync_stats().figures()};
  f.corpus = ctx.values;
  if (ctx.slow_log) f.slow_threshold_ns = ctx.slow_log->threshold_ns();
  f.store = cfg.store->stats();
  f.store_describe = cfg.store->describe();
  // Where the cache ran: one entry per memcached node, in the order of the store's nodes (its
  // describe()): the CPU affinity of a node whose pid is a local memcached process; "unknown"
  // for a node on another host or one that did not answer.
  if (const auto nodes = f.store.extra.find("nodes"); nodes != f.store.extra.end())
    for (int64_t i = 0; i < static_cast<int64_t>(nodes->second); ++i) {
      const auto pid = f.store.extra.find("node." + std::to_string(i) + ".pid");
      f.cache_cpus.push_back(pid == f.store.extra.end()
                                 ? std::string("unknown")
                                 : local_process_cpus(static_cast<int64_t>(pid->second), "memcached"));
    }
  return f;
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
    if (c == '\n') {
      out += "\\n";
      continue;
    }
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
  if (std::isfinite(v))
    std::snprintf(buf, sizeof buf, " %.17g\n", v);
  else
    std::snprintf(buf, sizeof buf, " NaN\n");
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

// A string of the configuration in force, or "" when it has none.
std::string config_text(const nlohmann::json& config, const char* key) {
  if (!config.is_object()) return {};
  const auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

namespace {

// Both answers of one reading, written side by side: each section below is one family of
// figures, its /stats keys next to its /metrics samples, so the two never drift apart. The
// sections run in /metrics' order (the order scrapes have always had); /stats' keys come out
// sorted whatever the order.
struct StatsOut {
  nlohmann::json& stats;
  std::string& metrics;
  void family(std::string_view name, std::string_view type, std::string_view help) {
    ::hitcost::server::family(metrics, name, type, help);
  }
  void sample(std::string_view name, std::string_view labels, double v) { line(metrics, name, labels, v); }
  // A family of one unlabelled sample.
  void single(std::string_view name, std::string_view type, std::string_view help, double v) {
    family(name, type, help);
    sample(name, "", v);
  }
};

// What is in force and where it runs: the configuration, the clocks, the threads and their CPUs.
void identity_section(const StatsFigures& f, StatsOut& out) {
  nlohmann::json& j = out.stats;
  j["uptime_s"] = f.uptime_s;
  j["interval_s"] = f.interval_s;
  j["config"] = f.config;
  j["threads"] = f.threads;
  j["thread_cpus"] = f.thread_cpus;
  j["pin_failures"] = f.pin_failures;
  j["pid"] = static_cast<int64_t>(::getpid());
  // Who and where this process is: a client on the same machine (same boot id) finds the
  // same pid with the same start time in its own /proc, and then knows the server is local;
  // the host name says where it ran when it is not (a run record's hosts).
  static const nlohmann::json host = {
      {"boot_id", proc::boot_id()},
      {"hostname", proc::hostname()},
      {"pid", static_cast<int64_t>(::getpid())},
      {"start_ticks", proc::read_process(::getpid()).value_or(proc::ProcessInfo{}).start_ticks}};
  j["host"] = host;
  j["metrics_enabled"] = f.metrics_enabled;
  const std::string info = "strategy=\"" + label_value(config_text(f.config, "strategy")) + "\",store=\"" +
                           label_value(config_text(f.config, "store")) + "\",flags=\"" +
                           label_value(config_text(f.config, "flags")) + "\"";
  out.family("hitcost_config_info", "gauge", "The configuration in force (value is always 1).");
  out.sample("hitcost_config_info", info, 1);
  out.single("hitcost_uptime_seconds", "gauge", "Seconds since the server started.", f.uptime_s);
  out.single("hitcost_interval_seconds", "gauge", "Seconds since the counters were last reset.", f.interval_s);
  out.single("hitcost_threads", "gauge", "io threads.", static_cast<double>(f.threads));
  out.single("hitcost_pin_failures", "gauge", "io threads whose pinning to their --cpus CPU failed.", f.pin_failures);
  out.single("hitcost_metrics_enabled", "gauge", "1 when per-phase timing is on.", f.metrics_enabled ? 1 : 0);
}

// The rows of wire/server_counters.h at the top level of /stats (top_level) or in one of its
// groups (cache, http, log): one family per run of rows sharing a name.
void counter_section(const StatsFigures& f, StatsOut& out, bool top_level) {
  std::string_view family_name;
  for (const CounterRow& c : kCounterRows) {
    if (c.json_group.empty() != top_level) continue;
    const uint64_t v = f.counters.*c.summed;
    nlohmann::json& group = top_level ? out.stats : out.stats[std::string(c.json_group)];
    group[std::string(c.json_key)] = v;
    if (c.prom_name != family_name) out.family(c.prom_name, c.prom_type, c.prom_help);
    family_name = c.prom_name;
    out.sample(c.prom_name, c.prom_labels, static_cast<double>(v));
  }
}

// A by-kind error count as /stats (kinds with a count) and /metrics (the same samples) have it.
void errors_by_kind(const std::array<uint64_t, kErrcCount>& counts, const char* key, const char* name, const char* help,
                    StatsOut& out) {
  static const auto errc_by_name = name_order<Errc, kErrcCount>();
  nlohmann::json by_kind = nlohmann::json::object();
  out.family(name, "counter", help);
  for (size_t i : errc_by_name) {
    if (!counts[i]) continue;
    const char* kind = to_string(static_cast<Errc>(i));
    by_kind[kind] = counts[i];
    out.sample(name, "kind=\"" + label_value(kind) + "\"", static_cast<double>(counts[i]));
  }
  out.stats[key] = by_kind;
}

// What went wrong: every 4xx, unreadable values and store failures by kind, non-200 statuses.
void error_section(const StatsFigures& f, StatsOut& out) {
  const MetricsSnapshot& m = f.counters;
  out.stats["bad_requests"] = m.bad_requests();
  out.single("hitcost_bad_requests_total", "counter", "Counter 'bad_requests' from /stats.",
             static_cast<double>(m.bad_requests()));
  errors_by_kind(m.decode_errors_by_kind, "decode_errors_by_kind", "hitcost_decode_errors_by_kind_total",
                 "Unreadable stored values by error kind.", out);
  errors_by_kind(m.store_errors_by_kind, "store_errors_by_kind", "hitcost_store_errors_by_kind_total",
                 "Store failures by error kind.", out);
  nlohmann::json statuses = nlohmann::json::object();
  out.family("hitcost_responses_total", "counter", "Non-200 responses by status code.");
  for (size_t i = 0; i < kCountedStatuses.size(); ++i) {
    statuses[std::to_string(kCountedStatuses[i])] = m.status_counts[i];
    out.sample("hitcost_responses_total", "code=\"" + std::to_string(kCountedStatuses[i]) + "\"",
               static_cast<double>(m.status_counts[i]));
  }
  out.stats["responses_by_status"] = statuses;
}

// The process: its CPU (since the reset and since start), context switches, memory.
void process_section(const StatsFigures& f, StatsOut& out) {
  const double user_s = f.cpu.user_s - f.cpu_user_at_reset, system_s = f.cpu.system_s - f.cpu_system_at_reset;
  out.stats["cpu"] = {{"user_s", user_s},
                      {"system_s", system_s},
                      {"total_user_s", f.cpu.user_s},
                      {"total_system_s", f.cpu.system_s},
                      {"voluntary_switches", f.cpu.voluntary_switches},
                      {"involuntary_switches", f.cpu.involuntary_switches}};
  out.family("hitcost_cpu_seconds_total", "counter", "Process CPU time since reset (getrusage).");
  out.sample("hitcost_cpu_seconds_total", "mode=\"user\"", user_s);
  out.sample("hitcost_cpu_seconds_total", "mode=\"system\"", system_s);
  out.family("hitcost_context_switches_total", "counter", "Process context switches (getrusage, cumulative).");
  out.sample("hitcost_context_switches_total", "kind=\"voluntary\"", static_cast<double>(f.cpu.voluntary_switches));
  out.sample("hitcost_context_switches_total", "kind=\"involuntary\"", static_cast<double>(f.cpu.involuntary_switches));
  out.stats["rss_kb"] = f.rss_kb;  // also memory.rss_kb; kept at the top level for older readers
  out.single("hitcost_rss_bytes", "gauge", "Resident set size.", static_cast<double>(f.rss_kb) * 1024);
  // /stats memory.X_kb → kind="X"; a figure the kernel does not give (null) has no sample.
  nlohmann::json memory = nlohmann::json::object();
  out.family("hitcost_memory_bytes", "gauge",
             "Memory by kind: rss, pss (anon, file, shmem), process_own (anon + shmem), store_file_resident.");
  for (const auto& [k, v] : memory_kb(f)) {
    memory[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    if (v)
      out.sample("hitcost_memory_bytes", "kind=\"" + label_value(k.substr(0, k.size() - 3)) + "\"",
                 static_cast<double>(*v) * 1024);
  }
  out.stats["memory"] = memory;
}

// Time per request phase (steady clock): count, sum and log2 buckets; /metrics as a histogram.
void phase_section(const StatsFigures& f, StatsOut& out) {
  static const auto phases_by_name = name_order<Phase, kPhases>();
  nlohmann::json phases = nlohmann::json::object();
  out.family("hitcost_phase_seconds", "histogram", "Time per request phase (steady clock).");
  for (size_t p : phases_by_name) {
    const auto& ph = f.counters.phases[p];
    const std::string phase = to_string(static_cast<Phase>(p));
    nlohmann::json buckets = nlohmann::json::array();
    double cum = 0;
    for (size_t k = 0, used = used_buckets(ph.buckets); k < used; ++k) {
      buckets.push_back(ph.buckets[k]);
      cum += static_cast<double>(ph.buckets[k]);
      char le[48];
      std::snprintf(le, sizeof le, "%.9g", std::ldexp(1.0, static_cast<int>(k) + 1) / 1e9);
      out.sample("hitcost_phase_seconds_bucket", "phase=\"" + phase + "\",le=\"" + le + "\"", cum);
    }
    out.sample("hitcost_phase_seconds_bucket", "phase=\"" + phase + "\",le=\"+Inf\"", static_cast<double>(ph.count));
    out.sample("hitcost_phase_seconds_sum", "phase=\"" + phase + "\"", static_cast<double>(ph.sum_ns) / 1e9);
    out.sample("hitcost_phase_seconds_count", "phase=\"" + phase + "\"", static_cast<double>(ph.count));
    phases[phase] = {{"count", ph.count}, {"sum", ph.sum_ns}, {"log2_buckets", buckets}};
  }
  out.stats["phases_ns"] = phases;
}

// The sampled thread CPU (server/cpu_sampler.h): /stats has the sums in full (sampled_cpu_json);
// /metrics the requests they stand for, the CPU by outcome and part, the period, clean tiles.
void sampling_section(const StatsFigures& f, StatsOut& out) {
  static const auto parts_by_name = name_order<CpuPart, kCpuParts>();
  const MetricsSnapshot& m = f.counters;
  out.stats["cpu_sampled"] = sampled_cpu_json(m);
  out.family("hitcost_sampled_requests_total", "counter",
             "Requests the CPU samples stand for (sum of sampling periods), by outcome.");
  for (size_t o = 0; o < kOutcomes; ++o)
    out.sample("hitcost_sampled_requests_total", std::string("outcome=\"") + to_string(static_cast<Outcome>(o)) + "\"",
               static_cast<double>(m.sampled[o].weight));
  // A gauge, not a counter: a part corrected for the clock's own cost may step back.
  out.family("hitcost_sampled_cpu_seconds_total", "gauge",
             "Thread CPU since reset estimated from samples (each weighted by its period), by outcome and part.");
  for (size_t o = 0; o < kOutcomes; ++o) {
    const std::string outcome = to_string(static_cast<Outcome>(o));
    for (size_t k : parts_by_name)
      out.sample("hitcost_sampled_cpu_seconds_total",
                 "outcome=\"" + outcome + "\",part=\"" + to_string(static_cast<CpuPart>(k)) + "\"",
                 seconds(signed_ns(m.sampled[o].part_cpu_ns[k])));
  }
  out.single("hitcost_cpu_sample_period", "gauge", "About 1 in this many requests has its thread CPU sampled.",
             static_cast<double>(m.sample_period));
  // Clean tiles: runs of requests timed whole with no sample in them (docs/http-api.md);
  // their CPU per request is what the samples' own clock reads are measured against.
  out.single("hitcost_clean_tiles_total", "counter", "Clean tiles timed whole (no CPU sample armed in them).",
             static_cast<double>(m.clean_tiles));
  out.single("hitcost_clean_tile_requests_total", "counter", "Requests in the clean tiles.",
             static_cast<double>(m.clean_tile_cuts));
  out.single("hitcost_clean_tile_cpu_seconds_total", "counter", "Thread CPU of the clean tiles.",
             seconds(signed_ns(m.clean_tile_cpu_ns)));
}

// /proc/self/io, when the kernel gives it.
void proc_io_section(const StatsFigures& f, StatsOut& out) {
  if (!f.io.ok) return;
  nlohmann::json io = nlohmann::json::object();
  out.family("hitcost_proc_io_total", "counter", "/proc/self/io fields (cumulative).");
  for (const auto& [k, v] : proc_io_fields(f.io)) {
    io[k] = v;
    out.sample("hitcost_proc_io_total", std::string("field=\"") + k + "\"", static_cast<double>(v));
  }
  out.stats["proc_io"] = io;
}

// The store's operations, bytes and fdatasync figures, cumulative since it was opened
// (memcached's since it started).
void store_section(const StatsFigures& f, StatsOut& out) {
  nlohmann::json& store = out.stats["store"];
  store["describe"] = f.store_describe;
  out.family("hitcost_store_ops_total", "counter", "Store operations (cumulative since the store opened).");
  for (const auto& [k, v] : store_ops(f.store)) {
    store[k] = v;
    out.sample("hitcost_store_ops_total", std::string("op=\"") + k + "\"", static_cast<double>(v));
  }
  store["bytes_read"] = f.store.bytes_read;
  store["bytes_written"] = f.store.bytes_written;
  out.family("hitcost_store_bytes_total", "counter", "Store value bytes (cumulative since the store opened).");
  out.sample("hitcost_store_bytes_total", "direction=\"read\"", static_cast<double>(f.store.bytes_read));
  out.sample("hitcost_store_bytes_total", "direction=\"written\"", static_cast<double>(f.store.bytes_written));
  const auto& sy = f.store.sync;
  if (!sy) return;  // file stores: their fdatasync figures
  store["sync"] = sync_json(f.store.sync_policy, *sy);
  out.single("hitcost_store_sync_calls_total", "counter", "fdatasync calls on the store file (sync policy).",
             static_cast<double>(sy->calls));
  out.single("hitcost_store_sync_errors_total", "counter", "fdatasync calls on the store file that failed.",
             static_cast<double>(sy->errors));
  out.single("hitcost_store_sync_seconds_total", "counter", "Wall time spent in fdatasync on the store file.",
             static_cast<double>(sy->total_ns) / 1e9);
}

// The access log beside its counters (group "log"): its mode always; its file, reopens, last
// error and fdatasync figures with a log file (server/access_log.h).
void log_file_section(const StatsFigures& f, StatsOut& out) {
  nlohmann::json& log = out.stats["log"];
  log["mode"] = f.config.value("log", std::string("off"));
  const auto& lg = f.log;
  if (!lg) return;
  log["path"] = lg->path;
  log["reopens"] = lg->reopens;
  log["last_error"] = lg->last_error ? std::strerror(lg->last_error) : "";
  log["sync"] = sync_json(lg->sync_policy, lg->sync);
  out.single("hitcost_log_sync_calls_total", "counter", "fdatasync calls on the access log (its sync policy).",
             static_cast<double>(lg->sync.calls));
  out.single("hitcost_log_sync_seconds_total", "counter", "Wall time spent in fdatasync on the access log.",
             static_cast<double>(lg->sync.total_ns) / 1e9);
  out.single("hitcost_log_reopens_total", "counter", "Access log reopens (SIGHUP).", static_cast<double>(lg->reopens));
}

// The backend's own figures (memcached stats, file residency, ...) and where its nodes run.
void store_extra_section(const StatsFigures& f, StatsOut& out) {
  nlohmann::json extra = nlohmann::json::object();
  out.family("hitcost_store_extra", "gauge", "Backend figures (memcached stats, file residency, ...).");
  for (const auto& [k, v] : f.store.extra) {
    extra[k] = v;
    out.sample("hitcost_store_extra", "name=\"" + label_value(metric_name(k)) + "\"", v);
  }
  if (!f.cache_cpus.empty()) extra["cpus"] = f.cache_cpus;
  out.stats["store"]["extra"] = extra;
}

// The slow log beside its counters (group "slow"): its threshold, null when it is off (then the
// run's CPU figures carry no tracing cost: server/request_trace.h).
void slow_log_section(const StatsFigures& f, StatsOut& out) {
  out.stats["slow"]["threshold_us"] =
      f.slow_threshold_ns ? nlohmann::json(double(f.slow_threshold_ns) / 1e3) : nlohmann::json(nullptr);
}

// Only with --corpus: what GET /value/{n} serves (docs/http-api.md); /stats only.
void corpus_section(const StatsFigures& f, StatsOut& out) {
  if (!f.corpus) return;
  const ValueOrigin& c = *f.corpus;
  nlohmann::json left_out = nlohmann::json::object();
  for (const auto& [kind, n] : c.left_out_by_kind()) left_out[kind] = n;
  out.stats["corpus"] = {{"path", c.path()},        {"source", c.source()}, {"scheme", c.scheme()},
                         {"records", c.records()},  {"values", c.size()},   {"left_out", left_out},
                         {"redacted", c.redacted()}};
}

}  // namespace

StatsReport report_stats(const StatsFigures& f) {
  StatsReport r;
  r.metrics.reserve(8192);
  StatsOut out{r.stats, r.metrics};
  identity_section(f, out);
  counter_section(f, out, /*top_level=*/true);
  error_section(f, out);
  process_section(f, out);
  phase_section(f, out);
  sampling_section(f, out);
  counter_section(f, out, /*top_level=*/false);
  proc_io_section(f, out);
  store_section(f, out);
  log_file_section(f, out);
  store_extra_section(f, out);
  corpus_section(f, out);
  slow_log_section(f, out);
  return r;
}

nlohmann::json stats_json(const StatsFigures& f) { return report_stats(f).stats; }
std::string metrics_text(const StatsFigures& f) { return report_stats(f).metrics; }

}  // namespace hitcost::server
