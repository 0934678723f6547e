#pragma once
// One request a cache was asked, as a trace holds it: the unit every part of trace/ reads and
// writes (recorded from memcached's `watch`, imported from a public trace, replayed).
//
// The operation and outcome lists are tables (X-macros): the enum, its name and its parser come
// from one row each. A name is what `trace show` prints and what the trace JSON carries.
#include <cstdint>
#include <optional>
#include <string_view>

namespace hitcost::trace {

// clang-format off: the lists are tables
// X(name, is_read, is_write): a read asks for a value; a write stores one (set..prepend);
// delete/incr/decr/touch are neither (they change an item without sending its value).
#define HITCOST_TRACE_OP_LIST(X)                      \
  X(get, true, false)                                 \
  X(gets, true, false)                                \
  X(set, false, true)                                 \
  X(add, false, true)                                 \
  X(replace, false, true)                             \
  X(cas, false, true)                                 \
  X(append, false, true)                              \
  X(prepend, false, true)                             \
  X(del, false, false) /* "delete" (a C++ keyword) */ \
  X(incr, false, false)                               \
  X(decr, false, false)                               \
  X(touch, false, false)

// found/not_found: reads, deletes, incr/decr, touch. stored/not_stored/exists: writes (exists: a
// cas whose token was stale; not_found also for a cas on an absent key). unknown: the source
// does not say (oracleGeneral records; twemcache writes).
#define HITCOST_TRACE_OUTCOME_LIST(X) X(found) X(not_found) X(stored) X(not_stored) X(exists) X(unknown)
// clang-format on

enum class Op : uint8_t {
#define HITCOST_TRACE_OP_ENUM(name, read, write) name,
  HITCOST_TRACE_OP_LIST(HITCOST_TRACE_OP_ENUM)
#undef HITCOST_TRACE_OP_ENUM
      count_
};
enum class Outcome : uint8_t {
#define HITCOST_TRACE_OUTCOME_ENUM(name) name,
  HITCOST_TRACE_OUTCOME_LIST(HITCOST_TRACE_OUTCOME_ENUM)
#undef HITCOST_TRACE_OUTCOME_ENUM
      count_
};
inline constexpr size_t kOpCount = static_cast<size_t>(Op::count_);
inline constexpr size_t kOutcomeCount = static_cast<size_t>(Outcome::count_);

// "get", ..., "delete" (not "del"), ...
const char* to_string(Op op) noexcept;
const char* to_string(Outcome outcome) noexcept;
bool is_read(Op op) noexcept;
bool is_write(Op op) noexcept;
// The names above, and memcached's "gat"/"gats" (a get/gets that also touches: a read);
// nullopt for anything else.
std::optional<Op> parse_op(std::string_view name) noexcept;
std::optional<Outcome> parse_outcome(std::string_view name) noexcept;

// 32 bytes, little-endian, as laid out in the trace file (trace/trace_file.h): a reader maps the
// file and reads events in place, so the layout is the format.
struct TraceEvent {
  uint64_t time_us;     // since the trace's first event (its absolute start is in the header)
  uint64_t key;         // the key's keyed hash (trace/key_hash.h), or the source's own id
  uint32_t value_size;  // bytes of the value stored or returned; 0 when none (a miss, a delete)
  uint32_t ttl_s;       // a write's TTL as sent (0: none, or not recorded)
  uint16_t key_size;    // bytes of the key as asked (0: not recorded, e.g. oracleGeneral)
  uint8_t op;           // Op
  uint8_t outcome;      // Outcome
  uint16_t client;      // the client connection, numbered from 0 in order of first appearance
  uint16_t reserved;    // 0
};
static_assert(sizeof(TraceEvent) == 32, "the trace file's event layout");

}  // namespace hitcost::trace
