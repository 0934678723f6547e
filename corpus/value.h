#pragma once
// A generic value tree: what a cached PHP array, JSON document or msgpack map holds, with
// nothing of hitcost's page model. hitcost-corpus decodes a user's stored values into it,
// re-encodes them under each strategy and checks the round trip with operator==.
//
// The tree follows PHP's array semantics, since PHP wrote most of the values it will meet:
//   - a map's keys are integers or byte strings, in insertion order; a string key that is a
//     canonical decimal integer ("7", "-3", not "07" or "+3") is that integer, as PHP makes
//     it (so {"7": x} from JSON and a:1:{i:7;...} from serialize() are the same tree);
//   - a map whose keys are exactly 0, 1, ..., n-1 in that order is a list, and the empty
//     array is the empty list: make_map() canonicalises, so a tree has one form per value;
//   - strings are bytes, not text (JSON cannot hold every one: its encoder says so);
//   - integers are int64 (PHP's int); doubles are IEEE doubles compared bit for bit, except
//     that all NaNs are equal (PHP cannot tell them apart; serialize() writes each as NAN).
// Not thread-safe to mutate; const trees may be read from any thread.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hitcost::corpus {

struct Value;
struct Field;
// A map's entries in order. A struct of our own, not std::pair: libstdc++'s pair of an
// incomplete Value does not compile under clang (the fuzz build), a plain struct does.
using Fields = std::vector<Field>;

struct MapKey {
  bool is_int = true;
  int64_t i = 0;
  std::string s;  // when !is_int: never a canonical decimal integer (make_key sees to it)
  friend bool operator==(const MapKey&, const MapKey&) = default;
};

struct Value {
  enum class Kind : uint8_t { null, boolean, integer, real, string, list, map };
  Kind kind = Kind::null;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;                                 // string
  std::vector<Value> items;                      // list
  Fields fields;             // map, in order; never a list's shape

  friend bool operator==(const Value& a, const Value& b);  // doubles bit for bit, NaNs all equal
};

struct Field {
  MapKey first;
  Value second;
  Field() = default;
  Field(MapKey key, Value value) : first(std::move(key)), second(std::move(value)) {}
  friend bool operator==(const Field&, const Field&) = default;
};

const char* to_string(Value::Kind) noexcept;

// Constructors (the only way decoders build values, so every tree is canonical).
Value make_null();
Value make_bool(bool);
Value make_int(int64_t);
Value make_real(double);
Value make_string(std::string);
Value make_list(std::vector<Value>);
// Keys 0..n-1 in order (or none) become a list; otherwise a map in the given order.
// Duplicate keys are the caller's to refuse (decoders: parse_error), not checked here.
Value make_map(Fields);
MapKey make_int_key(int64_t);
MapKey make_key(std::string);  // a canonical decimal integer string becomes an int key

// True when `s` is how PHP prints an int64: "0", or "-"? then 1-9 then digits, in range.
bool is_canonical_int(std::string_view s, int64_t* out = nullptr) noexcept;

// Shape figures for reports: nodes, deepest nesting, string bytes.
struct TreeStats {
  uint64_t nodes = 0, strings = 0, string_bytes = 0, max_depth = 0;
};
TreeStats tree_stats(const Value&);

}  // namespace hitcost::corpus
