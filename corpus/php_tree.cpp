// PHP serialize() text <-> the generic value tree (corpus/tree_codec.h). The grammar and the
// byte-level reading and writing are codecs/php_format.h's; what is here is the mapping: which
// letters make which Value, the array's keys (make_key: "7" is the int key 7, as in PHP), the
// nesting limit, duplicate keys, and refusing what the tree cannot hold (objects, enums,
// references, S: strings).
#include <cstdint>
#include <string>
#include <string_view>

#include "codecs/php_format.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

// The smallest array element is "i:0;N;": six bytes.
constexpr size_t kMinElementBytes = 6;

bool read_value(php::Reader& in, Value& out, size_t depth);

bool read_key(php::Reader& in, MapKey& key) {
  if (in.starts_with("i:")) {
    in.expect("i:");
    int64_t i = 0;
    if (!in.int_body(i)) return false;
    key = make_int_key(i);
    return true;
  }
  if (in.starts_with("s:")) {
    in.expect("s:");
    std::string_view s;
    if (!in.string_body(s)) return false;
    key = make_key(std::string(s));
    return true;
  }
  if (in.at_end()) return in.fail("unexpected end of input in an array");
  return in.fail("array key must be i: or s:");
}

// After "a:"; `depth`: arrays open around this one.
bool read_array(php::Reader& in, Value& out, size_t depth) {
  const size_t start = in.offset() - 2;
  if (depth + 1 > kMaxDepth) return in.fail_at(start, "arrays nested deeper than " + std::to_string(kMaxDepth));
  uint64_t count = 0;
  if (!in.array_body(count, kMinElementBytes, start)) return false;
  Fields fields;
  fields.reserve(count);
  for (uint64_t k = 0; k < count; ++k) {
    Field& field = fields.emplace_back();
    if (!read_key(in, field.first) || !read_value(in, field.second, depth + 1)) return false;
  }
  if (!in.expect("}")) return false;
  if (const size_t dup = detail::find_duplicate_key(fields); dup != fields.size())
    return in.fail_at(start, detail::duplicate_key_message(fields[dup].first));
  out = make_map(std::move(fields));
  return true;
}

bool refuse(php::Reader& in, char type) {
  switch (type) {
    case 'O':
    case 'C': return in.fail(std::string("PHP object (") + type + ":) not supported");
    case 'E': return in.fail("PHP enum (E:) not supported");
    case 'R':
    case 'r': return in.fail(std::string("PHP reference (") + type + ":) not supported");
    case 'S': return in.fail("escaped string (S:, never written by serialize()) not supported");
    default: {
      static const char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(type);
      return in.fail(std::string("unexpected byte 0x") + kHex[byte >> 4] + kHex[byte & 15]);
    }
  }
}

bool read_value(php::Reader& in, Value& out, size_t depth) {
  if (in.at_end()) return in.fail("unexpected end of input");
  const char type = in.peek();
  switch (type) {
    case 'N': out = make_null(); return in.expect("N;");
    case 'b': out = make_bool(false); return in.expect("b:") && in.bool_body(out.b);
    case 'i': out = make_int(0); return in.expect("i:") && in.int_body(out.i);
    case 'd': out = make_real(0); return in.expect("d:") && in.double_body(out.d);
    case 's': {
      std::string_view s;
      if (!in.expect("s:") || !in.string_body(s)) return false;
      out = make_string(std::string(s));
      return true;
    }
    case 'a': return in.expect("a:") && read_array(in, out, depth);
    default: return refuse(in, type);
  }
}

// The encoder recurses: a hand-built tree deeper than any decoder accepts is refused rather
// than allowed to exhaust the stack.
Status append_value(std::string& out, const Value& v, size_t depth) {
  switch (v.kind) {
    case Value::Kind::null: php::put_null(out); break;
    case Value::Kind::boolean: php::put_bool(out, v.b); break;
    case Value::Kind::integer: php::put_int(out, v.i); break;
    case Value::Kind::real: php::put_double(out, v.d); break;
    case Value::Kind::string: php::put_string(out, v.s); break;
    case Value::Kind::list:
    case Value::Kind::map: {
      if (depth + 1 > kMaxDepth)
        return Error{Errc::invalid_argument, "php serialize: arrays nested deeper than " + std::to_string(kMaxDepth)};
      const bool is_list = v.kind == Value::Kind::list;
      php::put_array_header(out, is_list ? v.items.size() : v.fields.size());
      for (size_t k = 0; is_list && k < v.items.size(); ++k) {
        php::put_int(out, static_cast<int64_t>(k));
        if (Status st = append_value(out, v.items[k], depth + 1); !st) return st;
      }
      for (size_t k = 0; !is_list && k < v.fields.size(); ++k) {
        const MapKey& key = v.fields[k].first;
        if (key.is_int)
          php::put_int(out, key.i);
        else
          php::put_string(out, key.s);
        if (Status st = append_value(out, v.fields[k].second, depth + 1); !st) return st;
      }
      out += '}';
      break;
    }
  }
  return ok_status();
}

}  // namespace

Result<Value> decode_php_tree(std::string_view bytes) {
  php::Reader in(bytes);
  Value v;
  if (!read_value(in, v, 0) || !in.finish()) return in.error();
  return v;
}

Status encode_php_tree(const Value& v, std::string& out) {
  const size_t had = out.size();
  Status st = append_value(out, v, 0);
  if (!st) out.resize(had);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
