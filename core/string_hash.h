#pragma once
// Transparent hashing for maps keyed by std::string: find(std::string_view) without building
// a std::string per lookup (the hit path looks keys up by view).
#include <cstddef>
#include <functional>
#include <string_view>

namespace hitcost {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
struct StringEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

}  // namespace hitcost
