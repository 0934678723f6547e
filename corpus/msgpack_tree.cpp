// MessagePack <-> the generic value tree, as php-msgpack 2.x packs and unpacks a PHP array.
//
// Decoder: every MessagePack type the tree can hold — nil, bool, all ints, float 32 (widened
// to double, exactly) and 64, str and bin (both strings: the tree's strings are bytes), array
// (a list) and map (make_map, so {0:a,1:b} is a list as PHP makes it). Map keys must be an int
// or a string (make_key: "7" is int key 7 as in PHP); duplicates, ext types, 0xc1 and trailing
// bytes are parse_error. uint64 above INT64_MAX decodes to a double (php-msgpack 2.2 itself
// gives a decimal string there; the tree keeps the number a number).
// Every count is checked against the bytes left before anything is reserved: an element
// takes at least one byte, a map entry two.
//
// Encoder: what msgpack_pack() writes — the smallest int encoding (uint 8..64 for positive
// numbers, int 8..64 for negative ones), doubles as float 64, strings as fixstr/str 8/16/32,
// lists as arrays, maps as maps with int keys as ints.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/text_append.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

class MsgpackParser {
 public:
  explicit MsgpackParser(std::string_view bytes)
      : begin_(reinterpret_cast<const unsigned char*>(bytes.data())), p_(begin_), end_(begin_ + bytes.size()) {}

  Result<Value> parse_document() {
    Value root;
    if (!parse_value(root, 0)) return std::move(error_);
    if (p_ != end_) {
      fail("trailing bytes after the value");
      return std::move(error_);
    }
    return root;
  }

 private:
  const unsigned char* begin_;
  const unsigned char* p_;
  const unsigned char* end_;
  Error error_{Errc::parse_error, ""};

  size_t left() const { return size_t(end_ - p_); }

  bool fail(const char* what) { return fail_at(what, p_); }
  bool fail_at(const char* what, const unsigned char* at) {
    error_.message = "msgpack: ";
    error_.message += what;
    error_.message += " at byte ";
    append_uint(error_.message, uint64_t(at - begin_));
    return false;
  }

  // Big-endian unsigned of `n` bytes at p_ (the caller checked they are there).
  uint64_t read_be(size_t n) {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v = (v << 8) | p_[k];
    p_ += n;
    return v;
  }
  bool need(size_t n) { return left() >= n || fail("truncated"); }

  bool parse_string(size_t len_bytes, std::string& out) {
    if (!need(len_bytes)) return false;
    const uint64_t len = read_be(len_bytes);
    if (len > left()) return fail("string length beyond the input");
    out.assign(reinterpret_cast<const char*>(p_), size_t(len));
    p_ += len;
    return true;
  }

