#pragma once
// A run's slowest requests, from the server's slow log (hitcost-server --slow-log, server/slow_log.h):
// its sequence number asked before the window, the entries after it asked at the end, the
// slowest kept with their parts and what they waited on. Nothing when the server has no slow log.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "load/net.h"

namespace hitcost::client {

inline constexpr size_t kSlowestKept = 10;

// The slow log's last sequence number; nullopt when the server has none (404) or did not answer.
std::optional<uint64_t> slow_log_mark(const Endpoint& ep);
// {"threshold_us", "recorded" (slow requests in the window the server still held), "slowest":
// [the kSlowestKept with the longest service time, longest first]}; null when there is no slow log.
nlohmann::json slowest_since(const Endpoint& ep, uint64_t mark);

}  // namespace hitcost::client
