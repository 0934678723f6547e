#pragma once
// The one duration grammar of every program and script option that takes a time
// (--duration, --warmup, --idle, --max-time, ...).
#include <cstdint>
#include <optional>
#include <string_view>

namespace hitcost {

// "500ms", "10s", "2m", "1h", "250us", "100ns", "1.5s"; a bare number means seconds.
// nullopt for anything else (no unit we know, a sign, two dots, above 1e18 ns).
std::optional<uint64_t> parse_duration_ns(std::string_view text);

}  // namespace hitcost
