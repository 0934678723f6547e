#pragma once
// GET /stats (JSON, schema in docs/http-api.md) and GET /metrics (Prometheus text format).
// Both are written from one StatsFigures, read once per request, so they never disagree;
// /metrics is built from the figures, not by parsing /stats back.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/metrics.h"
#include "server/process_stats.h"
#include "server/router.h"
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
};

StatsFigures read_stats(const ServerContext& ctx, const RuntimeConfig& cfg);
nlohmann::json stats_json(const StatsFigures& f);
std::string metrics_text(const StatsFigures& f);

}  // namespace hitcost::server
