// MessagePack <-> the generic value tree, as php-msgpack 2.x packs and unpacks a PHP array.
//
// Decoder: every MessagePack type the tree can hold — nil, bool, all ints, float 32 (widened
// to double, exactly) and 64, str and bin (both strings: the tree's strings are bytes), array
// (a list) and map (make_map, so {0:a,1:b} is a list as PHP makes it). Map keys must be an int
// or a string (make_key: "7" is int key 7 as in PHP); duplicates, ext types, 0xc1 and trailing
// bytes are parse_error. uint64 above INT64_MAX decodes to a double (php-msgpack 2.2 itself
// gives a decimal string there; the tree keeps the number a number).
// The bytes are read by codecs/msgpack_format.h's Reader, which checks every count against
// the bytes left before anything is reserved for it.
//
// Encoder: what msgpack_pack() writes — the smallest int encoding (uint 8..64 for positive
// numbers, int 8..64 for negative ones), doubles as float 64, strings as fixstr/str 8/16/32,
// lists as arrays, maps as maps with int keys as ints.
#include <string>
#include <string_view>
#include <vector>

#include "codecs/msgpack_format.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

using msgpack::Item;

bool read_value(msgpack::Reader& in, Value& out, size_t depth);

// `depth`: containers open around this one's elements, itself included.
bool read_array(msgpack::Reader& in, const Item& array, Value& out, size_t depth) {
  if (depth > kMaxDepth) return in.fail_at("nesting deeper than 512", array.at);
  std::vector<Value> items(static_cast<size_t>(array.count));
  for (Value& item : items)
    if (!read_value(in, item, depth)) return false;
  out = make_list(std::move(items));
  return true;
}

// An int or a string (make_key: "7" is int key 7, as in PHP).
bool read_key(msgpack::Reader& in, MapKey& key) {
  const size_t at = in.offset();
  Item k;
  if (!in.next(k)) return false;
  switch (k.kind) {
    case Item::Kind::str:
    case Item::Kind::bin: key = make_key(std::string(k.s)); return true;
    case Item::Kind::integer: key = make_int_key(k.i); return true;
    case Item::Kind::big_uint: return in.fail_at("map key above INT64_MAX", at);
    default: return in.fail_at("map key is neither an int nor a string", at);
  }
}

bool read_map(msgpack::Reader& in, const Item& map, Value& out, size_t depth) {
  if (depth > kMaxDepth) return in.fail_at("nesting deeper than 512", map.at);
  Fields fields(static_cast<size_t>(map.count));
  for (auto& [key, value] : fields) {
    if (!read_key(in, key)) return false;
    if (!read_value(in, value, depth)) return false;
  }
  if (detail::find_duplicate_key(fields) != fields.size()) return in.fail_at("duplicate key in map", map.at);
  out = make_map(std::move(fields));
  return true;
}

// `depth`: containers already open around this value (the root is at 0).
bool read_value(msgpack::Reader& in, Value& out, size_t depth) {
  Item item;
  if (!in.next(item)) return false;
  switch (item.kind) {
    case Item::Kind::nil: out = make_null(); return true;
    case Item::Kind::boolean: out = make_bool(item.b); return true;
    case Item::Kind::integer: out = make_int(item.i); return true;
    case Item::Kind::big_uint: out = make_real(double(item.u)); return true;
    case Item::Kind::float32:
    case Item::Kind::float64: out = make_real(item.d); return true;
    case Item::Kind::str:
    case Item::Kind::bin: out = make_string(std::string(item.s)); return true;
    case Item::Kind::array: return read_array(in, item, out, depth + 1);
    case Item::Kind::map: return read_map(in, item, out, depth + 1);
  }
  return in.fail_at("unknown item", item.at);
}

Status too_long() { return Error{Errc::invalid_argument, "msgpack: more than 2^32 - 1 bytes or elements"}; }

Status encode_value(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::null: msgpack::put_nil(out); return ok_status();
    case Value::Kind::boolean: msgpack::put_bool(out, v.b); return ok_status();
    case Value::Kind::integer: msgpack::put_int(out, v.i); return ok_status();
    case Value::Kind::real: msgpack::put_float64(out, v.d); return ok_status();
    case Value::Kind::string:
      if (v.s.size() > msgpack::kMaxLength) return too_long();
      msgpack::put_string(out, v.s);
      return ok_status();
    case Value::Kind::list: {
      if (v.items.size() > msgpack::kMaxLength) return too_long();
      msgpack::put_array_header(out, v.items.size());
      for (const Value& item : v.items)
        if (Status st = encode_value(item, out); !st) return st;
      return ok_status();
    }
    case Value::Kind::map: {
      if (v.fields.size() > msgpack::kMaxLength) return too_long();
      msgpack::put_map_header(out, v.fields.size());
      for (const auto& [key, value] : v.fields) {
        if (key.is_int) {
          msgpack::put_int(out, key.i);
        } else if (key.s.size() > msgpack::kMaxLength) {
          return too_long();
        } else {
          msgpack::put_string(out, key.s);
        }
        if (Status st = encode_value(value, out); !st) return st;
      }
      return ok_status();
    }
  }
  return Error{Errc::invalid_argument, "msgpack: unknown value kind"};
}

}  // namespace

Result<Value> decode_msgpack_tree(std::string_view bytes) {
  msgpack::Reader in(bytes);
  Value root;
  if (!read_value(in, root, 0) || !in.finish()) return in.error();
  return root;
}

Status encode_msgpack_tree(const Value& v, std::string& out) {
  const size_t before = out.size();
  Status st = encode_value(v, out);
  if (!st) out.resize(before);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
