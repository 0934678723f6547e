#pragma once
// A trace (trace/trace_file.h) turned into what the load threads send: each request's due time,
// page id, rows and kind, split over the threads by page id so that one key's requests keep
// their order. Built once before a run (no allocation per request while it runs: a thread walks
// its array).
//
// - Keys: each distinct key of the trace is one page id, numbered from 0 in order of first
//   appearance; its page is sized to the key's value (the largest size the trace gives it), as
//   rows = (size - base_bytes) / bytes_per_row, clamped to 1..max_rows: `PageSizing`, measured
//   on the server under test before the run.
//   With the user's values (`ReplayTarget::value_sizes`: --values CORPUS, the corpus the server
//   serves at /value/{n}) each key is instead one value id whose corpus value is of the key's
//   size class (sizes as memcached stored them, in power-of-two classes; the nearest size when
//   the class holds none), the class's values dealt round-robin over its keys. Two keys never
//   share an id: the k-th key given corpus value i asks /value/{i + k N} (the server serves
//   value n mod N under a key of its own).
// - Order: one key's requests reach the server in the trace's order — the thread holds a request
//   while one of its key is in flight (load_worker.cpp), so a write is never overtaken by the read
//   after it on another connection.
// - Time: the trace's own, divided by `speed`. A trace of whole seconds (twemcache,
//   oracleGeneral) has each second's requests spread evenly over it, in order.
// - Kinds: a read is GET /page/{id} (or /value/{n}); a stored write (set, add, replace, cas,
//   append, prepend: stored or of unknown outcome) is PUT; a delete is DELETE. A write the
//   cache refused (not_stored, exists), incr, decr and touch change no page: not sent, counted.
// - Misses as recorded: the server fills a page on a miss, so a key read again would hit; when the
//   trace recorded a read as not_found although the replay's cache holds the key (an invalidation
//   the stream did not show: memcached 1.6.18 logs a delete as a lookup, and expiry and eviction
//   are not logged), a DELETE goes out just before it (counted as inferred); a read the trace found
//   on a key it had deleted (a write it did not show) gets a PUT before it, likewise. Reads the trace found
//   on keys it had not read or written before were cached before it began, and first reads it did
//   not find were not: `prewarm` lists a PUT for the former and a DELETE for the latter, sent in
//   the run's warm-up, so every window (each round of a sweep too) starts with the trace's cache.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace hitcost::client {

enum class ReplayKind : uint8_t { read = 0, write = 1, remove = 2 };
inline constexpr int kReplayKinds = 3;

struct ReplayRequest {
  uint64_t due_ns;  // from the window's start
  uint32_t id;
  uint32_t rows;
  ReplayKind kind;
};

struct PageSizing {
  double base_bytes = 0;     // a page of 0 rows
  double bytes_per_row = 1;  // each row adds this much
  uint32_t max_rows = 5000;
};

// What the trace's keys become on the server: pages sized by `pages`, or, when value_sizes is
// not empty, ids of /value/{n}.
struct ReplayTarget {
  PageSizing pages;
  std::vector<uint32_t> value_sizes;  // the served values' stored sizes, in the server's order
  std::string corpus_path;            // their corpus (for the run record)
  bool values() const noexcept { return !value_sizes.empty(); }
};

struct ReplayCounts {
  uint64_t events = 0;  // in the trace
  uint64_t reads = 0, writes = 0, removes = 0;
  uint64_t inferred_removes = 0;  // DELETEs added before a read the trace recorded as a miss
  uint64_t inferred_writes = 0;   // PUTs added before a read the trace found on a key it had removed
  uint64_t not_replayed = 0;      // refused writes, incr, decr, touch
  uint64_t keys = 0;
  uint64_t prewarmed = 0;                               // keys put in place (PUT or DELETE) in the warm-up
  uint64_t recorded_found = 0, recorded_not_found = 0;  // the trace's reads of known outcome
  // Values: keys given a value of their size class, and keys given the nearest size (none of
  // their class in the corpus).
  uint64_t keys_in_class = 0, keys_nearest = 0;
};

struct ReplaySchedule {
  std::string trace_path;
  uint32_t trace_crc = 0;  // the trace file's events checksum: which trace this was
  double speed = 1;
  bool values = false;      // requests ask /value/{n} (ReplayRequest::rows is 0), not /page/{id}
  std::string corpus_path;  // values: the corpus
  uint64_t span_ns = 0;     // the last request's due time
  std::vector<std::vector<ReplayRequest>> per_thread;
  std::vector<ReplayRequest> prewarm;  // PUTs and DELETEs for the warm-up (due_ns 0)
  ReplayCounts counts;
  // The trace's reads of known outcome per second of the replay's window (its seconds after
  // --speed): the hit ratio over time the replay is drawn beside.
  std::vector<uint64_t> recorded_found_per_s, recorded_not_found_per_s;
};

// Reads the trace (checked whole) and builds the schedule for `threads` load threads, at `speed`
// x the trace's pace, or, when rate > 0, at the speed that makes its mean rate `rate` requests/s.
// Errors: the trace's (corrupt, io_error), invalid_argument for speed <= 0, threads < 1, a
// rate asked of a trace with fewer than two distinct times, or more keys than 32-bit value ids
// can number.
Result<std::shared_ptr<const ReplaySchedule>> build_replay_schedule(const std::string& trace_path, double speed,
                                                                    int threads, const ReplayTarget& target,
                                                                    double rate = 0);

// The rows that size a page to `value_bytes`.
uint32_t rows_for(const PageSizing& sizing, uint32_t value_bytes) noexcept;

// The stored sizes of the values a server serves from the corpus at `path`: its records that
// decode by their flags (corpus::decode_stored, as the server's ValueOrigin loads them), in file
// order; `records` is set to the file's count. Errors: the corpus's (io_error, corrupt),
// invalid_argument for an unknown flag scheme or a corpus with nothing decodable.
Result<std::vector<uint32_t>> served_value_sizes(const std::string& path, uint64_t& records);

}  // namespace hitcost::client
