#pragma once
// MemcachedStore: one or several memcached nodes through libmemcached (1.1.x), keys placed
// by consistent hashing (ketama, weighted), text protocol by default (binary=1 optional:
// then the rare set the binary protocol cannot send goes over the text protocol, see set()).
// Keys follow the text protocol's rule under both: 1..250 printable ASCII bytes, no space.
//
// Handles: a memcached_st is not thread-safe. The store keeps a master handle (configured
// once, used only to clone) and a registry of per-thread clones it owns, behind a mutex.
// Each thread caches (store id -> handle) in a thread_local list; ids are never reused, so
// a destroyed store's entries are never looked up again (they are pruned on the next
// miss). A thread that exits hands its clones back to every store still alive (weak_ptr
// to the registry); the store's destructor frees whatever clones remain. So threads may
// outlive stores and stores may die while other threads still cache pointers, safely —
// provided no thread is inside a call on the store being destroyed.
//
// Failures: every call is bounded by the timeouts (defaults 200 ms: connect, poll, send,
// receive). A node that refuses connections is skipped for retry_timeout_s seconds by
// each handle (libmemcached: calls fail at once with Errc::connection), then retried. A
// node that accepts but does not answer (frozen, overloaded) is not marked by libmemcached
// 1.1.4 for TCP — every call would wait the full poll timeout — so the store keeps its own
// breaker, shared by all threads: after a timeout the node is skipped for retry_timeout_s
// (Errc::timeout at once, counted in errors.timeout and "fast_fails"), then one call
// probes it. Either way a node that comes back is used again without recreating the store. Errors are counted by kind:
// extra["errors.timeout"], ["errors.connection"], ["errors.server_error"], ...
// With eject=1 a failed node leaves the ketama ring (its keys go to the others) until it
// answers again.
//
// Calls block the calling thread for up to the timeout: the server must not call them on
// a thread whose stall would hold other requests (or must accept that bound).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/counter.h"
#include "stores/memcached_probe.h"
#include "stores/store.h"

struct memcached_st;  // libmemcached's handle (global namespace)

namespace hitcost {

struct MemcachedOptions {
  std::vector<std::pair<std::string, int>> nodes;  // host, port
  int timeout_ms = 200;                            // poll/send/receive bound per call
  int connect_timeout_ms = 200;
  int retry_timeout_s = 1;  // a failed node is skipped this long, then retried
  // The same window in ms (overrides retry_timeout_s when >= 0). libmemcached counts
  // whole seconds (a node came back after 1-2 s with retry_timeout_s=1); the store
  // gives the thread a fresh handle once this window has passed, so it can be shorter.
  int retry_timeout_ms = -1;
  int retry_ms() const { return retry_timeout_ms >= 0 ? retry_timeout_ms : retry_timeout_s * 1000; }
  int failure_limit = 1;  // consecutive failures before a node counts as failed
  bool binary = false;    // binary protocol (text is the default)
  bool eject = false;     // remove failed nodes from the ring (REMOVE_FAILED_SERVERS)
};

class MemcachedStore final : public Store {
 public:
  static Result<std::unique_ptr<MemcachedStore>> open(MemcachedOptions opts);
  ~MemcachedStore() override;

  Status get(std::string_view key, std::string& value, uint32_t& flags) override;
  Status set(std::string_view key, std::string_view value, uint32_t flags) override;
  Status remove(std::string_view key) override;
  // Counters plus memcached's own `stats` summed over the nodes that answered:
  // rusage_user_s, rusage_system_s, bytes_read, bytes_written, cmd_get, get_hits,
  // curr_items; per node: node.N.curr_items, node.N.cmd_get, node.N.up (1/0); "nodes",
  // "nodes_up". A dead node costs at most one connect timeout here.
  StoreStats stats() override;
  std::string describe() const override;

  // Index (in MemcachedOptions::nodes order) of the node that holds `key`, -1 on error.
  int node_of(std::string_view key);
  size_t node_count() const { return opts_.nodes.size(); }
  const MemcachedOptions& options() const { return opts_; }
  // Whether each node answers `version` now, on connections of the probe's own (thread-safe,
  // no effect on the store's handles), within this store's timeout_ms: a node slower than
  // that would fail the store's own calls too.
  std::vector<MemcachedNodeState> probe() const {
    return probe_memcached_nodes(opts_.nodes, opts_.binary, opts_.timeout_ms);
  }

  struct Registry;  // owns the master handle and all clones (memcached_store.cpp)

 private:
  explicit MemcachedStore(MemcachedOptions opts);
  ::memcached_st* handle();  // this thread's clone, created on first use (or null)
  // After a connection failure: replace this thread's clone once retry_ms() has passed
  // (a fresh clone has no libmemcached back-off state, so the node is tried again).
  void refresh_handle_later();
  Status fail(int rc, ::memcached_st* h);
  Status begin(SharedCounter& op, std::string_view key, ::memcached_st*& h, int& node);
  int node_index(::memcached_st* h, uint32_t position) const;
  int node_for(::memcached_st* h, std::string_view key);
  // Stall breaker (see Counters in memcached_store.cpp). node: -1 = not yet known.
  Status gate(::memcached_st* h, std::string_view key, int& node);
  void node_ok(int node);
  void node_stalled(::memcached_st* h, std::string_view key, int node);

  // The binary protocol's exception (memcached_store.cpp, before set()): this thread's
  // text-protocol clone, made on first need.
  ::memcached_st* text_handle();
  // Around a libmemcached write-buffer hang (memcached_store.cpp): a text set's expiry
  // (0, or a far-future absolute one), and whether a binary set of this size would hang.
  static uint32_t text_exptime_for(std::string_view key, size_t value_size, uint32_t flags);
  static bool binary_set_would_hang(std::string_view key, size_t value_size);
  MemcachedOptions opts_;
  uint64_t id_;
  std::shared_ptr<Registry> reg_;
  struct Counters;
  std::unique_ptr<Counters> c_;
};

}  // namespace hitcost
