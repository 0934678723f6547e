#pragma once
// Where a run's CPU went, from raw readings to the figures a report shows. Pure functions of
// what measure_run collected, so every rule below is unit-tested apart from any load.
//
// Four corrections turn raw readings into the headline:
//
// 1. Idle. Before the run, nothing loads the server for ≥ 1 s and the CPU of the server, the
//    cache nodes and this client is measured: timers, background threads (memcached's LRU
//    maintainer, the server's sweeper). "net" figures subtract that rate × the window. At
//    10k req/s it is noise; at 20 req/s it is most of the figure.
//
// 2. Attribution. On loopback the kernel runs the receive path of a send as a softirq in the
//    *sender's* context and bills it to the sender (this kernel has no IRQ time accounting):
//    memcached pays for the server receiving a value, the server for the client receiving a
//    page ("sender-pays"). With the server pinned to CPUs of its own and the cache and the
//    client elsewhere, every softirq tick on the server's CPUs is receive work for its peers,
//    and every softirq tick on the peers' CPUs is receive work for the server (their only
//    traffic is with it). "receiver-pays" moves those ticks (/proc/stat, net of the idle
//    rate) to the receiver; the peers' share of the server CPUs' softirq is split by the bytes
//    each received. The sum over the three parties does not change: it is the conserved
//    figure. Where the placement does not allow this (unpinned, shared CPUs, a remote party),
//    the split stays sender-pays and every report says so.
//
// 3. Contamination. Busy time (/proc/stat) on the CPUs the measured processes may run on,
//    minus their own CPU, is work of other processes or of the kernel for them; steal is the
//    hypervisor's. Both, relative to the run's own CPU, above a threshold: contaminated.
//    Unknown when the server or the cache is not on this machine (their CPU cannot be told
//    apart from other work here).
//
// 4. Per hit. The server samples its own thread CPU per request and splits it into hits and
//    misses (server/cpu_sampler.h). CPU per hit is that sample mean, net of idle and moved as
//    in 2 like any request; CPU per request at the run's hit ratio (getrusage) stays beside it.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "proc/proc.h"

namespace hitcost::client {

enum class Attribution { sender_pays, receiver_pays };
const char* to_string(Attribution) noexcept;

// What the run measured, already as differences over its windows.
struct CpuReadings {
  double window_s = 0;                      // the measured window (client clock, snapshot to snapshot)
  uint64_t server_requests = 0;             // all requests the server answered in it
  double server_cpu_s = 0;                  // server process, getrusage
  std::optional<double> cache_cpu_s;        // memcached nodes, their rusage summed; nullopt: no cache process
  double client_cpu_s = 0;                  // this process, getrusage
  std::optional<proc::MachineCpu> machine;  // per-CPU /proc/stat over the window

  // Idle baseline (no load, before the run); idle_window_s 0 = not measured.
  double idle_window_s = 0;
  double idle_server_cpu_s = 0;
  std::optional<double> idle_cache_cpu_s;
  double idle_client_cpu_s = 0;
  std::optional<proc::MachineCpu> idle_machine;

  // Placement: CPUs each party may run on; empty = unknown. `*_local` false = another machine
  // (or a process this client cannot see), so its CPUs are not in this machine's /proc/stat.
  bool server_local = false;
  bool cache_local = false;  // ignored without a cache process
  std::vector<int> server_cpus, cache_cpus, client_cpus;

  // Bytes each peer received from the server, for splitting the softirq on the server's CPUs
  // (all of it the peers' receive work) between the cache and the client.
  double bytes_client_received = 0;  // responses (server's HTTP bytes out)
  double bytes_cache_received = 0;   // commands and values (memcached bytes_read)

  // The server's sampled CPU per hit / miss (µs), nullopt when it did not sample.
  std::optional<double> sampled_hit_us, sampled_miss_us;

  double contamination_threshold = 0.05;  // of the run's own CPU
};

struct PartyCpu {  // seconds over the window
  double server = 0, cache = 0, client = 0;
  // false: only cache + client together is known (receiver-pays with the cache and the client
  // on shared CPUs: their softirq ticks cannot be told apart, and bytes are no fair split —
  // the client's many small ACKs cost per packet, not per byte).
  bool peers_split = true;
  double total() const noexcept { return server + cache + client; }
  double peers() const noexcept { return cache + client; }
};

struct Contamination {
  enum class State { clean, contaminated, unknown } state = State::unknown;
  std::string why;         // for unknown: what is missing; else the figures in words
  std::vector<int> cpus;   // the CPUs judged
  double own_cores = 0;    // server + cache + client
  double other_cores = 0;  // busy on those CPUs minus our own (other processes, kernel)
  double steal_cores = 0;
  double fraction() const noexcept { return own_cores > 0 ? (other_cores + steal_cores) / own_cores : 0; }
};
const char* to_string(Contamination::State) noexcept;

struct CpuFigures {
  Attribution attribution = Attribution::sender_pays;  // of `attributed` and the per-hit figure
  bool has_cache = false;                 // a cache process (memcached) was measured; local stores have none
  std::string attribution_note;           // why sender-pays, or what was moved
  PartyCpu raw;                           // getrusage / rusage deltas
  PartyCpu net;                           // idle subtracted (== raw without a baseline)
  std::optional<PartyCpu> receiver_pays;  // net, receive work moved to the receiver (if placement allows)
  std::string receiver_pays_note;         // what was moved, or why it could not be
  PartyCpu attributed;                    // the headline's: net (sender-pays) or receiver_pays, as asked
  std::optional<PartyCpu> idle_cores;     // the baseline rates (CPU s per s)
  std::optional<double> machine_busy_s, machine_busy_net_s;          // /proc/stat on the judged CPUs
  std::optional<double> softirq_server_cpus_s, softirq_peer_cpus_s;  // net of idle
  // Busy time of the server's own CPUs and of its peers' (net of idle), when they are apart:
  // whatever the kernel ran there, billed to a process or not (with receive flow steering on
  // loopback, the server's receive work runs on its CPUs and shows here).
  std::optional<double> busy_server_cpus_s, busy_peer_cpus_s;
  std::optional<double> server_hit_us;  // the headline: sampled, net, attributed
  std::optional<double> server_hit_sampled_us, server_miss_us;
  std::optional<double> server_hit_sender_us, server_hit_receiver_us;  // both splits, net of idle
  double server_shift_us_per_req = 0;                                  // attributed − net, server, per request
  double idle_server_us_per_req = 0;                                   // what the idle rate adds per request
  Contamination contamination;

  double per_request_us(double seconds, uint64_t requests) const noexcept {
    return requests ? seconds * 1e6 / double(requests) : 0;
  }
};

// `want`: the attribution asked for; receiver-pays falls back to sender-pays (with a note)
// where the placement does not allow it.
CpuFigures account(const CpuReadings& r, Attribution want);

nlohmann::json cpu_figures_json(const CpuFigures& f, uint64_t requests);

}  // namespace hitcost::client
