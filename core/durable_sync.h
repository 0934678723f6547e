#pragma once
// When written bytes are made durable (fdatasync), for everything that writes files: the access
// log (server/access_log.h) and the file stores (stores/file_store.h). One policy grammar, one
// set of figures, one timer thread, so that "sync" means the same in every place it is offered.
//
//   none         never: the kernel writes back when it likes (lost on power loss, not on a crash
//                of the process: the page cache holds every completed write(2))
//   each         after every write (a log flush, a store set): durable when acknowledged
//   interval:MS  a thread of its own syncs every MS milliseconds if anything was written since the
//                last sync: what was written before a completed sync is durable (what
//                appendfsync everysec does in Redis, and what nginx leaves to the kernel)
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/counter.h"
#include "core/log2.h"
#include "core/result.h"

namespace hitcost {

struct SyncPolicy {
  enum class Kind : uint8_t { none, each, interval };
  Kind kind = Kind::none;
  uint32_t interval_ms = 0;  // interval only; > 0

  // "none" | "each" | "interval:MS" (MS in 1..3600000); invalid_argument names the bad part.
  static Result<SyncPolicy> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const SyncPolicy&) const = default;
};

// Every fdatasync made under a policy: how many, how many failed, and how long each took (wall
// time: a sync waits for the device, it burns little CPU). Any thread may add.
struct SyncStats {
  SharedCounter calls, errors, total_ns, max_ns;
  std::array<SharedCounter, kLog2Buckets> log2_ns;  // one sync's duration, log2 ns

  void record(uint64_t ns, bool failed) noexcept;

  // A plain copy, what /stats reports (server/stats_report.cpp: sync_json).
  struct Figures {
    uint64_t calls = 0, errors = 0, total_ns = 0, max_ns = 0;
    std::array<uint64_t, kLog2Buckets> log2_ns{};
  };
  Figures figures() const noexcept;
};

// fdatasync(fd), EINTR retried, timed into `stats`. Returns 0 or the errno of the failure.
int timed_datasync(int fd, SyncStats& stats) noexcept;

// Calls `tick` every `interval_ms()` milliseconds on a thread of its own, until destroyed; the
// interval is read anew before every wait, so a caller may change it at run time (0 = no syncing
// now: wake again in kIdleRecheck and look). Destruction wakes the thread, makes one last tick if
// the interval is non-zero, and joins: nothing written before it goes unsynced.
class IntervalSyncer {
 public:
  static constexpr std::chrono::milliseconds kIdleRecheck{100};
  IntervalSyncer(std::function<uint32_t()> interval_ms, std::function<void()> tick);
  ~IntervalSyncer();
  IntervalSyncer(const IntervalSyncer&) = delete;
  IntervalSyncer& operator=(const IntervalSyncer&) = delete;

 private:
  void run();
  std::function<uint32_t()> interval_ms_;
  std::function<void()> tick_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace hitcost
