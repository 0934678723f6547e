#pragma once
// The run record's CPU parts, typed: "cpu", the CPU accounting of every party
// (figures/cpu_accounting.h CpuFigures as a run keeps it, cpu_record_of), and "server_sampling",
// the server's sampled CPU per request of each outcome (written by measure/run_output.cpp).
//
// Each JSON object is a struct with a table (field_table.h): its fields' keys, at the places the
// run JSON has always had them. A figure is nullopt where the JSON holds null (no such figure in
// this run: no cache process, no receiver-pays split) or lacks it (a file from before it). Every
// struct keeps an AsRead, so an old file's part writes back as it was: the keys it lacked stay
// out, and keys this version does not know are kept.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "figures/cpu_accounting.h"
#include "report/field_table.h"

namespace hitcost::client {

// One accounting's CPU per request (µs) of each party. cache and client are null where they
// are not told apart (peers only) or there is no cache process.
struct PartyUsRecord {
  std::optional<double> server, cache, client, peers, total;
  fields::AsRead as_read;
};

// cpu.per_request_us: raw (as measured), net (idle taken off), receiver_pays (receive work moved,
// null where the placement does not allow it), attributed (the headline's: net or receiver_pays).
struct PerRequestUsRecord {
  PartyUsRecord raw, net;
  std::optional<PartyUsRecord> receiver_pays;
  PartyUsRecord attributed;
  fields::AsRead as_read;
};

// `local` (in each part read from this machine's /proc): false when the server or a cache node is
// not on this host; its figures are then null, never this machine's. Absent from older files.
struct RawNetUsRecord {  // µs per request, as measured and net of idle
  std::optional<double> raw, net;
  std::optional<bool> local;
  fields::AsRead as_read;
};

struct CpuSidesUsRecord {  // µs per request on the server's CPUs and on its peers', net of idle
  std::optional<double> server_cpus, peer_cpus;
  std::optional<bool> local;
  fields::AsRead as_read;
};

struct IdleCoresRecord {  // the idle baseline's rates, CPU s per s
  std::optional<double> server, cache, client;
  fields::AsRead as_read;
};

// cpu.contamination (figures/cpu_accounting.h Contamination), cores.
struct ContaminationRecord {
  std::string state;  // "clean" | "contaminated" | "unknown"
  std::string why, cpus;
  std::optional<double> own_cores, other_cores, steal_cores, fraction;
  std::optional<double> kernel_cores;  // null without a census
  std::string kernel_where;
  std::optional<double> other_server_cores, other_peer_cores;  // null unless the sides are apart
  std::optional<bool> local;  // false: the figures above are null (state "unknown", why: which process is elsewhere)
  fields::AsRead as_read;
};

struct CpuRecord {
  std::string attribution = "sender-pays";  // of `attributed` and the per-hit figures
  std::string attribution_note;
  uint64_t requests = 0;  // the server's, in the window
  std::string receiver_pays_note;
  PerRequestUsRecord per_request_us;
  RawNetUsRecord machine_busy_us_per_req;  // /proc/stat on the judged CPUs
  std::optional<IdleCoresRecord> idle_cores;
  CpuSidesUsRecord softirq_us_per_req, cpus_busy_us_per_req;
  // Per hit and per miss, µs (4. Per hit in figures/cpu_accounting.h).
  std::optional<double> server_hit_us, server_hit_sampled_us, server_hit_sender_pays_us, server_hit_receiver_pays_us;
  std::optional<double> server_miss_us;
  std::optional<double> idle_server_us_per_req, server_shift_us_per_req;
  std::optional<double> idle_server_us_per_hit, server_shift_us_per_hit, idle_server_us_per_miss,
      server_shift_us_per_miss;
  std::optional<std::string> corrections_shared;  // how the corrections were shared; nullopt: a file from before
  // A hit's sampled parts corrected like the headline, µs by part name; null without them.
  std::optional<std::map<std::string, double>> server_hit_parts_us;
  ContaminationRecord contamination;
  // The figures that could not be right when the run was written (check_cpu_figures).
  std::optional<std::vector<CpuFlag>> flags;
  fields::AsRead as_read;
};

// One outcome's sampled CPU, µs per request of it (server/cpu_sampler.h).
struct SampledOutcomeRecord {
  uint64_t whole_samples = 0, samples = 0;
  std::optional<double> cpu_us, unobserved_cpu_us, detailed_cpu_us;
  std::map<std::string, double> parts_cpu_us, parts_wall_us;  // by part name
  fields::AsRead as_read;
};

struct SamplingRecord {
  std::optional<uint64_t> period;  // about 1 in N requests sampled
  double clock_read_ns = 0;
  uint64_t clock_reads = 0;
  std::optional<double> overhead_fraction;
  uint64_t clean_tiles = 0;
  std::optional<double> unobserved_cpu_us, whole_sample_excess_us;
  SampledOutcomeRecord hit, miss, other;
  fields::AsRead as_read;
};

// The run's "cpu" part of figures `f` over the server's `requests` in the window (no flags yet:
// they are judged on the whole run, RunRecord::cpu_flags).
CpuRecord cpu_record_of(const CpuFigures& f, uint64_t requests);

// nlohmann ADL. from_json never throws.
void to_json(nlohmann::json& j, const CpuRecord& c);
void from_json(const nlohmann::json& j, CpuRecord& c);
void to_json(nlohmann::json& j, const SamplingRecord& s);
void from_json(const nlohmann::json& j, SamplingRecord& s);

}  // namespace hitcost::client

