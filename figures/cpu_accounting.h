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
// 4. Per hit. The server samples its own thread CPU per request and splits it into hits,
//    misses and other requests (server/cpu_sampler.h). The idle of 1 and the receive work moved
//    in 2 are totals over the window; each outcome takes the share of them its sampled CPU
//    carries: with n_k requests of outcome k at a sampled c_k µs, a hit's share of a total C is
//    C · c_hit / Σ_k n_k·c_k (an outcome not sampled counts at the sampled mean). A miss that
//    costs ten hits takes ten hits' share, so CPU per hit does not move with the hit ratio, and
//    n_hit·(hit's share) + n_miss·(miss's share) + ... = C exactly. (A share per request, the
//    same for a hit and a miss, charged hits too much of the idle at 90 % hits.) CPU per
//    request at the run's hit ratio (getrusage) stays beside it.
//    The sampled parts of a hit (the detailed samples: receive, fetch, ..., write, other) are
//    corrected the same way, each by its share of their sum: the detailed reads' own
//    disturbance, the whole samples' excess, the idle and the receive work are all shared by
//    cost, so the corrected parts add up to CPU per hit exactly.
//
// Figures that cannot be right. A net figure below zero (an idle baseline above the run's own
// CPU: a noisy baseline, or very few requests), a part's CPU above its wall time, our own CPU
// above the busy time /proc/stat shows: each is found by one table of checks (kChecks in
// cpu_accounting.cpp) over the run JSON and listed in `cpu.flags` with its JSON pointer and
// why. Reporters print a flagged figure marked with its reason, never as a plain number, and
// the summary leaves it out of medians and verdicts (report/run_record.h flag_of).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proc/proc.h"

namespace hitcost::client {

enum class Attribution { sender_pays, receiver_pays };
const char* to_string(Attribution) noexcept;

// One part of a sampled request (server/cpu_sampler.h), µs per request of its outcome.
struct SampledPart {
  std::string name;               // receive, fetch, unwrap, decode, render, origin, store_set, write, log, other
  double cpu_us = 0;              // thread CPU, a calibrated clock read's cost subtracted
  std::optional<double> wall_us;  // the phase's wall time; nullopt where the server times none
};
// Parts the server gives no wall time: the event loop and reading the request, routing and headers.
bool part_has_wall(std::string_view part) noexcept;

// What the run measured, already as differences over its windows.
struct CpuReadings {
  double window_s = 0;                      // the measured window (client clock, snapshot to snapshot)
  uint64_t server_requests = 0;             // all requests the server answered in it
  double server_cpu_s = 0;                  // server process, getrusage
  std::optional<double> cache_cpu_s;        // memcached nodes, their rusage summed; nullopt: no cache process
  double client_cpu_s = 0;                  // this process, getrusage
  std::optional<proc::MachineCpu> machine;  // per-CPU /proc/stat over the window
  std::optional<proc::CensusCpu> census;    // every process's CPU over the window (user processes, kernel threads)

  // Idle baseline (no load, before the run); idle_window_s 0 = not measured.
  double idle_window_s = 0;
  double idle_server_cpu_s = 0;
  std::optional<double> idle_cache_cpu_s;
  double idle_client_cpu_s = 0;
  std::optional<proc::MachineCpu> idle_machine;
  std::optional<proc::CensusCpu> idle_census;

  // Placement: CPUs each party may run on; empty = unknown. `*_local` false = another machine
  // (or a process this client cannot see), so its CPUs are not in this machine's /proc/stat.
  bool server_local = false;
  bool cache_local = false;  // ignored without a cache process
  std::vector<int> server_cpus, cache_cpus, client_cpus;

  // Bytes each peer received from the server, for splitting the softirq on the server's CPUs
  // (all of it the peers' receive work) between the cache and the client.
  double bytes_client_received = 0;  // responses (server's HTTP bytes out)
  double bytes_cache_received = 0;   // commands and values (memcached bytes_read)

