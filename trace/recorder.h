#pragma once
// record(): what `hitcost-corpus record` does. Watches one memcached's fetchers and mutations
// (trace/watch_events.h) for a while and streams what it was asked to a trace file
// (trace/trace_file.h). Read only: the commands it sends are `stats` and `watch`.
//
// The observer effect, measured: memcached's CPU (rusage_user + rusage_system from `stats`) per
// command over a baseline window before the watcher connects, and over the recording. Commands
// are memcached's own counters (cmd_get, which counts each key of a multi-get, cmd_set, cmd_touch,
// delete/incr/decr hits and misses), so both figures are per request the cache served.
// Those counters also say what the stream cannot: on memcached 1.6.18 a delete, incr, decr or
// touch is seen only as a lookup; the result lists them beside the recorded counts.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "trace/top_keys.h"
#include "trace/trace_file.h"
#include "trace/watch_events.h"

namespace hitcost::trace {

struct RecordOptions {
  std::string address;      // host:port
  std::string output_path;  // the trace file (written through PATH.tmp)
  double duration_s = 60;   // of recording
  double baseline_s = 5;    // of memcached's CPU before the watcher connects (0: none)
  WriterLimits limits{};    // --max-events, --max-bytes
  bool keep_keys = false;   // the kept-keys section (keys in clear): only when asked
  size_t top_keys = 0;      // > 0: also keep the N most-read keys in clear, in memory (TopKeys)
  int connect_timeout_ms = 2000;
  int io_timeout_ms = 5000;
  const std::atomic<bool>* stop = nullptr;    // set (e.g. by SIGINT) to end early, file kept
  std::function<void()> after_watch_started;  // for tests: the watcher is connected
};

// memcached's CPU per command over one window.
struct CpuWindow {
  double seconds = 0;
  double cpu_s = 0;
  uint64_t commands = 0;
  double us_per_command() const noexcept { return commands == 0 ? 0 : cpu_s * 1e6 / static_cast<double>(commands); }
};

struct RecordResult {
  uint64_t events_written = 0;
  std::string stopped_by;  // "duration", "interrupted", "max-events reached", a write error...
  WatchCounts watch;
  CpuWindow baseline, recording;
  // memcached's counters over the recording window, by name (cmd_get, get_hits, get_misses,
  // cmd_set, delete_hits, delete_misses, incr_*, decr_*, touch_*, cas_*).
  std::map<std::string, uint64_t> counters;
  // Events in the file by (op, outcome) name, e.g. {"get", "found"} -> 12.
  std::map<std::pair<std::string, std::string>, uint64_t> recorded;
  std::string memcached_version;
  uint64_t start_unix_us = 0;
  // RecordOptions::top_keys > 0: the most-read keys (reads: the hits their values cost), counted
  // over 16 N slots (at least 4,096) of a Space-Saving summary.
  TopKeys::Top top_keys;
  uint64_t top_reads = 0;  // the reads the summary counted (all keys)
};

// Errors before anything is written (unreachable memcached, a refused watch, an output that
// cannot be created) come back as errors; once recording, a lost connection or a full disk ends
// it early and the file keeps what came before (stopped_by says why).
Result<RecordResult> record(const RecordOptions& options);

}  // namespace hitcost::trace
