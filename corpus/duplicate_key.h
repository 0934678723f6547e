#pragma once
// Private to the tree decoders: finds a key that occurs twice in one decoded array, which
// the formats can spell (a:2:{i:1;..i:1;..}) but the tree cannot hold (PHP would keep the
// last value silently; a decoder that wants a faithful tree refuses it instead).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "corpus/value.h"

namespace hitcost::corpus::detail {

// Index of the first field whose key repeats an earlier one, or fields.size() when none.
inline size_t find_duplicate_key(const Fields& fields) {
  const size_t n = fields.size();
  // The common shape, a list (keys 0..n-1 in order), cannot repeat: skip the hashing.
  bool is_list = true;
  for (size_t k = 0; k < n && is_list; ++k)
    is_list = fields[k].first.is_int && fields[k].first.i == static_cast<int64_t>(k);
  if (is_list) return n;
  if (n <= 16) {  // small maps: a quadratic scan is cheaper than a hash set
    for (size_t k = 1; k < n; ++k)
      for (size_t j = 0; j < k; ++j)
        if (fields[j].first == fields[k].first) return k;
    return n;
  }
  struct Hash {
    size_t operator()(const MapKey* key) const noexcept {
      return key->is_int ? std::hash<int64_t>{}(key->i) : std::hash<std::string_view>{}(key->s) ^ 0x9e3779b97f4a7c15ull;
    }
  };
  struct Equal {
    bool operator()(const MapKey* a, const MapKey* b) const noexcept { return *a == *b; }
  };
  std::unordered_set<const MapKey*, Hash, Equal> seen;
  seen.reserve(n);
  for (size_t k = 0; k < n; ++k)
    if (!seen.insert(&fields[k].first).second) return k;
  return n;
}

// "duplicate key 7 in the array" / "duplicate key \"k\" in the array": the decoders' message.
inline std::string duplicate_key_message(const MapKey& key) {
  return "duplicate key " + (key.is_int ? std::to_string(key.i) : "\"" + key.s + "\"") + " in the array";
}

}  // namespace hitcost::corpus::detail