namespace hitcost::client::fields {

template <>
struct Table<PartyUsRecord> {
  using S = PartyUsRecord;
  static constexpr std::tuple rows{Row{"/server", &S::server}, Row{"/cache", &S::cache}, Row{"/client", &S::client},
                                   Row{"/peers", &S::peers}, Row{"/total", &S::total}};
};
template <>
struct Table<PerRequestUsRecord> {
  using S = PerRequestUsRecord;
  static constexpr std::tuple rows{Row{"/raw", &S::raw}, Row{"/net", &S::net}, Row{"/receiver_pays", &S::receiver_pays},
                                   Row{"/attributed", &S::attributed}};
};
template <>
struct Table<RawNetUsRecord> {
  using S = RawNetUsRecord;
  static constexpr std::tuple rows{Row{"/raw", &S::raw}, Row{"/net", &S::net}, Row{"/local", &S::local}};
};
template <>
struct Table<CpuSidesUsRecord> {
  using S = CpuSidesUsRecord;
  static constexpr std::tuple rows{Row{"/server_cpus", &S::server_cpus}, Row{"/peer_cpus", &S::peer_cpus},
                                   Row{"/local", &S::local}};
};
template <>
struct Table<IdleCoresRecord> {
  using S = IdleCoresRecord;
  static constexpr std::tuple rows{Row{"/server", &S::server}, Row{"/cache", &S::cache}, Row{"/client", &S::client}};
};
template <>
struct Table<ContaminationRecord> {
  using S = ContaminationRecord;
  static constexpr std::tuple rows{Row{"/state", &S::state},
                                   Row{"/why", &S::why},
                                   Row{"/cpus", &S::cpus},
                                   Row{"/own_cores", &S::own_cores},
                                   Row{"/other_cores", &S::other_cores},
                                   Row{"/steal_cores", &S::steal_cores},
                                   Row{"/fraction", &S::fraction},
                                   Row{"/kernel_cores", &S::kernel_cores},
                                   Row{"/kernel_where", &S::kernel_where},
                                   Row{"/other_server_cores", &S::other_server_cores},
                                   Row{"/other_peer_cores", &S::other_peer_cores},
                                   Row{"/local", &S::local}};
};
template <>
struct Table<CpuRecord> {
  using S = CpuRecord;
  static constexpr std::tuple rows{Row{"/attribution", &S::attribution},
                                   Row{"/attribution_note", &S::attribution_note},
                                   Row{"/requests", &S::requests},
                                   Row{"/receiver_pays_note", &S::receiver_pays_note},
                                   Row{"/per_request_us", &S::per_request_us},
                                   Row{"/machine_busy_us_per_req", &S::machine_busy_us_per_req},
                                   Row{"/idle_cores", &S::idle_cores},
                                   Row{"/softirq_us_per_req", &S::softirq_us_per_req},
                                   Row{"/cpus_busy_us_per_req", &S::cpus_busy_us_per_req},
                                   Row{"/server_hit_us", &S::server_hit_us},
                                   Row{"/server_hit_sampled_us", &S::server_hit_sampled_us},
                                   Row{"/server_hit_sender_pays_us", &S::server_hit_sender_pays_us},
                                   Row{"/server_hit_receiver_pays_us", &S::server_hit_receiver_pays_us},
                                   Row{"/server_miss_us", &S::server_miss_us},
                                   Row{"/idle_server_us_per_req", &S::idle_server_us_per_req},
                                   Row{"/server_shift_us_per_req", &S::server_shift_us_per_req},
                                   Row{"/idle_server_us_per_hit", &S::idle_server_us_per_hit},
                                   Row{"/server_shift_us_per_hit", &S::server_shift_us_per_hit},
                                   Row{"/idle_server_us_per_miss", &S::idle_server_us_per_miss},
                                   Row{"/server_shift_us_per_miss", &S::server_shift_us_per_miss},
                                   Row{"/corrections_shared", &S::corrections_shared},
                                   Row{"/server_hit_parts_us", &S::server_hit_parts_us},
                                   Row{"/contamination", &S::contamination},
                                   Row{"/flags", &S::flags}};
};
template <>
struct Table<SampledOutcomeRecord> {
  using S = SampledOutcomeRecord;
  static constexpr std::tuple rows{Row{"/whole_samples", &S::whole_samples},
                                   Row{"/samples", &S::samples},
                                   Row{"/cpu_us", &S::cpu_us},
                                   Row{"/unobserved_cpu_us", &S::unobserved_cpu_us},
                                   Row{"/detailed_cpu_us", &S::detailed_cpu_us},
                                   Row{"/parts_cpu_us", &S::parts_cpu_us},
                                   Row{"/parts_wall_us", &S::parts_wall_us}};
};
template <>
struct Table<SamplingRecord> {
  using S = SamplingRecord;
  static constexpr std::tuple rows{Row{"/period", &S::period},
                                   Row{"/clock_read_ns", &S::clock_read_ns},
                                   Row{"/clock_reads", &S::clock_reads},
                                   Row{"/overhead_fraction", &S::overhead_fraction},
                                   Row{"/clean_tiles", &S::clean_tiles},
                                   Row{"/unobserved_cpu_us", &S::unobserved_cpu_us},
                                   Row{"/whole_sample_excess_us", &S::whole_sample_excess_us},
                                   Row{"/hit", &S::hit},
                                   Row{"/miss", &S::miss},
                                   Row{"/other", &S::other}};
};

// The flags as cpu_flags_json writes them, [{"figure", "why"}]; a list of another form reads as none.
template <>
struct Codec<std::vector<CpuFlag>> {
  static json write(const std::vector<CpuFlag>& v) { return cpu_flags_json(v); }
  static void read(const json& j, std::vector<CpuFlag>& v) {
    v.clear();
    if (!j.is_array()) return;
    for (const json& e : j)
      if (e.is_object() && e.value("figure", json()).is_string() && e.value("why", json()).is_string())
        v.push_back({e["figure"].get<std::string>(), e["why"].get<std::string>()});
  }
  static bool empty(const std::vector<CpuFlag>& v) { return v.empty(); }
};

}  // namespace hitcost::client::fields
