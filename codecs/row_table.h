#pragma once
// Lookups over a table of rows that each have an `id` and a `name` (codecs/inflate.h's
// kInflateLibraries, codecs/decoders.h's kJsonDecoders): by id, by name, and the names for a
// help text or the reason of a refusal.
#include <cstddef>
#include <string>
#include <string_view>

namespace hitcost {

// The row of `id`; the first row when no row has it (every enum value has a row: checked by the
// tables' tests).
template <class Row, size_t N, class Id>
const Row& row_by_id(const Row (&rows)[N], Id id) noexcept {
  for (const Row& r : rows)
    if (r.id == id) return r;
  return rows[0];
}

// The row named `name`, or nullptr.
template <class Row, size_t N>
const Row* row_by_name(const Row (&rows)[N], std::string_view name) noexcept {
  for (const Row& r : rows)
    if (name == r.name) return &r;
  return nullptr;
}

// "zlib, libdeflate, isal": the names in table order.
template <class Row, size_t N>
std::string row_names(const Row (&rows)[N]) {
  std::string s;
  for (const Row& r : rows) {
    if (!s.empty()) s += ", ";
    s += r.name;
  }
  return s;
}

}  // namespace hitcost
