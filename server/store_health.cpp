#include "server/store_health.h"

#include <cstdio>

#include "stores/memcached_store.h"

namespace hitcost::server {

size_t StoreHealth::down() const {
  size_t n = 0;
  for (const auto& node : nodes) n += node.up ? 0 : 1;
  return n;
}

StoreHealth probe_store(const Store& store) {
  StoreHealth h;
  if (const auto* mc = dynamic_cast<const MemcachedStore*>(&store)) {
    h.nodes = mc->probe();
    h.eject = mc->options().eject;
  }
  return h;
}

std::string node_line(const MemcachedNodeState& node, const StoreHealth& health) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f ms", node.ms);
  if (node.up) return "memcached " + node.address + ": up (version " + node.version + ", " + ms + ")";
  // What a down node means for the figures: without eject its keys still hash to it, and
  // every get of them fails (counted in store_errors) and is served from the origin.
  const bool others_take_over = health.eject && health.down() < health.nodes.size();
  return "memcached " + node.address + ": DOWN (" + node.reason + "); " +
         (others_take_over ? "its keys go to the other nodes (eject=1) until it answers"
                           : "its keys are misses until it answers");
}

std::string healthz_body(const StoreHealth& health) {
  if (!health.degraded()) return "ok\n";
  std::string body = "degraded: " + std::to_string(health.down()) + " of " + std::to_string(health.nodes.size()) +
                     " memcached nodes down\n";
  for (const auto& node : health.nodes) body += node_line(node, health) + "\n";
  return body;
}

}  // namespace hitcost::server
