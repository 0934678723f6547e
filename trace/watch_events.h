#pragma once
// memcached's `watch fetchers mutations` stream turned into trace events.
//
// What memcached 1.6.18 (Debian 12's) prints, checked against a live one:
//   ts=1796601080.21047 gid=9 type=item_get key=k2 status=not_found clsid=0 cfd=25 size=0
//   ts=1796601080.21053 gid=10 type=item_store key=k2 status=stored cmd=add ttl=0 clsid=1 cfd=25 size=1
// - Keys are URL-encoded ("user%3A9" for "user:9", "a%25b" for "a%b"): decoded here, so a key
//   hashes the same as the application's own.
// - ts's fraction is microseconds printed without zero padding: "80.21047" is 80 s + 21,047 µs,
//   not 80.21047 s. Read as a decimal it would put events out of order.
// - Every store (set/add/replace/cas/append/prepend) first logs an item_get for its own lookup
//   of the key, then its item_store: that lookup is not a client's read and is dropped here.
// - delete, incr, decr and touch (and gat) log an item_get for their lookup and nothing else:
//   1.6.18 has no "deletions" watcher, so in this stream they are reads. The recorder counts them
//   from memcached's own counters over the window (recorder.h), and a replay reproduces a
//   recorded miss as a miss whatever removed the item.
// - The stream is merged from the worker threads' buffers: it is in time order per connection
//   (one connection, one worker), not across connections. Events are re-ordered by time here
//   within a window (kReorderWindowUs); one later than that is written at the newest time
//   written (time never goes backwards in a trace) and counted as late.
// - `cfd` is the client's file descriptor: connections are numbered by first appearance; a
//   descriptor memcached reuses for a new connection keeps the old number.
// - A watcher that falls behind loses lines: memcached writes "skipped=N" (counted), and the
//   events' gid sequence has holes (counted at the end: gids seen against the range).
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "trace/key_hash.h"
#include "trace/trace_event.h"

namespace hitcost::trace {

inline constexpr uint64_t kReorderWindowUs = 1'000'000;

struct WatchLine {
  enum class Kind : uint8_t { item_get, item_store, skipped, other };
  Kind kind = Kind::other;
  uint64_t unix_us = 0;
  uint64_t gid = 0;
  std::string_view key;     // as printed: URL-encoded
  std::string_view status;  // found, not_found, stored, not_stored, exists
  std::string_view cmd;     // item_store only: set, add, ...
  uint32_t ttl_s = 0;
  uint32_t size = 0;
  int cfd = -1;
  uint64_t skipped = 0;  // Kind::skipped: the lines memcached says it dropped
};

// One line without its "\r\n". Errc::parse_error naming what is missing or malformed; a line of
// another type (e.g. "type=eviction") is Kind::other, not an error.
Result<WatchLine> parse_watch_line(std::string_view line);

struct WatchCounts {
  uint64_t lines = 0;
  uint64_t events = 0;                          // handed on
  uint64_t own_lookups_dropped = 0;             // a store's own item_get
  uint64_t other_lines = 0;                     // types other than item_get/item_store
  uint64_t malformed = 0;                       // lines that did not parse
  std::vector<std::string> malformed_examples;  // the first few, cut to 200 bytes
  uint64_t skipped = 0;                         // sum of memcached's skipped=N
  uint64_t late = 0;                            // arrived later than the reorder window
  uint64_t clients = 0;                         // distinct cfd values
  uint64_t gid_first = 0, gid_last = 0, gids_seen = 0;
  uint64_t missing_by_gid() const noexcept { return gids_seen == 0 ? 0 : (gid_last - gid_first + 1) - gids_seen; }
};

// Feed lines in arrival order; events come out through `sink` in time order. Memory: one
// pending lookup per connection and the events of the last reorder window.
class WatchTranslator {
 public:
  using Sink = std::function<void(const TraceEvent&, std::string_view key)>;
  WatchTranslator(KeyHasher hasher, Sink sink) : hasher_(hasher), sink_(std::move(sink)) {}

  void feed(std::string_view line);
  // Hands on every pending and buffered event (end of the recording).
  void finish();
  const WatchCounts& counts() const noexcept { return counts_; }
  // The first event's wall-clock time (µs since the epoch); 0 before one is handed on.
  uint64_t start_unix_us() const noexcept { return start_unix_us_; }

 private:
  struct Pending {
    TraceEvent event;
    uint64_t unix_us, gid;
    std::string key;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const noexcept {
      return a.unix_us != b.unix_us ? a.unix_us > b.unix_us : a.gid > b.gid;
    }
  };
  uint16_t client_of(int cfd);
  void queue(Pending p);
  void release_older_than(uint64_t unix_us);
  void emit(const Pending& p);

  KeyHasher hasher_;
  Sink sink_;
  WatchCounts counts_;
  std::unordered_map<int, Pending> lookup_by_cfd_;  // an item_get that may be a store's own
  std::unordered_map<int, uint16_t> client_ids_;
  std::priority_queue<Pending, std::vector<Pending>, Later> reorder_;
  uint64_t newest_unix_us_ = 0;
  uint64_t start_unix_us_ = 0;
  uint64_t last_written_unix_us_ = 0;
  uint64_t last_sweep_unix_us_ = 0;
};

}  // namespace hitcost::trace
