#pragma once
// probe_memcached_nodes: does each memcached node answer right now? For hitcost-server's
// start-up lines and GET /healthz, never for serving: it opens its own connection to every
// node (a store's memcached_st belongs to one thread and carries libmemcached's back-off
// state, which a probe must neither use nor disturb), sends `version` in the store's
// protocol, and closes. All nodes are probed at once: the whole call returns within
// timeout_ms, plus the time name lookups of non-numeric hosts take (getaddrinfo has no
// timeout; numeric addresses need none).
#include <string>
#include <utility>
#include <vector>

namespace hitcost {

struct MemcachedNodeState {
  std::string address;  // "HOST:PORT" as configured, "[V6]:PORT" for IPv6
  bool up = false;
  std::string version;  // when up: memcached's answer to `version`, e.g. "1.6.18"
  std::string reason;   // when down, e.g. "connection refused", "connected, but no answer
                        // to version within 200 ms" (a frozen or overloaded memcached)
  double ms = 0;        // from the start of the probe to the answer or the failure
};

// In the order of `nodes` (host, port). binary: ask in the binary protocol (a memcached
// started with -B binary answers nothing else); text otherwise.
std::vector<MemcachedNodeState> probe_memcached_nodes(const std::vector<std::pair<std::string, int>>& nodes,
                                                      bool binary, int timeout_ms);

}  // namespace hitcost
