#pragma once
// The pieces both advise reports (compare_report.cpp, recommend_report.cpp) print with: one
// printf-style formatter, the units, HTML escaping, and the JSON of a verdict and of the
// failures by kind, so a verdict or a failure reads the same in either file.
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advise/compare.h"
#include "report/verdict.h"

namespace hitcost::corpus::report_parts {

// snprintf into a string; a line longer than 1 KiB is cut (the reports' lines are far shorter).
std::string fmt(const char* f, auto... args) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

inline double us(double ns) { return ns / 1000.0; }
inline double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }
std::string hex_flags(uint32_t flags);    // "0x00000054"
std::string escaped(std::string_view s);  // for HTML text and attributes

// null, or {kind, metric, pairs, decided_after_rounds, confidence, text, ratio, low, high}.
nlohmann::ordered_json verdict_json(const std::optional<client::Verdict>& v);
// [{kind, count, listed: [{key, flags, reason}]}].
nlohmann::ordered_json failures_json(const std::vector<FailureKind>& kinds);

}  // namespace hitcost::corpus::report_parts
