// JSON (RFC 8259) <-> the generic value tree, as PHP reads it with json_decode($s, true) and
// writes it with json_encode($v, JSON_PRESERVE_ZERO_FRACTION).
//
// Decoder (decode_json_tree_reader): a strict recursive descent over codecs/json_format.h's
// reader, no DOM in between. It is the authority on what a JSON value is; the default decoder,
// decode_json_tree (json_tree_simdjson.cpp), reads with simdjson and hands it what simdjson
// refuses. Objects become maps through make_key
// ("7" -> int key 7, as PHP), arrays lists; an integer literal within int64 is an int, any other number a double (as
// PHP: 9223372036854775808 is a float there too). Duplicate keys are refused: PHP keeps the last, which a round trip
// could not reproduce.
//
// Encoder: byte for byte what PHP 8's json_encode writes with JSON_PRESERVE_ZERO_FRACTION —
// flags 0 would write 1.0 as "1", which reads back as an int; the tree keeps doubles apart.
// Escapes and doubles as PHP's defaults: json::append_php_string and append_php_double.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/json_format.h"
#include "codecs/text_append.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

bool read_value(json::Reader& in, Value& out, size_t depth);

// `depth`: containers open around this one, itself included (the root's is 1).
bool read_array(json::Reader& in, Value& out, size_t depth) {
  if (depth > kMaxDepth) return in.fail("nesting deeper than 512");
  std::vector<Value> items;
  const bool ok = in.array([&] {
    items.emplace_back();
    return read_value(in, items.back(), depth);
  });
  if (!ok) return false;
  out = make_list(std::move(items));
  return true;
}

bool read_object(json::Reader& in, Value& out, size_t depth) {
  if (depth > kMaxDepth) return in.fail("nesting deeper than 512");
  const char* const start = in.position();
  Fields fields;
  const bool ok = in.object([&](std::string& key) {
    fields.emplace_back(make_key(std::move(key)), Value{});
    return read_value(in, fields.back().second, depth);
  });
  if (!ok) return false;
  if (detail::find_duplicate_key(fields) != fields.size()) return in.fail_at("duplicate key in object", start);
  out = make_map(std::move(fields));
  return true;
}

// `depth`: containers already open around this value (the root is at 0).
bool read_value(json::Reader& in, Value& out, size_t depth) {
  switch (in.peek()) {
    case '\0': return in.fail("unexpected end of input");
    case '{': return read_object(in, out, depth + 1);
    case '[': return read_array(in, out, depth + 1);
    case '"': {
      std::string s;
      if (!in.string(s)) return false;
      out = make_string(std::move(s));
      return true;
    }
    case 't': out = make_bool(true); return in.literal("true");
    case 'f': out = make_bool(false); return in.literal("false");
    case 'n': out = make_null(); return in.literal("null");
    default: {
      if (!in.at_number()) return in.fail("unexpected character");
      json::Number n;
      if (!in.number(n)) return false;
      out = n.is_int ? make_int(n.i) : make_real(n.d);
      return true;
    }
  }
}

Status encode_value(const Value& v, std::string& out);

Status encode_map(const Value& v, std::string& out) {
  out += '{';
  for (size_t k = 0; k < v.fields.size(); ++k) {
    if (k) out += ',';
    const MapKey& key = v.fields[k].first;
    if (key.is_int) {
      out += '"';
      append_int(out, key.i);
      out += '"';
    } else if (Status st = json::append_php_string(key.s, out); !st) {
      return st;
    }
    out += ':';
    if (Status st = encode_value(v.fields[k].second, out); !st) return st;
  }
  out += '}';
  return ok_status();
}

Status encode_value(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::null: out += "null"; return ok_status();
    case Value::Kind::boolean: out += v.b ? "true" : "false"; return ok_status();
    case Value::Kind::integer: append_int(out, v.i); return ok_status();
    case Value::Kind::real:
      if (!std::isfinite(v.d)) return Error{Errc::invalid_argument, "json: NaN or infinity cannot be written"};
      json::append_php_double(v.d, out);
      return ok_status();
    case Value::Kind::string: return json::append_php_string(v.s, out);
    case Value::Kind::list: {
      out += '[';
      for (size_t k = 0; k < v.items.size(); ++k) {
        if (k) out += ',';
        if (Status st = encode_value(v.items[k], out); !st) return st;
      }
      out += ']';
      return ok_status();
    }
    case Value::Kind::map: return encode_map(v, out);
  }
  return Error{Errc::invalid_argument, "json: unknown value kind"};
}

}  // namespace

Result<Value> decode_json_tree_reader(std::string_view bytes) {
  json::Reader in(bytes);
  Value root;
  if (!read_value(in, root, 0) || !in.finish()) return in.error();
  return root;
}

Status encode_json_tree(const Value& v, std::string& out) {
  const size_t before = out.size();
  Status st = encode_value(v, out);
  if (!st) out.resize(before);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