  // `depth`: containers already open around this value (the root is at 0).
  bool parse_value(Value& out, size_t depth) {
    if (!need(1)) return false;
    const unsigned char* const at = p_;
    const unsigned char t = *p_++;
    if (t <= 0x7f) {
      out = make_int(t);
      return true;
    }
    if (t >= 0xe0) {
      out = make_int(int8_t(t));
      return true;
    }
    if (t >= 0xa0 && t <= 0xbf) {
      const size_t len = t & 0x1f;
      if (len > left()) return fail("string length beyond the input");
      out = make_string(std::string(reinterpret_cast<const char*>(p_), len));
      p_ += len;
      return true;
    }
    if (t >= 0x90 && t <= 0x9f) return parse_array(t & 0x0f, out, depth + 1, at);
    if (t >= 0x80 && t <= 0x8f) return parse_map(t & 0x0f, out, depth + 1, at);
    switch (t) {
      case 0xc0: out = make_null(); return true;
      case 0xc2: out = make_bool(false); return true;
      case 0xc3: out = make_bool(true); return true;
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf: {  // uint 8/16/32/64
        const size_t n = size_t(1) << (t - 0xcc);
        if (!need(n)) return false;
        const uint64_t u = read_be(n);
        out = u > uint64_t(std::numeric_limits<int64_t>::max()) ? make_real(double(u)) : make_int(int64_t(u));
        return true;
      }
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3: {  // int 8/16/32/64
        const size_t n = size_t(1) << (t - 0xd0);
        if (!need(n)) return false;
        const uint64_t u = read_be(n);
        const unsigned shift = unsigned(64 - 8 * n);  // sign-extend from n bytes
        out = make_int(int64_t(u << shift) >> shift);
        return true;
      }
      case 0xca: {  // float 32
        if (!need(4)) return false;
        const uint32_t bits = uint32_t(read_be(4));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out = make_real(double(f));
        return true;
      }
      case 0xcb: {  // float 64
        if (!need(8)) return false;
        const uint64_t bits = read_be(8);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        out = make_real(d);
        return true;
      }
      case 0xd9:
      case 0xda:
      case 0xdb:  // str 8/16/32
      case 0xc4:
      case 0xc5:
      case 0xc6: {  // bin 8/16/32
        const size_t len_bytes = size_t(1) << (t >= 0xd9 ? t - 0xd9 : t - 0xc4);
        std::string s;
        if (!parse_string(len_bytes, s)) return false;
        out = make_string(std::move(s));
        return true;
      }
      case 0xdc:
      case 0xdd: {  // array 16/32
        const size_t n = t == 0xdc ? 2 : 4;
        if (!need(n)) return false;
        return parse_array(read_be(n), out, depth + 1, at);
      }
      case 0xde:
      case 0xdf: {  // map 16/32
        const size_t n = t == 0xde ? 2 : 4;
        if (!need(n)) return false;
        return parse_map(read_be(n), out, depth + 1, at);
      }
      case 0xc7:
      case 0xc8:
      case 0xc9:
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8: return fail_at("ext type (not a PHP array value)", at);
      default: return fail_at("unused type byte 0xc1", at);
    }
  }

  bool parse_array(uint64_t count, Value& out, size_t depth, const unsigned char* at) {
    if (depth > kMaxDepth) return fail_at("nesting deeper than 512", at);
    if (count > left()) return fail_at("array count beyond the input", at);  // >= 1 byte each
    std::vector<Value> items(static_cast<size_t>(count));
    for (Value& item : items)
      if (!parse_value(item, depth)) return false;
    out = make_list(std::move(items));
    return true;
  }

  bool parse_key(MapKey& key) {
    if (!need(1)) return false;
    const unsigned char* const at = p_;
    const unsigned char t = *p_;
    const bool is_str = (t >= 0xa0 && t <= 0xbf) || (t >= 0xd9 && t <= 0xdb) || (t >= 0xc4 && t <= 0xc6);
    const bool is_int = t <= 0x7f || t >= 0xe0 || (t >= 0xcc && t <= 0xcf) || (t >= 0xd0 && t <= 0xd3);
    if (!is_str && !is_int) return fail("map key is neither an int nor a string");
    Value v;
    if (!parse_value(v, 0)) return false;
    if (v.kind == Value::Kind::string) {
      key = make_key(std::move(v.s));
    } else if (v.kind == Value::Kind::integer) {
      key = make_int_key(v.i);
    } else {
      return fail_at("map key above INT64_MAX", at);
    }
    return true;
  }

  bool parse_map(uint64_t count, Value& out, size_t depth, const unsigned char* at) {
    if (depth > kMaxDepth) return fail_at("nesting deeper than 512", at);
    if (count > left() / 2) return fail_at("map count beyond the input", at);  // >= 2 bytes each
    Fields fields(static_cast<size_t>(count));
    for (auto& [key, value] : fields) {
      if (!parse_key(key)) return false;
      if (!parse_value(value, depth)) return false;
    }
    if (detail::find_duplicate_key(fields) != fields.size()) return fail_at("duplicate key in map", at);
    out = make_map(std::move(fields));
    return true;
  }
};