  // The server's sampled CPU per hit / miss / other request (µs), nullopt when it did not
  // sample that outcome; and how many requests of each it answered (other: the rest of
  // server_requests). The corrections are shared among outcomes by these (4. Per hit).
  std::optional<double> sampled_hit_us, sampled_miss_us, sampled_other_us;
  uint64_t server_hits = 0, server_misses = 0;
  // A hit's detailed samples by part, in the server's order (empty: none).
  std::vector<SampledPart> hit_parts;

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

// Other work on the CPUs the run used. Busy time (/proc/stat) there minus our own processes'
// CPU is other processes' work and the kernel's. The kernel's is not other work: on loopback it
// is mostly the run's own traffic (softirqs run on an idle CPU, ksoftirqd), billed to no process
// of ours. With a census of every process (proc::ProcessCensus) the two are told apart:
// kernel work = kernel threads + busy time billed to no process at all (the machine's busy time
// minus every process's CPU), placed on the CPUs by their softirq + irq time. Other work on a set
// of CPUs is then busy − our own there − the kernel's there, per side where the server has CPUs
// of its own (the side a figure is sensitive to: report/noise.h). Without a census, all of
// busy − own counts as other work (the old, pessimistic judgement).
struct Contamination {
  enum class State { clean, contaminated, unknown } state = State::unknown;
  std::string why;         // for unknown: what is missing; else the figures in words
  std::vector<int> cpus;   // the CPUs judged
  double own_cores = 0;    // server + cache + client
  double other_cores = 0;  // busy on those CPUs minus our own and the kernel's: other processes
  // The kernel's work on those CPUs (billed to no process of ours; not other work); nullopt
  // without a census. Where it ran: softirq per CPU in `kernel_where`.
  std::optional<double> kernel_cores;
  std::string kernel_where;
  // Other work on the server's CPUs and on its peers' (cache, client), when they are apart.
  std::optional<double> other_server_cores, other_peer_cores;
  double steal_cores = 0;
  double fraction() const noexcept { return own_cores > 0 ? (other_cores + steal_cores) / own_cores : 0; }
};
const char* to_string(Contamination::State) noexcept;

struct CpuFigures {
  Attribution attribution = Attribution::sender_pays;  // of `attributed` and the per-hit figure
  bool has_cache = false;  // a cache process (memcached) was measured; local stores have none
  // The server and every cache node are on this host: false, nothing of this machine's /proc
  // (per-CPU times, the census) describes them, and the figures read from it are left out.
  bool local = false;
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
  // The same two corrections as a hit's and a miss's share (4. Per hit): what server_hit_us
  // and server_miss_us take off the sampled figure (idle) and add to it (receive work moved).
  double idle_server_us_per_hit = 0, server_shift_us_per_hit = 0;
  double idle_server_us_per_miss = 0, server_shift_us_per_miss = 0;
  // true: shared by the sampled CPU of each outcome; false: per request (no samples to share by).
  bool shared_by_cost = false;
  // A hit's sampled parts corrected like the headline (cpu_us; wall_us as sampled): they add up
  // to server_hit_us. Empty without detailed samples or a headline.
  std::vector<SampledPart> server_hit_parts;
  Contamination contamination;

  double per_request_us(double seconds, uint64_t requests) const noexcept {
    return requests ? seconds * 1e6 / double(requests) : 0;
  }
};

// `want`: the attribution asked for; receiver-pays falls back to sender-pays (with a note)
// where the placement does not allow it.
CpuFigures account(const CpuReadings& r, Attribution want);

// The run keeps these figures as its "cpu" part: report/cpu_record.h (cpu_record_of).

// A figure of a run that cannot be right as it stands, and why. `figure` is its JSON pointer
// in the run JSON (measure/run_output.h): "/cpu/per_request_us/net/server",
// "/server_sampling/hit/parts_cpu_us/fetch", "/server_cpu_us_per_hit".
struct CpuFlag {
  std::string figure, why;
};
// Every check of the table on a run JSON (its "cpu", "server_sampling" and
// "server_cpu_us_per_hit"; the rest is not read): the figures that fail one, in the table's
// order. Pure, so a saved run written before the checks existed is judged the same way.
std::vector<CpuFlag> check_cpu_figures(const nlohmann::json& run);
nlohmann::json cpu_flags_json(const std::vector<CpuFlag>& flags);  // [{"figure", "why"}]

}  // namespace hitcost::client
