#include "load/error_limits.h"

#include <cstdio>

namespace hitcost::client {

namespace {
std::string line(const char* what, uint64_t bad, const std::string& parts, uint64_t of, const char* of_what,
                 double limit, const char* flag) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "%llu %s (%s) in %llu %s = %.3g%% > %s %g", static_cast<unsigned long long>(bad), what,
                parts.c_str(), static_cast<unsigned long long>(of), of_what, 100.0 * double(bad) / double(of), flag,
                limit);
  return buf;
}
std::string parts(std::initializer_list<std::pair<const char*, uint64_t>> kinds) {
  std::string out;
  for (const auto& [name, n] : kinds) {
    if (n == 0) continue;
    if (!out.empty()) out += ", ";
    out += name + std::string(" ") + std::to_string(n);
  }
  return out;
}
}  // namespace

std::optional<std::string> over_error_limit(const LoadResult& r, const ErrorLimits& limits) {
  const ErrorCounts& e = r.errors;
  const uint64_t wrong = e.status + e.parse + e.validation;
  const uint64_t responses = r.requests + e.parse;
  if (wrong > 0 && double(wrong) > limits.wrong_answers * double(responses))
    return line("wrong answers", wrong, parts({{"status", e.status}, {"parse", e.parse}, {"validation", e.validation}}),
                responses, "responses", limits.wrong_answers, "--max-error-rate");
  const uint64_t transport = e.connect + e.read + e.write + e.timeout;
  const uint64_t attempts = responses + transport;
  if (transport > 0 && double(transport) > limits.transport * double(attempts))
    return line("transport errors", transport,
                parts({{"connect", e.connect}, {"read", e.read}, {"write", e.write}, {"timeout", e.timeout}}), attempts,
                "attempts", limits.transport, "--max-transport-error-rate");
  return std::nullopt;
}

}  // namespace hitcost::client
