#pragma once
// The run record's "server" part: the server's /stats difference over the run's window as a run
// keeps it. Its counters are the rows of wire/server_counters.h, at the places /stats has them
// ("/hits", "/log/lines", "/cache/bytes_read"), so a counter the server adds reaches every
// saved run, merge and report without an edit here.
#include <bitset>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/field_table.h"
#include "wire/server_counters.h"

namespace hitcost::client {

struct ServerRecord : wire::ServerCounters {
  // The access log's mode and file; absent when the server reported no "log" (then its log_*
  // counters are not written either: runs of older servers keep their JSON).
  struct Log {
    std::string mode, path;  // path "" when the server does not say
  };
  // What was measured: kHitcostServer (its /stats), or "processes: pids …; tree …" (a server
  // hitcost-load did not build, read from /proc: measure/process_set.h).
  static constexpr const char* kHitcostServer = "hitcost-server";
  std::string backend = kHitcostServer;
  bool read_from_proc() const noexcept { return backend != kHitcostServer; }
  int members_changed = 0;  // processes that came or went in the window
  nlohmann::json config;    // the server's /stats config at the window's end
  int threads = 0;
  double interval_s = 0;      // by the server's clock
  uint64_t bad_requests = 0;  // every 4xx (derived by the server, not a row of the table)
  double cpu_s = 0;           // server process user + system
  std::optional<double> cache_cpu_s;
  bool counters_reset = false;  // a counter went backwards in the window (POST /admin/reset)
  std::optional<Log> log;
  // Counters the server did not report (an older server, a file from before the row): left out
  // of the JSON rather than written as a 0 nobody counted. By row of wire/server_counters.h.
  std::bitset<wire::kServerCounterCount> unreported;
};

// nlohmann ADL. from_json never throws: a missing or mistyped field keeps its default.
void to_json(nlohmann::json& j, const ServerRecord& s);
void from_json(const nlohmann::json& j, ServerRecord& s);

}  // namespace hitcost::client

namespace hitcost::client::fields {

// The server part's own fields; its counters (by wire/server_counters.h's rows) and its log are
// written and read beside them (server_record.cpp).
template <>
struct Table<ServerRecord> {
  using S = ServerRecord;
  static constexpr std::tuple rows{Row{"/backend", &S::backend},
                                   Row{"/members_changed", &S::members_changed},
                                   Row{"/config", &S::config},
                                   Row{"/threads", &S::threads},
                                   Row{"/interval_s", &S::interval_s},
                                   Row{"/bad_requests", &S::bad_requests},
                                   Row{"/cpu_s", &S::cpu_s},
                                   Row{"/cache_cpu_s", &S::cache_cpu_s},
                                   Row{"/counters_reset", &S::counters_reset}};
};

}  // namespace hitcost::client::fields
