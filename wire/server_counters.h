#pragma once
// The server's plain counters, in one table both programs include: hitcost-server counts and
// reports them (/stats, /metrics), hitcost-load differences them over a run's window and writes
// them into the run record's server part, and a row with a CSV column is a column of the run CSV
// and of the HTML runs table. Everything on both sides is generated from this list (memcached.h
// does the same with its stats: a counter written out in six places was missed in one sooner or
// later), so a new counter, end to end, is one row here and a `.add()` where it happens.
//
//   field        the member of the server's ThreadMetrics (an OwnedCounter), of its
//                MetricsSnapshot and of ServerCounters below (uint64_t)
//   group, key   where /stats reports it: j[key] at the top level when group is "", else
//                j[group][key]; the run JSON's "server" part has it at the same place
//   name, labels, type, help
//                its /metrics sample, `name{labels} value`, under `# HELP name help` and
//                `# TYPE name type`. Rows sharing a name are one family: keep them adjacent, with
//                the same type and help (tests/server/counter_table_test.cpp checks).
//   csv          its column in the run CSV and the HTML runs table, "" for none; the columns
//                come after the run's own, in this order (a new one goes last: old columns keep
//                their places)
// /metrics lists the top-level counters after the server's gauges and the grouped ones after the
// CPU samples: the order it has always had, kept so that scrapes from before and after diff clean.
//
// Not here: the arrays (errors by Errc kind, responses by status, phase histograms, sampled CPU),
// which keep their own loops over their sentinels, and bad_requests, which is derived (every 4xx).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

// clang-format off
#define HITCOST_SERVER_COUNTERS(X) \
  /* field               group    key                   name                              labels                   type, csv, help */ \
  X(requests,            "",      "requests",           "hitcost_requests_total",         "",                      "counter", "", \
    "Counter 'requests' from /stats.") \
  X(pages,               "",      "pages",              "hitcost_pages_total",            "",                      "counter", "", \
    "Counter 'pages' from /stats.") \
  X(hits,                "",      "hits",               "hitcost_hits_total",             "",                      "counter", "", \
    "Counter 'hits' from /stats.") \
  X(misses,              "",      "misses",             "hitcost_misses_total",           "",                      "counter", "", \
    "Counter 'misses' from /stats.") \
  X(decode_errors,       "",      "decode_errors",      "hitcost_decode_errors_total",    "",                      "counter", "", \
    "Counter 'decode_errors' from /stats.") \
  /* store_errors counts failed sets too; store_set_errors those alone */ \
  X(store_errors,        "",      "store_errors",       "hitcost_store_errors_total",     "",                      "counter", "", \
    "Counter 'store_errors' from /stats.") \
  X(store_set_errors,    "",      "store_set_errors",   "hitcost_store_set_errors_total", "",                      "counter", "", \
    "Counter 'store_set_errors' from /stats.") \
  X(cache_bytes_read,    "cache", "bytes_read",         "hitcost_cache_bytes_total",      "direction=\"read\"",    "counter", "", \
    "Value bytes read from / written to the store.") \
  X(cache_bytes_written, "cache", "bytes_written",      "hitcost_cache_bytes_total",      "direction=\"written\"", "counter", "", \
    "Value bytes read from / written to the store.") \
  /* what hits' values came to once unwrapped (inflated when stored compressed): the bytes the */ \
  /* decode or the write of a hit works on, beside the bytes fetched */ \
  X(cache_bytes_unwrapped, "cache", "bytes_unwrapped",  "hitcost_cache_unwrapped_bytes_total", "",                "counter", "cache_bytes_unwrapped", \
    "Value bytes after unwrapping (inflating) the values hits read.") \
  X(http_bytes_in,       "http",  "bytes_in",           "hitcost_http_bytes_total",       "direction=\"in\"",      "counter", "", \
    "HTTP bytes received / sent.") \
  X(http_bytes_out,      "http",  "bytes_out",          "hitcost_http_bytes_total",       "direction=\"out\"",     "counter", "", \
    "HTTP bytes received / sent.") \
  X(connections_opened,  "http",  "connections_opened", "hitcost_connections_total",      "event=\"opened\"",      "counter", "", \
    "Connections opened / closed.") \
  X(connections_closed,  "http",  "connections_closed", "hitcost_connections_total",      "event=\"closed\"",      "counter", "", \
    "Connections opened / closed.") \
  /* responses the socket did not take at once (the rest is sent when it drains) */ \
  X(partial_writes,      "http",  "partial_writes",     "hitcost_partial_writes_total",   "",                      "counter", "", \
    "Responses the socket did not take in one send.") \
  /* the access log (server/access_log.h): whole lines written, their bytes, write(2) calls, and */ \
  /* what a failed write dropped (ENOSPC, EIO, EFBIG) */ \
  X(log_lines,           "log",   "lines",              "hitcost_log_lines_total",        "",                      "counter", "", \
    "Access log lines written whole.") \
  X(log_bytes,           "log",   "bytes",              "hitcost_log_bytes_total",        "",                      "counter", "", \
    "Access log bytes written.") \
  X(log_write_calls,     "log",   "write_calls",        "hitcost_log_write_calls_total",  "",                      "counter", "", \
    "write(2) calls made for the access log.") \
  X(log_write_errors,    "log",   "write_errors",       "hitcost_log_write_errors_total", "",                      "counter", "", \
    "Access log writes that failed (full disk, I/O error, file size limit).") \
  X(log_dropped_lines,   "log",   "dropped_lines",      "hitcost_log_dropped_total",      "unit=\"lines\"",        "counter", "", \
    "Access log lines / bytes a failed write dropped.") \
  X(log_dropped_bytes,   "log",   "dropped_bytes",      "hitcost_log_dropped_total",      "unit=\"bytes\"",        "counter", "", \
    "Access log lines / bytes a failed write dropped.") \
  /* GET /value/{n} (server/value_service.h): the share of pages (hits, misses) that served a */ \
  /* user's value, and values a strategy could not write (answered from the origin, not stored) */ \
  X(values,              "",      "values",             "hitcost_values_total",           "",                      "counter", "", \
    "Counter 'values' from /stats.") \
  X(value_encode_errors, "",      "value_encode_errors", "hitcost_value_encode_errors_total", "",                   "counter", "", \
    "Counter 'value_encode_errors' from /stats.") \
  /* hits (/page and /value) on a value the strategy in force would not have written: another */ \
  /* strategy stored it under the same key. Answered as stored, X-Strategy naming its form. */ \
  X(strategy_mismatches, "",      "strategy_mismatches", "hitcost_strategy_mismatches_total", "",                   "counter", "", \
    "Hits on a value stored in a form the strategy in force would not write (another strategy's value under the key).") \
  /* the slow log (server/slow_log.h): requests over --slow-log's threshold, and the lines its */ \
  /* rate limit (or a failed write) left out of the file (each is still counted here) */ \
  X(slow_requests,       "slow",  "requests",           "hitcost_slow_requests_total",    "",                      "counter", "", \
    "Requests whose service time was above --slow-log's threshold.") \
  X(slow_log_dropped,    "slow",  "dropped_lines",      "hitcost_slow_log_dropped_total", "",                      "counter", "", \
    "Slow requests the slow log's rate limit (or a failed write) left out of its file.") \
  /* PUT and DELETE /page/{id} and /value/{n} (a replayed trace's writes and invalidations): */ \
  /* pages and values rendered from the origin and stored, and keys removed from the store */ \
  X(client_writes,       "",      "client_writes",      "hitcost_client_writes_total",    "",                      "counter", "", \
    "PUT /page/{id} and /value/{n}: rendered from the origin and stored under the strategy in force.") \
  X(client_deletes,      "",      "client_deletes",     "hitcost_client_deletes_total",   "",                      "counter", "", \
    "DELETE /page/{id} and /value/{n}: keys removed from the store.") \
  /* admin routes refused (server/router.h, admin_access): a peer with no token, with a wrong */ \
  /* token, and a remote peer on a server that takes none (--admin-remote not given) */ \
  X(admin_refused_no_token,    "admin_refused", "no_token",    "hitcost_admin_refused_total", "reason=\"no_token\"",    "counter", "", \
    "Admin requests refused, by reason.") \
  X(admin_refused_wrong_token, "admin_refused", "wrong_token", "hitcost_admin_refused_total", "reason=\"wrong_token\"", "counter", "", \
    "Admin requests refused, by reason.") \
  X(admin_refused_remote,      "admin_refused", "remote",      "hitcost_admin_refused_total", "reason=\"remote\"",      "counter", "", \
    "Admin requests refused, by reason.") \
  /* a new counter: one row above this line, then m.<field>.add() where it happens */
