#pragma once
// Reading hitcost-server outside the load (over measure/admin_client.h): /stats snapshots and their deltas over
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

#include "core/result.h"
#include "load/net.h"
#include "measure/admin_client.h"
#include "proc/proc.h"
#include "report/server_record.h"

namespace hitcost::client {

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
  std::string hostname;  // where it ran, as it says ("" from a server before it said)
  int64_t pid = 0;
  uint64_t start_ticks = 0;
  bool is_local() const;
};

// Differences between two /stats snapshots. Missing fields count as 0 (older servers). What a
// run keeps of it is the base (report/server_record.h): the counters of wire/server_counters.h
// (requests, hits, cache_bytes_read, log_lines, ...), the backend, CPU seconds, config and log
// mode; the rest here is what the measurement reads while it makes the run's figures.
struct ServerDelta : ServerRecord {
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
  nlohmann::json memory;  // the "after" snapshot's memory gauges (KiB; null: not given)
  // Where the server and the cache ran, as the server reports it: "cpus" (top level or in
  // config), else the io threads' "thread_cpus"; the cache's from store.extra "cpus".
  // The string "unknown" when the server does not say.
  nlohmann::json server_cpus = "unknown";
  nlohmann::json cache_cpus = "unknown";
  // The memcached nodes as the server names them ("HOST:PORT", from /stats store.describe), in
  // the order of cache_cpus' entries; empty for another store.
  std::vector<std::string> cache_nodes;
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

// The nodes of a memcached store as its describe() names them: "memcached:a:11211,b:11211?timeout_ms=…"
// → {"a:11211", "b:11211"}; {} for another store.
std::vector<std::string> memcached_nodes(std::string_view describe);

// This process's user+system CPU seconds (all threads).
double self_cpu_s() noexcept;

// Sanitises text into a store-namespace-safe token: [a-z0-9] kept, runs of anything else
// become one '-'. "struct:json+zlib" → "struct-json-zlib".
std::string namespace_token(std::string_view text);

}  // namespace hitcost::client
