#include "trace/trace_event.h"

#include <string_view>

namespace hitcost::trace {
namespace {

struct OpRow {
  const char* name;
  bool read;
  bool write;
};
// "del" is spelt as memcached spells the command.
constexpr OpRow kOps[] = {
#define HITCOST_TRACE_OP_ROW(name, read, write) {std::string_view(#name) == "del" ? "delete" : #name, read, write},
    HITCOST_TRACE_OP_LIST(HITCOST_TRACE_OP_ROW)
#undef HITCOST_TRACE_OP_ROW
};
static_assert(std::size(kOps) == kOpCount);

constexpr const char* kOutcomes[] = {
#define HITCOST_TRACE_OUTCOME_NAME(name) #name,
    HITCOST_TRACE_OUTCOME_LIST(HITCOST_TRACE_OUTCOME_NAME)
#undef HITCOST_TRACE_OUTCOME_NAME
};
static_assert(std::size(kOutcomes) == kOutcomeCount);

}  // namespace

const char* to_string(Op op) noexcept {
  const auto i = static_cast<size_t>(op);
  return i < kOpCount ? kOps[i].name : "?";
}
const char* to_string(Outcome outcome) noexcept {
  const auto i = static_cast<size_t>(outcome);
  return i < kOutcomeCount ? kOutcomes[i] : "?";
}
bool is_read(Op op) noexcept { return static_cast<size_t>(op) < kOpCount && kOps[static_cast<size_t>(op)].read; }
bool is_write(Op op) noexcept { return static_cast<size_t>(op) < kOpCount && kOps[static_cast<size_t>(op)].write; }

std::optional<Op> parse_op(std::string_view name) noexcept {
  if (name == "gat") return Op::get;
  if (name == "gats") return Op::gets;
  for (size_t i = 0; i < kOpCount; ++i)
    if (name == kOps[i].name) return static_cast<Op>(i);
  return std::nullopt;
}
std::optional<Outcome> parse_outcome(std::string_view name) noexcept {
  for (size_t i = 0; i < kOutcomeCount; ++i)
    if (name == kOutcomes[i]) return static_cast<Outcome>(i);
  return std::nullopt;
}

}  // namespace hitcost::trace