// clang-format on

namespace hitcost::wire {

// The counters as plain numbers: a /stats snapshot's, a window's difference, a run's.
struct ServerCounters {
#define HITCOST_WIRE_COUNTER(field, ...) uint64_t field = 0;
  HITCOST_SERVER_COUNTERS(HITCOST_WIRE_COUNTER)
#undef HITCOST_WIRE_COUNTER
};

// A row of the table as data, for the loops that read and write the counters by name.
struct ServerCounterRow {
  uint64_t ServerCounters::*value;
  std::string_view field;
  std::string_view json_group, json_key;                          // /stats and the run's server part
  std::string_view prom_name, prom_labels, prom_type, prom_help;  // /metrics
  std::string_view csv;                                           // run CSV column, "" for none
  // Its place as a JSON pointer below the /stats root (or the run's server part): "/hits",
  // "/log/lines".
  std::string pointer() const {
    std::string p;
    if (!json_group.empty()) (p += '/') += json_group;
    return (p += '/') += json_key;
  }
};
inline constexpr ServerCounterRow kServerCounterRows[] = {
#define HITCOST_WIRE_ROW(field, group, key, name, labels, type, csv, help) \
  {&ServerCounters::field, #field, group, key, name, labels, type, help, csv},
    HITCOST_SERVER_COUNTERS(HITCOST_WIRE_ROW)
#undef HITCOST_WIRE_ROW
};
inline constexpr size_t kServerCounterCount = std::size(kServerCounterRows);

// The row of a member (kServerCounterCount for none).
constexpr size_t counter_row(uint64_t ServerCounters::*value) {
  size_t i = 0;
  while (i < kServerCounterCount && kServerCounterRows[i].value != value) ++i;
  return i;
}

}  // namespace hitcost::wire