void put_be(std::string& out, unsigned char type, uint64_t v, size_t n) {
  char buf[9];
  buf[0] = char(type);
  for (size_t k = 0; k < n; ++k) buf[1 + k] = char(v >> (8 * (n - 1 - k)));
  out.append(buf, n + 1);
}

void put_int(std::string& out, int64_t i) {
  if (i >= 0) {
    const uint64_t u = uint64_t(i);
    if (u <= 0x7f)
      out += char(u);
    else if (u <= 0xff)
      put_be(out, 0xcc, u, 1);
    else if (u <= 0xffff)
      put_be(out, 0xcd, u, 2);
    else if (u <= 0xffffffff)
      put_be(out, 0xce, u, 4);
    else
      put_be(out, 0xcf, u, 8);
  } else if (i >= -32) {
    out += char(uint8_t(i));
  } else if (i >= -128) {
    put_be(out, 0xd0, uint64_t(i), 1);
  } else if (i >= -32768) {
    put_be(out, 0xd1, uint64_t(i), 2);
  } else if (i >= int64_t(INT32_MIN)) {
    put_be(out, 0xd2, uint64_t(i), 4);
  } else {
    put_be(out, 0xd3, uint64_t(i), 8);
  }
}

Status put_string(std::string& out, std::string_view s) {
  const size_t n = s.size();
  if (n <= 31)
    out += char(0xa0 | n);
  else if (n <= 0xff)
    put_be(out, 0xd9, n, 1);
  else if (n <= 0xffff)
    put_be(out, 0xda, n, 2);
  else if (n <= 0xffffffff)
    put_be(out, 0xdb, n, 4);
  else
    return Error{Errc::invalid_argument, "msgpack: string longer than 4 GiB - 1"};
  out.append(s);
  return ok_status();
}

Status put_header(std::string& out, size_t n, unsigned char fix, unsigned char t16, unsigned char t32) {
  if (n <= 15)
    out += char(fix | n);
  else if (n <= 0xffff)
    put_be(out, t16, n, 2);
  else if (n <= 0xffffffff)
    put_be(out, t32, n, 4);
  else
    return Error{Errc::invalid_argument, "msgpack: more than 2^32 - 1 elements"};
  return ok_status();
}

Status encode_value(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::null: out += char(0xc0); return ok_status();
    case Value::Kind::boolean: out += char(v.b ? 0xc3 : 0xc2); return ok_status();
    case Value::Kind::integer: put_int(out, v.i); return ok_status();
    case Value::Kind::real: {
      uint64_t bits;
      std::memcpy(&bits, &v.d, sizeof bits);
      put_be(out, 0xcb, bits, 8);
      return ok_status();
    }
    case Value::Kind::string: return put_string(out, v.s);
    case Value::Kind::list: {
      if (Status st = put_header(out, v.items.size(), 0x90, 0xdc, 0xdd); !st) return st;
      for (const Value& item : v.items)
        if (Status st = encode_value(item, out); !st) return st;
      return ok_status();
    }
    case Value::Kind::map: {
      if (Status st = put_header(out, v.fields.size(), 0x80, 0xde, 0xdf); !st) return st;
      for (const auto& [key, value] : v.fields) {
        if (key.is_int) {
          put_int(out, key.i);
        } else if (Status st = put_string(out, key.s); !st) {
          return st;
        }
        if (Status st = encode_value(value, out); !st) return st;
      }
      return ok_status();
    }
  }
  return Error{Errc::invalid_argument, "msgpack: unknown value kind"};
}

}  // namespace

Result<Value> decode_msgpack_tree(std::string_view bytes) { return MsgpackParser(bytes).parse_document(); }

Status encode_msgpack_tree(const Value& v, std::string& out) {
  const size_t before = out.size();
  Status st = encode_value(v, out);
  if (!st) out.resize(before);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
