#pragma once
// A server hitcost-load did not build — php-fpm workers behind nginx, say — measured from
// /proc instead of its /stats: `--server-pids 12,34` and/or `--server-tree PID` (the pid and
// every process under it, listed again at each snapshot). Optionally the cache the same way
// (`--cache-pids`, `--cache-tree`: memcached).
//
// A snapshot is shaped like hitcost-server's /stats (docs/http-api.md) — cpu, cpus, host,
// store.extra for the cache — so the run's accounting (idle baseline, contamination,
// attribution, deltas) is the one hitcost-server's runs get, with nothing copied. What /proc
// cannot say is left out: requests, hits and misses are the client's own counts (X-Cache),
// and there are no per-phase figures or sampled CPU per hit (at a 100 % hit ratio the CPU per
// request is the CPU per hit).
//
// CPU per member is its threads' scheduler runtime (proc::read_runtime_ns, ns precise), or
// /proc/PID/stat's ticks where schedstat is missing. Members are matched across snapshots
// by (pid, start time): one that appeared in the window counts from zero, one that left
// loses its CPU from the window, and the run says how many did either (`members_changed`).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "measure/server_stats.h"

namespace hitcost::client {

struct ProcessSetSpec {
  std::vector<int64_t> pids;   // measured as given
  std::vector<int64_t> trees;  // each root and its descendants, listed at every snapshot
  bool empty() const noexcept { return pids.empty() && trees.empty(); }
  std::string describe() const;  // "pids 12,34; tree 56" for reports
};

struct Member {
  int64_t pid = 0;
  uint64_t start_ticks = 0;
  std::string comm;
  double cpu_s = 0;
  std::vector<int> allowed_cpus;
};

// The live members now (a pid that is gone is skipped; a tree root that is gone has no members).
std::vector<Member> read_members(const ProcessSetSpec& spec);

// CPU the members spent between two readings (see above), and how many came or went.
struct MemberDelta {
  double cpu_s = 0;
  int changed = 0;
};
MemberDelta member_delta(const std::vector<Member>& before, const std::vector<Member>& after);

// A /stats-shaped snapshot of the server set (and of the cache set when not empty), with
// the members listed under "processes"/"cache_processes". not_found ("no live process in
// the server set (pids 12)") when the server set has no live member.
Result<nlohmann::json> process_set_stats(const ProcessSetSpec& server, const ProcessSetSpec& cache, double uptime_s);

// The members of a snapshot written by process_set_stats ("processes" or "cache_processes").
std::vector<Member> members_of(const nlohmann::json& snapshot, const char* field);

// Completes a delta of two process_set_stats snapshots: CPU member by member, and the
// client's own counts of what was answered in the same window (requests, X-Cache hits
// and misses) where hitcost-server would have given its counters.
void complete_process_delta(ServerDelta& d, const nlohmann::json& before, const nlohmann::json& after,
                            uint64_t requests, uint64_t hits, uint64_t misses);

}  // namespace hitcost::client
