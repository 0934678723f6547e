#include "corpus/value.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace hitcost::corpus {

bool operator==(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::null: return true;
    case Value::Kind::boolean: return a.b == b.b;
    case Value::Kind::integer: return a.i == b.i;
    case Value::Kind::real:
      // Every NaN is one value to PHP (serialize() writes any of them as NAN; only pack() sees a
      // payload), so NaNs are equal whatever their bits; -0.0 and 0.0 are not (var_dump shows -0).
      if (std::isnan(a.d) && std::isnan(b.d)) return true;
      return std::memcmp(&a.d, &b.d, sizeof a.d) == 0;
    case Value::Kind::string: return a.s == b.s;
    case Value::Kind::list: return a.items == b.items;
    case Value::Kind::map: return a.fields == b.fields;
  }
  return false;
}

const char* to_string(Value::Kind k) noexcept {
  switch (k) {
    case Value::Kind::null: return "null";
    case Value::Kind::boolean: return "bool";
    case Value::Kind::integer: return "int";
    case Value::Kind::real: return "double";
    case Value::Kind::string: return "string";
    case Value::Kind::list: return "list";
    case Value::Kind::map: return "map";
  }
  return "?";
}

Value make_null() { return Value{}; }
Value make_bool(bool b) {
  Value v;
  v.kind = Value::Kind::boolean;
  v.b = b;
  return v;
}
Value make_int(int64_t i) {
  Value v;
  v.kind = Value::Kind::integer;
  v.i = i;
  return v;
}
Value make_real(double d) {
  Value v;
  v.kind = Value::Kind::real;
  v.d = d;
  return v;
}
Value make_string(std::string s) {
  Value v;
  v.kind = Value::Kind::string;
  v.s = std::move(s);
  return v;
}
Value make_list(std::vector<Value> items) {
  Value v;
  v.kind = Value::Kind::list;
  v.items = std::move(items);
  return v;
}
Value make_map(Fields fields) {
  bool is_list = true;
  for (size_t k = 0; k < fields.size() && is_list; ++k)
    is_list = fields[k].first.is_int && fields[k].first.i == int64_t(k);
  if (is_list) {
    std::vector<Value> items;
    items.reserve(fields.size());
    for (auto& f : fields) items.push_back(std::move(f.second));
    return make_list(std::move(items));
  }
  Value v;
  v.kind = Value::Kind::map;
  v.fields = std::move(fields);
  return v;
}
MapKey make_int_key(int64_t i) { return MapKey{true, i, {}}; }
MapKey make_key(std::string s) {
  int64_t i = 0;
  if (is_canonical_int(s, &i)) return make_int_key(i);
  return MapKey{false, 0, std::move(s)};
}

bool is_canonical_int(std::string_view s, int64_t* out) noexcept {
  if (s.empty() || s.size() > 20) return false;
  size_t p = s[0] == '-' ? 1 : 0;
  if (p == s.size()) return false;
  if (s[p] == '0' && (s.size() > 1)) return false;  // "0" only; no "-0", "01"
  for (size_t k = p; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return false;  // out of int64 range
  if (out) *out = v;
  return true;
}

namespace {
void walk(const Value& v, uint64_t depth, TreeStats& st) {
  ++st.nodes;
  if (depth > st.max_depth) st.max_depth = depth;
  if (v.kind == Value::Kind::string) {
    ++st.strings;
    st.string_bytes += v.s.size();
  }
  for (const Value& c : v.items) walk(c, depth + 1, st);
  for (const auto& [k, c] : v.fields) {
    if (!k.is_int) {
      ++st.strings;
      st.string_bytes += k.s.size();
    }
    walk(c, depth + 1, st);
  }
}
}  // namespace

TreeStats tree_stats(const Value& v) {
  TreeStats st;
  walk(v, 1, st);
  return st;
}

}  // namespace hitcost::corpus
