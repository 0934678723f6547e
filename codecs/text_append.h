#pragma once
// Small appenders shared by the text encoders (JSON, PHP serialize, HTML): numbers are
// written with std::to_chars (locale-free, shortest round-trip form for doubles).
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace hitcost {

inline void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

inline void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Shortest text that parses back to exactly `v` (e.g. 12.34 -> "12.34", 5.0 -> "5").
// Returns what was appended so callers can add ".0" where their format needs it.
inline std::string_view append_double_shortest(std::string& out, double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  size_t at = out.size();
  out.append(buf, r.ptr);
  return std::string_view(out).substr(at);
}

// The pieces one after another (error messages), built by appending: GCC 12 warns falsely
// (-Wrestrict, bug 105329) on "lit" + string + "lit".
inline std::string concat(std::initializer_list<std::string_view> pieces) {
  std::string out;
  for (std::string_view p : pieces) out.append(p);
  return out;
}

}  // namespace hitcost
