#pragma once
// The slow few, one by one (hitcost-server --slow-log THRESHOLD): every request whose service
// time (its handler's start to its response handed to the kernel) is above the threshold, with
// what it was (target, key, outcome, bytes), each part's CPU and wall time (request_trace.h),
// the thread's major page faults during it, and what it waited on — its slowest part
// time and what held it: what that part waits for on this store (a memcached round trip, the
// major faults of an mmap read, a pread from disk, an fdatasync, the socket), or its CPU.
//
// The file (--slow-log-file, one JSON object a line, O_APPEND, one write(2) per line) takes at
// most --slow-log-rate lines a second; a line over the rate, or one a failed write lost, is
// counted (slow.dropped_lines in /stats) and never silently missing: every slow request is
// counted (slow.requests) and the last kKept are kept in memory for GET /admin/slow, which a
// run reads before and after its window to list its slowest requests.
//
// Thread-safety: record() and since() lock a mutex; only slow requests take it.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "core/unique_fd.h"
#include "server/metrics.h"

namespace hitcost::server {

struct SlowEntry {
  uint64_t seq = 0;  // 1, 2, ... in the order recorded (GET /admin/slow?since=)
  uint64_t unix_ns = 0;
  std::string target, key;  // the request's target; the store key a page or value used ("" none)
  std::string cache;        // hit | miss | -
  std::string strategy;     // the strategy that answered ("" none)
  int status = 0;
  uint64_t body_bytes = 0;
  uint64_t service_ns = 0;
  uint64_t major_faults = 0;
  std::array<uint64_t, kCpuParts> cpu_ns{}, wall_ns{};
  std::string waited_on;  // what_it_waited_on()
};

// The request's slowest part and what held it: what that part waits for on `store_spec` when it
// spent at least half its time waiting ("fetch: waiting on a memcached round trip (296 ms of
// 296 ms)"), its major faults for an mmap fetch that faulted ("fetch: 3 major page faults of the
// mmap read (0.4 ms, 0.4 ms of it on CPU)": the kernel's read of the pages runs on the thread),
// else its CPU ("decode: on CPU (0.8 ms of 0.8 ms)").
std::string what_it_waited_on(const SlowEntry& e, const std::string& store_spec);

class SlowLog {
 public:
  static constexpr size_t kKept = 256;  // slow requests kept for GET /admin/slow
  // `path` "" keeps them in memory only. Errors: io_error when the file cannot be opened.
  static Result<std::unique_ptr<SlowLog>> open(uint64_t threshold_ns, const std::string& path, uint32_t lines_per_s);

  uint64_t threshold_ns() const noexcept { return threshold_ns_; }
  // Keeps `e` (its seq is set here) and writes its line if the rate and the disk allow;
  // false when the line was left out of the file (the caller counts it).
  bool record(SlowEntry e);
  // {"threshold_us", "seq" (the last recorded), "kept", "entries": [those after `since`, oldest first]}.
  nlohmann::json since(uint64_t since) const;

 private:
  SlowLog(uint64_t threshold_ns, UniqueFd fd, uint32_t lines_per_s)
      : threshold_ns_(threshold_ns), fd_(std::move(fd)), lines_per_s_(lines_per_s) {}

  const uint64_t threshold_ns_;
  UniqueFd fd_;
  const uint32_t lines_per_s_;
  mutable std::mutex mu_;
  std::deque<SlowEntry> kept_;
  uint64_t seq_ = 0;
  uint64_t second_ = 0;  // the second (monotonic) the rate counts in
  uint32_t in_second_ = 0;
};

nlohmann::json to_json(const SlowEntry& e);

}  // namespace hitcost::server
