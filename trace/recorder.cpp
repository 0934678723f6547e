#include "trace/recorder.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "corpus/memcached_text.h"
#include "trace/trace_summary.h"

namespace hitcost::trace {
namespace {

using corpus::MemcachedTextClient;
using Clock = std::chrono::steady_clock;

// The counters whose growth over a window is the commands memcached served in it.
constexpr const char* kCommandCounters[] = {"cmd_get",   "cmd_set",     "cmd_touch", "delete_hits", "delete_misses",
                                            "incr_hits", "incr_misses", "decr_hits", "decr_misses"};
// Reported beside the recording (a superset of the above).
constexpr const char* kReportedCounters[] = {
    "cmd_get",   "get_hits",    "get_misses", "cmd_set",     "delete_hits", "delete_misses",
    "incr_hits", "incr_misses", "decr_hits",  "decr_misses", "touch_hits",  "touch_misses",
    "cas_hits",  "cas_misses",  "cas_badval", "get_expired", "get_flushed", "evictions"};

struct Snapshot {
  Clock::time_point at;
  double cpu_s = 0;
  std::map<std::string, uint64_t> counters;
};

Result<Snapshot> snapshot(MemcachedTextClient& client) {
  auto stats = client.stats();
  if (!stats) return stats.error();
  Snapshot s;
  s.at = Clock::now();
  for (const auto& [name, value] : *stats) {
    if (name == "rusage_user" || name == "rusage_system") {
      s.cpu_s += std::strtod(value.c_str(), nullptr);
    } else {
      s.counters[name] = std::strtoull(value.c_str(), nullptr, 10);
    }
  }
  return s;
}

uint64_t grown(const Snapshot& a, const Snapshot& b, const std::string& name) {
  const auto ia = a.counters.find(name), ib = b.counters.find(name);
  if (ia == a.counters.end() || ib == b.counters.end() || ib->second < ia->second) return 0;
  return ib->second - ia->second;
}

CpuWindow window(const Snapshot& a, const Snapshot& b) {
  CpuWindow w;
  w.seconds = std::chrono::duration<double>(b.at - a.at).count();
  w.cpu_s = b.cpu_s - a.cpu_s;
  for (const char* name : kCommandCounters) w.commands += grown(a, b, name);
  return w;
}

}  // namespace

Result<RecordResult> record(const RecordOptions& options) {
  auto stats_client = MemcachedTextClient::connect(options.address, options.connect_timeout_ms, options.io_timeout_ms);
  if (!stats_client) return stats_client.error();
  RecordResult result;
  if (auto v = stats_client->version()) result.memcached_version = *v;

  auto writer = TraceWriter::create(options.output_path, options.limits);
  if (!writer) return writer.error();

  // The baseline: memcached's CPU per command with no watcher.
  auto before = snapshot(*stats_client);
  if (!before) return before.error();
  if (options.baseline_s > 0) {
    const auto end = Clock::now() + std::chrono::duration<double>(options.baseline_s);
    while (Clock::now() < end && !(options.stop && options.stop->load()))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto after_baseline = snapshot(*stats_client);
    if (!after_baseline) return after_baseline.error();
    result.baseline = window(*before, *after_baseline);
    before = std::move(after_baseline);
  }

  auto watcher = MemcachedTextClient::connect(options.address, options.connect_timeout_ms, options.io_timeout_ms);
  if (!watcher) return watcher.error();
  if (auto w = watcher->watch("fetchers mutations"); !w) return w.error();
  auto start = snapshot(*stats_client);
  if (!start) return start.error();
  if (options.after_watch_started) options.after_watch_started();

  const KeyHasher hasher = KeyHasher::random();
  TraceWriter& out = *writer;
  bool writer_full = false;
  std::optional<TopKeys> top_keys;
  if (options.top_keys > 0) top_keys.emplace(std::max<size_t>(4096, options.top_keys * 16));
  WatchTranslator translator(hasher, [&](const TraceEvent& e, std::string_view key) {
    if (writer_full || !out.append(e)) {
      writer_full = true;
      return;
    }
    if (options.keep_keys) out.keep_key(e.key, key);
    if (top_keys && is_read(static_cast<Op>(e.op))) top_keys->add(key);
  });

  const auto deadline = Clock::now() + std::chrono::duration<double>(options.duration_s);
  std::string line;
  result.stopped_by = "duration";
  for (;;) {
    if (options.stop && options.stop->load()) {
      result.stopped_by = "interrupted";
      break;
    }
    if (writer_full) {
      result.stopped_by = out.stopped_reason();
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) break;
    const int wait_ms = static_cast<int>(
        std::min<int64_t>(100, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    auto got = watcher->next_streamed_line(line, wait_ms);
    if (!got) {
      result.stopped_by = "watch connection lost: " + got.error().message;
      break;
    }
    if (*got) translator.feed(line);
  }
  auto end = snapshot(*stats_client);
  // The lines already received are the recording's; later ones are not read.
  translator.finish();
  if (end) {
    result.recording = window(*start, *end);
    for (const char* name : kReportedCounters) result.counters[name] = grown(*start, *end, name);
  }
  result.watch = translator.counts();
  if (top_keys) {
    result.top_keys = top_keys->top(options.top_keys);
    result.top_reads = top_keys->events();
  }
  result.start_unix_us = translator.start_unix_us();

  TraceInfo info;
  info.source = TraceSource::record;
  info.origin = "memcached:" + options.address;
  info.start_unix_us = result.start_unix_us;
  info.time_resolution_us = 1;
  info.flags = kKeysHashed | (options.keep_keys ? kKeysKept : 0);
  info.dropped_events = result.watch.skipped;
  info.missing_events = result.watch.missing_by_gid();
  info.malformed = result.watch.malformed;
  if (auto f = out.finish(info); !f) return f.error();
  if (!out.stopped_reason().empty() && result.stopped_by == "duration") result.stopped_by = out.stopped_reason();
  result.events_written = out.events();
  if (!end) return end.error();
  // What the file holds, read back from it (a write that failed midway kept fewer than were
  // handed to it).
  auto written = TraceReader::open(out.path());
  if (!written) return written.error();
  result.recorded = count_by_op_outcome(written->events());
  return result;
}

}  // namespace hitcost::trace
