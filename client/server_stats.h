#pragma once
// Talking to hitcost-server outside the load: a blocking one-shot HTTP client (its own
// connection, never one of the load connections), /stats snapshots and their deltas over
// the measured window (docs/http-api.md), plus this machine's CPU accounting
// (getrusage for the client, /proc/stat for everything) so that a run can be flagged as
// contaminated by other processes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/net.h"
#include "core/result.h"
#include "proc/proc.h"

namespace hitcost::client {

struct HttpReply {
  int status = 0;  // 0 when no answer came (error says why)
  std::string body;
  std::string error;
  // When !ok(): connection (connect/send/recv failed, or closed without a byte), timeout (no
  // answer within timeout_ms), parse_error (not an HTTP answer) or server_error (not 2xx).
  Errc error_kind = Errc::server_error;
  bool ok() const noexcept { return status >= 200 && status < 300; }
};

// One request on a fresh connection ("Connection: close"); reads the whole answer.
HttpReply http_request(const Endpoint& ep, std::string_view method, std::string_view target, std::string_view body = {},
                       int timeout_ms = 10'000);

// GET /stats parsed. Errors: http_request's error_kind ("GET /stats: connect to ...:
// Connection refused"), or parse_error when the answer is not a JSON object.
Result<nlohmann::json> fetch_stats(const Endpoint& ep);

struct PhaseDelta {
  std::string name;
  uint64_t count = 0;
  uint64_t sum_ns = 0;
};

// The server's sampled thread CPU of one outcome (hit, miss, other) over the window
// (server/cpu_sampler.h): sums weighted by the sampling period, so means are sums / weight.
struct SampledDelta {
  uint64_t whole_samples = 0;  // clock read at both ends only: the figure per request
  double whole_weight = 0, whole_cpu_ns = 0;
  uint64_t samples = 0;  // detailed: read at every part boundary too
  double weight = 0;     // requests the samples stand for
  double cpu_ns = 0;
  std::vector<std::pair<std::string, double>> parts_cpu_ns, parts_wall_ns;  // in the server's order
  // Mean CPU of one request, from the whole samples (the detailed ones where a server has none).
  std::optional<double> cpu_us() const noexcept {
    if (whole_weight > 0) return whole_cpu_ns / whole_weight / 1000.0;
    return detailed_cpu_us();
  }
  // The same from the detailed samples: above cpu_us() by what the extra clock reads disturb.
  std::optional<double> detailed_cpu_us() const noexcept {
    if (weight <= 0) return std::nullopt;
    return cpu_ns / weight / 1000.0;
  }
};

// Who the server process is: with the same boot id and the pid's start time matching here,
// it runs on this machine and its CPUs are in this machine's /proc/stat.
struct ServerIdentity {
  std::string boot_id;
  int64_t pid = 0;
  uint64_t start_ticks = 0;
  bool is_local() const;
};

// The server's access log over the window (/stats "log", server/counter_list.h group "log"):
// counters as differences. The server counts a line when it is written, so in a buffered mode
// a short window may see none (or one buffer's worth) of the lines its requests made.
struct LogDelta {
  std::string mode;  // canonical ("buffered:64K+sync:interval:1000"): /stats log.mode, else config.log
  std::string path;  // /stats log.path; "" when the server does not say
  uint64_t lines = 0, bytes = 0, write_calls = 0, write_errors = 0, dropped_lines = 0, dropped_bytes = 0;
};
// The log counters, each as /stats names it under "log" (server/counter_list.h, group "log") and
// as the run JSON's server.log names it: the one list both loop over.
inline constexpr std::pair<uint64_t LogDelta::*, const char*> kLogCounters[] = {
    {&LogDelta::lines, "lines"},
    {&LogDelta::bytes, "bytes"},
    {&LogDelta::write_calls, "write_calls"},
    {&LogDelta::write_errors, "write_errors"},
    {&LogDelta::dropped_lines, "dropped_lines"},
    {&LogDelta::dropped_bytes, "dropped_bytes"}};

// Differences between two /stats snapshots. Missing fields count as 0 (older servers).
struct ServerDelta {
  // What was measured: kHitcostServer (its /stats), or "processes: pids …; tree …" (a server
  // hitcost-load did not build, read from /proc: client/process_set.h).
  static constexpr const char* kHitcostServer = "hitcost-server";
  std::string backend = kHitcostServer;
  bool read_from_proc() const noexcept { return backend != kHitcostServer; }
  int members_changed = 0;  // processes: members that came or went in the window
  double interval_s = 0;    // by the server's own clock (uptime difference)
  uint64_t requests = 0, pages = 0, hits = 0, misses = 0;
  uint64_t decode_errors = 0, store_errors = 0, bad_requests = 0;
  double cpu_s = 0;                   // server process user+system
  std::optional<double> cache_cpu_s;  // store.extra rusage (memcached); absent for local stores
  uint64_t cache_bytes_read = 0, cache_bytes_written = 0;
  uint64_t http_bytes_in = 0, http_bytes_out = 0;
  std::optional<double> cache_net_bytes_read, cache_net_bytes_written;  // memcached's own (all nodes)
  std::vector<PhaseDelta> phases;                                       // in the server's order
  SampledDelta sampled_hit, sampled_miss, sampled_other;
  uint64_t clock_reads = 0;  // thread-clock reads the sampling made
  double clock_read_ns = 0;  // what one costs (server's measurement)
  // Clean tiles (server/cpu_sampler.h): runs of requests timed as one with no sample inside.
  uint64_t clean_tiles = 0, clean_tile_requests = 0;
  double clean_tile_cpu_ns = 0;
  uint64_t sample_period = 0;  // about 1 in N requests sampled (at the end of the window)
  std::optional<ServerIdentity> identity;
  nlohmann::json memory;        // the "after" snapshot's memory gauges (KiB; null: not given)
  nlohmann::json config;        // the "after" snapshot's config
  std::optional<LogDelta> log;  // absent when the server reports no "log" (older servers)
  int threads = 0;
  bool counters_reset = false;  // a counter went backwards (someone POSTed /admin/reset)
  // Where the server and the cache ran, as the server reports it: "cpus" (top level or in
  // config), else the io threads' "thread_cpus"; the cache's from store.extra "cpus".
  // The string "unknown" when the server does not say.
  nlohmann::json server_cpus = "unknown";
  nlohmann::json cache_cpus = "unknown";
  // The same as CPU numbers; empty when unknown. Cache: all nodes' CPUs, empty if any is unknown.
  std::vector<int> server_cpu_list() const;
  std::vector<int> cache_cpu_list() const;
  // The sampling's own cost (its clock reads) as a fraction of the server's CPU.
  std::optional<double> sampling_overhead() const noexcept;
  // The whole samples' mean CPU per request over all outcomes.
  std::optional<double> whole_sampled_cpu_us() const noexcept;
  // The io threads' CPU per request (all outcomes) as nobody observes it, from the clean
  // tiles. A tile of K requests carries one clock read's disturbance, as does one whole
  // sample (mean W over all outcomes): tile = x + e/K and W = x + e give
  // x = (K·tile − W)/(K − 1). nullopt below kMinCleanTiles tiles or without whole samples.
  std::optional<double> unobserved_cpu_us() const noexcept;
  // What a whole sample's clock reads add to the request they time: W − x.
  std::optional<double> sample_excess_us() const noexcept;
  // An outcome's CPU per request with that excess taken out (the same for every outcome);
  // the sampled figure as it is where there are too few clean tiles.
  std::optional<double> unobserved_cpu_us(const SampledDelta& d) const noexcept;
  static constexpr uint64_t kMinCleanTiles = 20;

  double hit_ratio() const noexcept;
  double per_request_us(double seconds) const noexcept { return requests ? seconds * 1e6 / double(requests) : 0.0; }
  double server_cpu_us_per_req() const noexcept { return per_request_us(cpu_s); }
  std::optional<double> cache_cpu_us_per_req() const noexcept {
    if (!cache_cpu_s) return std::nullopt;
    return per_request_us(*cache_cpu_s);
  }
};
ServerDelta stats_delta(const nlohmann::json& before, const nlohmann::json& after);

// This process's user+system CPU seconds (all threads).
double self_cpu_s() noexcept;

// Sanitises text into a store-namespace-safe token: [a-z0-9] kept, runs of anything else
// become one '-'. "struct:json+zlib" → "struct-json-zlib".
std::string namespace_token(std::string_view text);

}  // namespace hitcost::client
