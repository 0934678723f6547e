#pragma once
// Talking to hitcost-server outside the load: a blocking one-shot HTTP client (its own
// connection, never one of the load connections), /stats snapshots and their deltas over
// the measured window (docs/http-api.md), plus this machine's CPU accounting
// (getrusage for the client, /proc/stat for everything) so that a run can be flagged as
// contaminated by other processes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/net.h"

namespace hitcost::client {

struct HttpReply {
  int status = 0;        // 0 when no answer came (error says why)
  std::string body;
  std::string error;
  bool ok() const noexcept { return status >= 200 && status < 300; }
};

// One request on a fresh connection ("Connection: close"); reads the whole answer.
HttpReply http_request(const Endpoint& ep, std::string_view method, std::string_view target,
                       std::string_view body = {}, int timeout_ms = 10'000);

// GET /stats parsed; nullopt with *error on transport/HTTP/JSON failure.
std::optional<nlohmann::json> fetch_stats(const Endpoint& ep, std::string* error);

struct PhaseDelta {
  std::string name;
  uint64_t count = 0;
  uint64_t sum_ns = 0;
};

// Differences between two /stats snapshots. Missing fields count as 0 (older servers).
struct ServerDelta {
  double interval_s = 0;           // by the server's own clock (uptime difference)
  uint64_t requests = 0, pages = 0, hits = 0, misses = 0;
  uint64_t decode_errors = 0, store_errors = 0, bad_requests = 0;
  double cpu_s = 0;                // server process user+system
  std::optional<double> cache_cpu_s;  // store.extra rusage (memcached); absent for local stores
  uint64_t cache_bytes_read = 0, cache_bytes_written = 0;
  std::vector<PhaseDelta> phases;  // in the server's order
  nlohmann::json config;           // the "after" snapshot's config
  int threads = 0;
  bool counters_reset = false;     // a counter went backwards (someone POSTed /admin/reset)
  // Where the server and the cache ran, as the server reports it: "cpus" (top level or in
  // config), else the io threads' "thread_cpus"; the cache's from store.extra "cpus".
  // The string "unknown" when the server does not say.
  nlohmann::json server_cpus = "unknown";
  nlohmann::json cache_cpus = "unknown";

  double hit_ratio() const noexcept;
  double per_request_us(double seconds) const noexcept {
    return requests ? seconds * 1e6 / double(requests) : 0.0;
  }
  double server_cpu_us_per_req() const noexcept { return per_request_us(cpu_s); }
  std::optional<double> cache_cpu_us_per_req() const noexcept {
    if (!cache_cpu_s) return std::nullopt;
    return per_request_us(*cache_cpu_s);
  }
};
ServerDelta stats_delta(const nlohmann::json& before, const nlohmann::json& after);

// Whole-machine CPU time from the first line of /proc/stat, in seconds.
struct SystemCpu {
  double busy_s = 0;   // user+nice+system+irq+softirq+steal
  double total_s = 0;  // busy + idle + iowait
};
std::optional<SystemCpu> read_system_cpu();

// This process's user+system CPU seconds (all threads).
double self_cpu_s() noexcept;

// Sanitises text into a store-namespace-safe token: [a-z0-9] kept, runs of anything else
// become one '-'. "struct:json+zlib" → "struct-json-zlib".
std::string namespace_token(std::string_view text);

}  // namespace hitcost::client
