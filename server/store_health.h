#pragma once
// What hitcost-server says about its store's nodes: one line per memcached node at start-up
// (before "listening on") and the body of GET /healthz. Stores without nodes (memory, mmap,
// pread) have nothing to probe and are always "ok".
#include <string>
#include <vector>

#include "stores/memcached_probe.h"
#include "stores/store.h"

namespace hitcost::server {

struct StoreHealth {
  std::vector<MemcachedNodeState> nodes;  // empty for stores without nodes
  bool eject = false;                     // eject=1: a down node's keys go to the others
  size_t down() const;
  bool degraded() const { return down() > 0; }
};

// Probes a memcached store's nodes (MemcachedStore::probe: its own connections, bounded by
// the store's timeout_ms); returns no nodes for other stores.
StoreHealth probe_store(const Store& store);

// "memcached 127.0.0.1:11211: up (version 1.6.18, 0.3 ms)" or
// "memcached 127.0.0.1:1: DOWN (connection refused); its keys are misses until it answers"
std::string node_line(const MemcachedNodeState& node, const StoreHealth& health);

// "ok\n" when every node is up (or there are none); else "degraded: D of N memcached nodes
// down\n" followed by every node's line.
std::string healthz_body(const StoreHealth& health);

}  // namespace hitcost::server
