#pragma once
// One narrow interface for every backend the server reads pages from.
// Thread-safety: every Store is safe to call from many threads at once. Backends
// that hold non-thread-safe handles (memcached_st) keep one per calling thread.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/durable_sync.h"
#include "core/result.h"

namespace hitcost {

// Counters every store keeps (monotonic since open; the server reports deltas).
struct StoreStats {
  uint64_t gets = 0, hits = 0, misses = 0, sets = 0, removes = 0, errors = 0;
  uint64_t bytes_read = 0;     // value bytes returned by get
  uint64_t bytes_written = 0;  // value bytes passed to set
  // Backend-specific figures, summed over nodes where there are several, e.g.
  // memcached: "rusage_user_s", "rusage_system_s", "bytes_read", "bytes_written",
  //            "cmd_get", "get_hits", "curr_items"
  // file stores: "resident_bytes", "file_bytes", "records", "dropped_on_open", "torn_retries",
  //              "sync.written_seq" (writes acknowledged since open: sets, removes, re-creations),
  //              "sync.synced_seq" (how many of those a completed fdatasync covered)
  // errors by kind: "errors.timeout", "errors.connection", ...
  std::map<std::string, double> extra;
  // Durability (file stores): the sync policy's text ("none", "each", "interval:MS") and every
  // fdatasync made under it. Empty / nullopt for stores that write no files.
  std::string sync_policy;
  std::optional<SyncStats::Figures> sync;
};

// The APCu-style floor: decoded pages held as objects, no bytes at all.
class ObjectCache {
 public:
  virtual ~ObjectCache() = default;
  virtual std::shared_ptr<const Page> get_page(std::string_view key) = 0;
  virtual void set_page(std::string_view key, std::shared_ptr<const Page> page) = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // On a hit fills `value` (reusing its capacity) and `flags`. Errc::not_found on a miss;
  // any other error is a failure the caller counts (and treats as a miss).
  virtual Status get(std::string_view key, std::string& value, uint32_t& flags) = 0;
  virtual Status set(std::string_view key, std::string_view value, uint32_t flags) = 0;
  virtual Status remove(std::string_view key) = 0;
  virtual StoreStats stats() = 0;

  // Text form of what was opened, e.g. "memcached:127.0.0.1:11211", "mmap:/tmp/x".
  virtual std::string describe() const = 0;
  // Non-null only for stores that hold decoded objects (memory:objects).
  virtual ObjectCache* objects() { return nullptr; }
};

// Opens a store from its command-line text:
//   memory | memory:bytes | memory:objects
//   memcached:HOST:PORT[,HOST:PORT...][?timeout_ms=200&connect_timeout_ms=200]
//   mmap:PATH[?size=256M&advise=random|sequential|willneed|normal&populate=1&sync=POLICY&cold=1&create=1]
//   pread:PATH[?size=256M&advise=...&sync=POLICY&cold=1&create=1]
//     POLICY: none (default) | each (fdatasync in every set/remove) | interval:MS (a thread
//     syncs every MS ms, 1..3600000, if anything was written); sync=0 / sync=1 are aliases
//     of none / each (stores/README.md, "Durability").
//     create=1: a PATH that does not exist (or an empty file) becomes a new store file; without
//     it only an existing store file opens. An existing file that is not a store file of this
//     format, or of another size than ?size= asks, is refused and left as it was (file_store.h).
// Errors: a bad spec is Errc::invalid_argument (a usage error); a store that cannot be opened
// (a file refused or unreachable) is io_error.
// Extra options (additions to the grammar above):
//   memory[:bytes|:objects][?size=64M]            bound with CLOCK eviction (default unbounded)
//   memcached:...?retry_timeout_s=1&failure_limit=1&binary=0&eject=0
//                 retry_timeout_ms=N   the retry window in ms (overrides retry_timeout_s)
//                 resolve=all          every address a host name has is a node (a scaled
//                                      compose service); default first: libmemcached's own
// Sizes take K/M/G (binary multiples); mmap/pread default to size=64M. Booleans are 0/1.
// How open_store treats what the spec does not say.
struct OpenStoreOptions {
  bool create_files = false;  // every mmap:/pread: spec as if it said ?create=1 (--store-create)
};
Result<std::unique_ptr<Store>> open_store(std::string_view spec, const OpenStoreOptions& how = {});
// The spec's grammar alone, with open_store's invalid_argument for a bad one: nothing opened,
// created or resolved (a memcached host name, resolve=all, is taken as written). For checking a
// command line before, or instead of, a start (hitcost-server --check-args).
Status check_store_spec(std::string_view spec);

// "256M", "64K", "1G", "4096", "512MiB": bytes (binary multiples). invalid_argument if bad.
Result<uint64_t> parse_size(std::string_view text);

}  // namespace hitcost
