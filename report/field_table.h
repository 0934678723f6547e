#pragma once
// The field-table machinery of the run record (run_record.h) and of its parts (server_record.h,
// cpu_record.h): each lists its fields once with their places in the JSON (JSON pointers), and
// the walks below write, read and look up every field from that list.
//
// Reading never throws: a missing field keeps its default, a value of another type too (old or
// hand-written files). A part that must write an old file back byte for byte keeps an AsRead:
// what the file held that its typed fields do not say (a key it lacked, a value of another form:
// an integer where the field is a double) and the keys this version does not know.
#include <concepts>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace hitcost::client::fields {

using nlohmann::json;

// How a field's value is written to JSON and read back. Specialize it for a type whose JSON is
// its own (a list of error samples, a counter cell). `read` leaves `v` as it was when `j` holds a
// value of another type; `empty` says when a field marked omit() is left out of the JSON.
template <class T>
struct Codec {
  static json write(const T& v) { return json(v); }
  static void read(const json& j, T& v) {
    if constexpr (std::is_same_v<T, json>) {
      v = j;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (j.is_boolean()) v = j.get<bool>();
    } else if constexpr (std::is_arithmetic_v<T>) {
      if (j.is_number()) v = j.get<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (j.is_string()) v = j.get<std::string>();
    } else {
      try {
        v = j.get<T>();
      } catch (const json::exception&) {
      }
    }
  }
  static bool empty(const T& v) {
    if constexpr (std::is_same_v<T, json>)
      return v.is_null();
    else if constexpr (requires { v.empty(); })
      return v.empty();
    else
      return false;
  }
};

template <class T>
struct Codec<std::optional<T>> {
  static json write(const std::optional<T>& v) { return v ? Codec<T>::write(*v) : json(nullptr); }
  // null: nullopt; anything else is read as a T (a value of another type: T's default).
  static void read(const json& j, std::optional<T>& v) {
    if (j.is_null()) {
      v.reset();
      return;
    }
    T x{};
    Codec<T>::read(j, x);
    v = std::move(x);
  }
  static bool empty(const std::optional<T>& v) { return !v.has_value(); }
};

// A field whose key is left out of the JSON when it holds nothing (Codec::empty: nullopt, null,
// no entries) instead of being written as null: keys that only some runs have.
template <class T>
struct Omit {
  T& v;
};
template <class T>
Omit<T> omit(T& v) {
  return {v};
}

// What a part read that its typed fields would not write back as it was, by field pointer, and
// the keys of the part this version does not know. Writing gives the file's value back while
// the field still holds what was read from it; a field set since is written as it is.
class AsRead {
 public:
  // `pointer` was missing; `typed` is the default's JSON.
  void absent(const std::string& pointer, json typed) { fields_[pointer] = {std::nullopt, std::move(typed)}; }
  // `pointer` held `as_read`, which reads as a value whose JSON is `typed`.
  void differs(const std::string& pointer, const json& as_read, json typed) {
    fields_[pointer] = {as_read, std::move(typed)};
  }
  // What to write at `pointer` for a field whose JSON is now `typed`: nullptr = `typed` itself;
  // else the file's value (nullopt inside: leave the key out).
  const std::optional<json>* kept(const std::string& pointer, const json& typed) const {
    const auto it = fields_.find(pointer);
    return it != fields_.end() && it->second.typed == typed ? &it->second.as_read : nullptr;
  }
  json extra = json::object();  // keys this version does not know: written back unchanged

 private:
  struct Field {
    std::optional<json> as_read;
    json typed;
  };
  std::map<std::string, Field> fields_;
};

// The walks. A table calls f(pointer, csv, value) for each field (csv: its CSV column, "" none).

struct Writer {
  json& j;
  const AsRead* as_read = nullptr;
  template <class T>
  void operator()(const std::string& pointer, const char*, const T& v) const {
    json typed = Codec<T>::write(v);
    if (as_read)
      if (const std::optional<json>* kept = as_read->kept(pointer, typed)) {
        if (*kept) j[json::json_pointer(pointer)] = **kept;
        return;
      }
    j[json::json_pointer(pointer)] = std::move(typed);
  }
  template <class T>
  void operator()(const std::string& pointer, const char* csv, Omit<T> v) const {
    if (!Codec<std::remove_const_t<T>>::empty(v.v)) (*this)(pointer, csv, v.v);
  }
};

