#include "figures/error_counts.h"

#include <iterator>

namespace hitcost::client {

namespace {
// Every kind's count: total and merge walk this list.
constexpr uint64_t ErrorCounts::*kKinds[] = {&ErrorCounts::connect,   &ErrorCounts::read,   &ErrorCounts::write,
                                             &ErrorCounts::timeout,   &ErrorCounts::status, &ErrorCounts::parse,
                                             &ErrorCounts::validation};
static_assert(sizeof(ErrorCounts) == sizeof(uint64_t) * std::size(kKinds), "an error kind is not in kKinds");
}  // namespace

uint64_t ErrorCounts::total() const noexcept {
  uint64_t n = 0;
  for (uint64_t ErrorCounts::*k : kKinds) n += this->*k;
  return n;
}

void ErrorCounts::merge(const ErrorCounts& o) noexcept {
  for (uint64_t ErrorCounts::*k : kKinds) this->*k += o.*k;
}

void keep_first_error(std::vector<ErrorSample>& samples, std::string_view kind, std::string_view detail) {
  for (const ErrorSample& e : samples)
    if (e.kind == kind) return;
  // One printable line: the server's body may end in a newline or hold HTML.
  std::string line;
  for (char ch : detail.substr(0, kErrorDetailMax)) line += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  samples.push_back({std::string(kind), std::move(line)});
}

}  // namespace hitcost::client
