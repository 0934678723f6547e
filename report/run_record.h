#pragma once
// One run as every reporter reads it: the typed form of the run JSON that `hitcost-load run
// --json` writes, a sweep keeps in "runs", and `merge`, `report` and `compare` read back.
// The measurement (measure/run_output.h RunReport: histograms, /stats deltas, CPU readings) becomes
// a RunRecord once (record_of); the JSON, CSV, HTML and summary reporters read only this.
//
// The fields are listed once, in one table (run_record.cpp, for_each_field): each with its
// place in the JSON and, for the headline figures, its CSV column. to_json, from_json, the CSV
// header and rows and the HTML runs table all walk that table, so a new field is one row.
//
// The JSON is a contract (README, scripts, tests): top-level key names and layout stay as they
// were. Old files load: a key they lack takes its default, a key this version does not know is
// kept in `extra` and written back unchanged. The CPU accounting and the server's sampling are
// typed parts with tables of their own (cpu_record.h), as is the server part (server_record.h);
// they write an old file's part back as it was. Sub-documents that other modules own and write
// (the server's /stats config and memory, the phases, the per-second series, the sparse
// histograms) are carried as JSON.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "figures/cpu_accounting.h"
#include "figures/error_counts.h"
#include "figures/histogram.h"
#include "report/cpu_record.h"
#include "report/run_request.h"
#include "report/server_record.h"

namespace hitcost::client {

// Percentiles of one latency histogram, µs (count is a number of samples).
struct LatencyUs {
  uint64_t count = 0;
  double min = 0, mean = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0, max = 0;
};
LatencyUs latency_us_of(const Histogram& h);

// One --rows-mix entry with the measured responses that asked for it.
struct RowsMixRecord {
  int rows = 0;
  double weight = 0;
  uint64_t requests = 0;
};

// Where each part of a run ran ("hosts"): this client (a merged record: every client), the
// server by its /stats "host", and each memcached node as the server names it. `local`: on this
// client's host (the server by its identity, measure/server_stats.h). A part that is not local
// has no figure read from this machine's /proc: those are null beside a `local: false`
// (docs/hitcost-load.md, "not on this host").
// What reports say of a figure read from this machine's /proc for a process on another host.
inline constexpr std::string_view kNotOnThisHost = "not on this host";

struct HostRecord {
  std::string hostname, boot_id;
};
struct ServerHostRecord {
  std::string hostname, boot_id;
  bool local = false;
};
struct CacheNodeHostRecord {
  std::string node;             // "HOST:PORT" as the server names it (its store), or "pid N" (--cache-pids)
  bool on_server_host = false;  // the server found a memcached process for it on its own host
  bool local = false;           // on this client's host
};
struct HostsRecord {
  std::vector<HostRecord> clients;  // JSON "client": one object; a merged record's: a list, one per input
  bool clients_listed = false;      // write "client" as a list (merged)
  std::optional<ServerHostRecord> server;
  std::vector<CacheNodeHostRecord> cache;
};

struct RunRecord : RunRequest {
  // what was asked, besides the RunRequest
  std::string mode;                           // "open-loop" | "closed-loop"
  std::vector<std::vector<int>> thread_cpus;  // CPUs each load thread was seen on
  double max_error_rate = 0, max_transport_error_rate = 0;
  // what happened
  uint64_t requests = 0, ok = 0;
  double duration_s = 0;  // the window that ran
  bool interrupted = false;
  double throughput_rps = 0, hit_ratio = 0;
  LatencyUs latency_us, hit_latency_us, miss_latency_us, service_latency_us, send_lateness_us;
  double spin_us = 0;
  std::optional<double> server_cpu_us_per_req, cache_cpu_us_per_req;
  double client_cpu_us_per_req = 0;
  std::optional<double> server_cpu_us_per_hit;  // the headline (sampled, net of idle, attributed)
  ErrorCounts errors;
  uint64_t errors_total = 0;               // as written (a file may have kinds this version lacks)
  std::vector<ErrorSample> error_samples;  // JSON {"kind", "first"}
  std::optional<std::string> error_limit_exceeded;
  uint64_t unfinished = 0, unsent = 0, reconnects = 0;
  uint64_t started_unix_ns = 0;
  int contamination_retries = 0;
  std::optional<std::vector<RowsMixRecord>> rows_mix;  // only with --rows-mix
  std::optional<bool> contaminated;                    // null: not judged
  std::string strategy, store;
  // placement: where each party ran
  std::string client_cpus;            // "0-3"
  nlohmann::json client_thread_cpus;  // a list per thread (merged: a list per client)
  nlohmann::json server_cpus = "unknown", cache_cpus = "unknown";
  bool server_local = false, cache_local = false;
  std::optional<HostsRecord> hosts;  // where each part ran; absent from a file written before it
  // server side (null without server stats)
  std::optional<ServerRecord> server;       // the /stats delta's counters and config
  std::optional<std::string> server_error;  // why there are no server figures
  nlohmann::json phases_us_per_req;         // phase name → µs per request
  double response_bytes_per_req = 0, body_bytes_per_req = 0;
  std::optional<double> cache_read_bytes_per_req, cache_written_bytes_per_req;
  double client_cpu_s = 0, snapshot_window_s = 0;  // JSON "system"
  std::optional<CpuRecord> cpu;                    // the CPU accounting (cpu_record_of); null without server stats
  std::optional<SamplingRecord> server_sampling;   // the server's sampled CPU per outcome
  nlohmann::json server_memory_kb;
  // The floor of a hit, calibrated on the server just before the run (POST /admin/calibrate,
  // floor/floor_json.h's document); null when not asked or not answered (floor_error says why).
  nlohmann::json floor;
  std::optional<std::string> floor_error;
  std::optional<std::string> idle_error;  // why no idle baseline was taken off, when one was asked
  // --start-at (measure/measure.h): the wall time the load was asked to start at (Unix ns), and
  // how many ms past it it did. Absent for a run that started when it was ready.
  std::optional<uint64_t> start_at_unix_ns;
  std::optional<double> start_late_ms;
  // The window's slowest requests from the server's slow log (hitcost-server --slow-log;
  // measure/slow_requests.h): {"threshold_us", "recorded", "slowest": [...]}; null without one.
  nlohmann::json slowest;
  // raw data for exact merges (sparse histograms, measure/run_output.h histogram_to_json; series)
  nlohmann::json histogram, histogram_hit, histogram_miss, histogram_service, histogram_send_lateness;
  nlohmann::json series;
  // sweep and merge context (absent for a single run)
  std::optional<int> repeat;
  std::optional<std::string> sweep_store, role;  // role: "capacity" | "latency"
  std::optional<int> round;
  nlohmann::json merged;  // merge's account of its inputs (report/merge.h)
  // Top-level keys this version does not know: kept and written back.
  nlohmann::json extra = nlohmann::json::object();