struct Reader {
  const json& j;
  AsRead* as_read = nullptr;
  template <class T>
  void operator()(const std::string& pointer, const char*, T& v) const {
    const json::json_pointer p(pointer);
    if (!j.contains(p)) {
      if (as_read) as_read->absent(pointer, Codec<T>::write(v));
      return;
    }
    const json& x = j.at(p);
    Codec<T>::read(x, v);
    // Compared as text: 0 and 0.0 are equal numbers but not the same bytes.
    if (as_read)
      if (json typed = Codec<T>::write(v); typed.dump() != x.dump()) as_read->differs(pointer, x, std::move(typed));
  }
  template <class T>
  void operator()(const std::string& pointer, const char* csv, Omit<T> v) const {
    (*this)(pointer, csv, v.v);
  }
};

// ---- a part described by a table of its members ------------------------------------------

// A row of a part's table: the field's pointer in the part's JSON, its member.
template <class S, class M>
struct Row {
  const char* pointer;
  M S::*member;
};

// A part's table: specialize with `static constexpr std::tuple rows{Row{"/key", &S::member}, ...};`
// next to the part. A part with an `AsRead as_read` member writes back what it read
// (write_part, read_part).
template <class S>
struct Table;
template <class S>
concept Tabled = requires {
  Table<S>::rows;
};

template <class S, class F>
void for_each_row(S& s, F&& f) {
  std::apply([&](const auto&... row) { (f(std::string(row.pointer), "", s.*row.member), ...); },
             Table<std::remove_const_t<S>>::rows);
}

// A part that writes back what it read: it keeps an AsRead.
template <class S>
concept KeepsAsRead = Tabled<S> && requires(S s) {
  { s.as_read } -> std::same_as<AsRead&>;
};

template <KeepsAsRead S>
json write_part(const S& s) {
  json j = json::object();
  for_each_row(s, Writer{j, &s.as_read});
  for (const auto& [key, v] : s.as_read.extra.items()) j[key] = v;
  return j;
}

template <KeepsAsRead S>
void read_part(const json& j, S& s) {
  s = S{};
  if (!j.is_object()) return;
  for_each_row(s, Reader{j, &s.as_read});
  std::set<std::string> known;
  for_each_row(s,
               [&](const std::string& p, const char*, const auto&) { known.insert(p.substr(1, p.find('/', 1) - 1)); });
  for (const auto& [key, v] : j.items())
    if (!known.count(key)) s.as_read.extra[key] = v;
}

template <KeepsAsRead S>
struct Codec<S> {
  static json write(const S& s) { return write_part(s); }
  static void read(const json& j, S& s) { read_part(j, s); }
  static bool empty(const S&) { return false; }
};

// ---- looking fields up ----------------------------------------------------------------------

// A key as a JSON pointer token ('~' and '/' escaped).
inline std::string pointer_token(const std::string& key) {
  std::string t;
  for (char c : key) t += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return t;
}

template <class T>
struct IsMap : std::false_type {};
template <class V>
struct IsMap<std::map<std::string, V>> : std::true_type {};

// Calls f(pointer, value) for `v` at `pointer` and for everything below it: the fields of a
// part with a table (held or in an optional), the entries of a map by key.
template <class T, class F>
void each_value(const std::string& pointer, const T& v, F&& f) {
  f(pointer, v);
  if constexpr (Tabled<T>) {
    for_each_row(v, [&](const std::string& p, const char*, const auto& x) { each_value(pointer + p, x, f); });
  } else if constexpr (IsMap<T>::value) {
    for (const auto& [key, x] : v) each_value(pointer + "/" + pointer_token(key), x, f);
  } else if constexpr (requires {
                         v.has_value();
                         *v;
                       }) {
    if (v) each_value(pointer, *v, f);
  }
}

// A field as a number: a number's value, an optional number's (nullopt when null); else nullopt.
template <class T>
std::optional<double> number_of(const T& v) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    return double(v);
  else if constexpr (requires {
                       v.has_value();
                       *v;
                     })
    return v ? number_of(*v) : std::nullopt;
  else
    return std::nullopt;
}

}  // namespace hitcost::client::fields
