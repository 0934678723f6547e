#include "core/duration.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace hitcost {

std::optional<uint64_t> parse_duration_ns(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  const std::string number(text.substr(0, i));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (*end != '\0' || !(v >= 0)) return std::nullopt;
  const std::string_view unit = text.substr(i);
  double scale;
  if (unit.empty() || unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us" || unit == "µs")
    scale = 1e3;
  else if (unit == "ns")
    scale = 1.0;
  else if (unit == "m" || unit == "min")
    scale = 60e9;
  else if (unit == "h")
    scale = 3600e9;
  else
    return std::nullopt;
  const double ns = v * scale;
  if (ns > 1e18) return std::nullopt;
  return uint64_t(std::llround(ns));
}

}  // namespace hitcost