  bool is_latency_run() const { return role.value_or("") == "latency"; }
  // The summary's row for this run: the strategy, with the sweep cell's axis settings
  // (sweep_row_label).
  std::string row_label() const;
  // The store a sweep grouped this run under: sweep_store, else the server's store.
  std::string group_store() const { return sweep_store && !sweep_store->empty() ? *sweep_store : store; }
  std::string attribution() const;  // cpu.attribution, "sender-pays" when there is none
  // A figure by its run JSON pointer ("/cpu/per_request_us/net/cache", "/server_cpu_us_per_hit"),
  // looked up in the tables: for a flag's figure (CpuFlag::figure). nullopt if the run has none.
  std::optional<double> figure(std::string_view pointer) const;
  // The run JSON pointer of a member of this record (`r.pointer_of(r.cpu->server_hit_us)`), from
  // the tables: the name its flag has. "" when `member` is not a field of this record.
  template <class T>
  std::string pointer_of(const T& member) const {
    return pointer_at(&member, typeid(T));
  }
  // Figures that cannot be right as they stand (figures/cpu_accounting.h check_cpu_figures),
  // judged from the record's figures: what cpu.flags says for a run written by this version.
  std::vector<CpuFlag> cpu_flags() const;
  // Why the figure at `pointer` (a run JSON pointer: "/cpu/per_request_us/net/cache") is
  // flagged; nullopt when it is not. A flagged figure must not feed a median or a verdict.
  std::optional<std::string> flag_of(std::string_view pointer) const;
  // Why the figure at member `figure` of this record is flagged (its pointer from the tables).
  std::optional<std::string> flag_of(const std::optional<double>& figure) const { return flag_of(pointer_of(figure)); }
  // The headline's flag: server_cpu_us_per_hit below zero, and why.
  std::optional<std::string> per_hit_flag() const { return flag_of(server_cpu_us_per_hit); }
  // The floor's µs per hit for CPU part `part` ("fetch", ..., "total"); nullopt without one.
  std::optional<double> floor_us(std::string_view part) const;
  // The floor's whole hit in one loop, µs (floor "composed_us"); nullopt without one.
  std::optional<double> composed_us() const;
  // What check_cpu_figures reads: {"cpu", "server_sampling", "server_cpu_us_per_hit"}.
  nlohmann::json cpu_figures_doc() const;

 private:
  // A part and its first field share an address: the field's type tells them apart.
  std::string pointer_at(const void* member, const std::type_info& type) const;
};

// A sweep's row label: `strategy` alone, or with the cell's settings, "STRATEGY NAME=VALUE ...":
// "html log=buffered:64k threads=2". No comma or quote (CSV-safe); strategies and values hold no
// space, so the label splits back at its spaces.
std::string sweep_row_label(const std::string& strategy, const AxisSettings& axes);
// The settings as text, "log=buffered:64k threads=2" ("" for none): the label's tail, the CSV cell.
std::string axes_text(const AxisSettings& axes);

// The one reader and writer of the run JSON (nlohmann ADL: `json j = record;`,
// `j.get<RunRecord>()`). from_json never throws on a missing or mistyped field.
void to_json(nlohmann::json& j, const RunRecord& r);
void from_json(const nlohmann::json& j, RunRecord& r);
nlohmann::json to_json(const LatencyUs& l);

// The runs of a document: a sweep's or merge's "runs", or the document itself (one run).
std::vector<RunRecord> records_of(const nlohmann::json& doc);

// The field table, for tests and tools: each field's JSON pointer and CSV column ("" = none).
struct RunFieldName {
  std::string pointer, csv;
};
std::vector<RunFieldName> run_fields();

// CSV: one header line, one row per run; the columns are the table's CSV fields in order.
std::string csv_run_header();
std::string csv_run_row(const RunRecord& r);
std::string csv_run_row(const nlohmann::json& run);  // a run JSON (to_json's or a merged one)
// The CSV columns of one run as (column, text) pairs, for the HTML runs table.
std::vector<std::pair<std::string, std::string>> csv_run_cells(const RunRecord& r);

// The sparse histogram document and its exact inverse (false: not this layout).
nlohmann::json histogram_to_json(const Histogram& h);
bool histogram_from_json(const nlohmann::json& j, Histogram* h);
nlohmann::json latency_json(const Histogram& h);  // µs percentiles: to_json(latency_us_of(h))

}  // namespace hitcost::client
