#pragma once
// GET /stats (JSON, schema in docs/http-api.md) and GET /metrics (Prometheus text format).
// Both are written from one StatsFigures, read once per request, so they never disagree;
// /metrics is built from the figures, not by parsing /stats back.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/durable_sync.h"
#include "server/metrics.h"
#include "server/process_stats.h"
#include "server/router.h"
#include "server/value_origin.h"
#include "stores/store.h"

namespace hitcost::server {

// What /stats and /metrics report, read at one moment.
struct StatsFigures {
  MetricsSnapshot counters;                          // since the last reset
  double uptime_s = 0, interval_s = 0;               // since start, since the last reset
  nlohmann::json config = nlohmann::json::object();  // RuntimeConfig::to_json(): what is in force
  size_t threads = 0;                                // io threads
  std::vector<std::string> thread_cpus;              // affinity of each io thread, e.g. "0" or "0-1"
  uint32_t pin_failures = 0;
  bool metrics_enabled = false;                           // per-phase timing and CPU sampling on
  ProcessCpu cpu;                                         // cumulative since start
  double cpu_user_at_reset = 0, cpu_system_at_reset = 0;  // process CPU (s) at the last reset
  uint64_t rss_kb = 0;
  ProcessMemory memory;
  ProcessIo io;      // io.ok false: no /proc/self/io
  StoreStats store;  // cumulative since the store was opened
  std::string store_describe;
  std::vector<std::string> cache_cpus;  // per local memcached node: its affinity
  // The access log (with --access-log): what /stats shows next to the log counters. The sync
  // figures and reopens are cumulative since the file opened, as the store's.
  struct Log {
    std::string path;
    uint64_t reopens = 0;
    int last_error = 0;       // errno of the last failed write, sync or reopen; 0: none
    std::string sync_policy;  // the mode's, now
    SyncStats::Figures sync;
  };
  std::optional<Log> log;
  uint64_t slow_threshold_ns = 0;  // --slow-log's threshold; 0: off
  // The corpus /value serves (--corpus): immutable, so the figures are read from it directly.
  std::shared_ptr<const ValueOrigin> corpus;
};

StatsFigures read_stats(const ServerContext& ctx, const RuntimeConfig& cfg);

// Both answers from one walk over the figures: each family is written once, its /stats keys
// beside its /metrics samples (stats_report.cpp, a section per family).
struct StatsReport {
  nlohmann::json stats;  // GET /stats
  std::string metrics;   // GET /metrics
};
StatsReport report_stats(const StatsFigures& f);
nlohmann::json stats_json(const StatsFigures& f);  // report_stats(f).stats
std::string metrics_text(const StatsFigures& f);   // report_stats(f).metrics

// One writer's fdatasync figures (core/durable_sync.h) as /stats shows them, for any file that
// is synced under a policy (a file store, the access log): {"policy", "calls", "errors",
// "sum_ns", "max_ns", "log2_buckets": [count of syncs taking [2^k, 2^(k+1)) ns, up to the last
// non-empty bucket]} — the buckets as in "phases_ns". Cumulative since the writer opened.
nlohmann::json sync_json(std::string_view policy, const SyncStats::Figures& f);

}  // namespace hitcost::server
