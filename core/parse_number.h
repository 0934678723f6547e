#pragma once
// The whole of `text` as a number of type T (std::from_chars: no sign for unsigned types, no
// spaces, no trailing bytes); false for anything else, `out` then unspecified. Protocol fields
// (memcached's answers and watch lines, trace imports, query parameters) are read with it.
#include <charconv>
#include <string_view>
#include <system_error>

namespace hitcost {

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace hitcost
