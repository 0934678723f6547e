#include "codecs/msgpack_format.h"

#include <bit>
#include <cstring>
#include <limits>

#include "codecs/text_append.h"

namespace hitcost::msgpack {
namespace {

// `type` then the low `n` bytes of `v`, big-endian.
void put_be(std::string& out, unsigned char type, uint64_t v, size_t n) {
  char buf[9];
  buf[0] = char(type);
  for (size_t k = 0; k < n; ++k) buf[1 + k] = char(v >> (8 * (n - 1 - k)));
  out.append(buf, n + 1);
}

// A fix form (`fix` | n) up to 15, else the 16- or 32-bit form.
void put_header(std::string& out, size_t n, unsigned char fix, unsigned char t16, unsigned char t32) {
  if (n <= 15)
    out += char(fix | n);
  else if (n <= 0xffff)
    put_be(out, t16, n, 2);
  else
    put_be(out, t32, n, 4);
}

}  // namespace

void put_nil(std::string& out) { out += char(0xc0); }
void put_bool(std::string& out, bool b) { out += char(b ? 0xc3 : 0xc2); }

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

void put_float64(std::string& out, double d) { put_be(out, 0xcb, std::bit_cast<uint64_t>(d), 8); }

void put_string(std::string& out, std::string_view s) {
  const size_t n = s.size();
  if (n <= 31)
    out += char(0xa0 | n);
  else if (n <= 0xff)
    put_be(out, 0xd9, n, 1);
  else if (n <= 0xffff)
    put_be(out, 0xda, n, 2);
  else
    put_be(out, 0xdb, n, 4);
  out.append(s);
}

void put_array_header(std::string& out, size_t count) { put_header(out, count, 0x90, 0xdc, 0xdd); }
void put_map_header(std::string& out, size_t count) { put_header(out, count, 0x80, 0xde, 0xdf); }

// ---- Reader ----

bool Reader::fail_at(const char* what, size_t at) {
  if (!error_.message.empty()) return false;  // the first error is the one that counts
  error_.message = "msgpack: ";
  error_.message += what;
  error_.message += " at byte ";
  append_uint(error_.message, at);
  return false;
}

bool Reader::finish() { return p_ == end_ || fail("trailing bytes after the value"); }

// Big-endian unsigned of `n` bytes at p_ (the caller checked they are there).
uint64_t Reader::read_be(size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k) v = (v << 8) | p_[k];
  p_ += n;
  return v;
}

// str or bin: a `len_bytes` length, then that many bytes.
bool Reader::bytes(size_t len_bytes, Item& item) {
  if (!need(len_bytes)) return false;
  const uint64_t len = read_be(len_bytes);
  if (len > left()) return fail("string length beyond the input");
  item.s = std::string_view(reinterpret_cast<const char*>(p_), size_t(len));
  p_ += len;
  return true;
}

bool Reader::container(Item::Kind kind, uint64_t count, Item& item) {
  item.kind = kind;
  item.count = count;
  if (kind == Item::Kind::array && count > left()) return fail_at("array count beyond the input", item.at);
  if (kind == Item::Kind::map && count > left() / 2) return fail_at("map count beyond the input", item.at);
  return true;
}

bool Reader::next(Item& item) {
  if (!need(1)) return false;
  item = Item{};
  item.at = offset();
  const unsigned char t = *p_++;
  if (t <= 0x7f || t >= 0xe0) {  // positive and negative fixint
    item.kind = Item::Kind::integer;
    item.i = int8_t(t);  // 00..7f are 0..127, e0..ff -32..-1
    return true;
  }
  if (t >= 0xa0 && t <= 0xbf) {  // fixstr
    item.kind = Item::Kind::str;
    const size_t len = t & 0x1f;
    if (len > left()) return fail("string length beyond the input");
    item.s = std::string_view(reinterpret_cast<const char*>(p_), len);
    p_ += len;
    return true;
  }
  if (t >= 0x90 && t <= 0x9f) return container(Item::Kind::array, t & 0x0f, item);
  if (t >= 0x80 && t <= 0x8f) return container(Item::Kind::map, t & 0x0f, item);
  if (t >= 0xcc && t <= 0xd3) return fixed_int(t, item);
  return sized(t, item);
}

// uint 8/16/32/64 (cc..cf) and int 8/16/32/64 (d0..d3).
bool Reader::fixed_int(unsigned char t, Item& item) {
  const bool is_signed = t >= 0xd0;
  const size_t n = size_t(1) << ((t - 0xcc) & 3);
  if (!need(n)) return false;
  const uint64_t u = read_be(n);
  if (is_signed) {
    const unsigned shift = unsigned(64 - 8 * n);  // sign-extend from n bytes
    item.kind = Item::Kind::integer;
    item.i = int64_t(u << shift) >> shift;
    return true;
  }
  item.kind = u > uint64_t(std::numeric_limits<int64_t>::max()) ? Item::Kind::big_uint : Item::Kind::integer;
  item.u = u;
  item.i = int64_t(u);
  return true;
}

// The other type bytes from 0xc0 to 0xdf.
bool Reader::sized(unsigned char t, Item& item) {
  using K = Item::Kind;
  switch (t) {
    case 0xc0: item.kind = K::nil; return true;
    case 0xc2:
    case 0xc3:
      item.kind = K::boolean;
      item.b = t == 0xc3;
      return true;
    case 0xca:  // float 32
      if (!need(4)) return false;
      item.kind = K::float32;
      item.d = double(std::bit_cast<float>(uint32_t(read_be(4))));
      return true;
    case 0xcb:  // float 64
      if (!need(8)) return false;
      item.kind = K::float64;
      item.d = std::bit_cast<double>(read_be(8));
      return true;
    case 0xd9:
    case 0xda:
    case 0xdb: item.kind = K::str; return bytes(size_t(1) << (t - 0xd9), item);  // str 8/16/32
    case 0xc4:
    case 0xc5:
    case 0xc6: item.kind = K::bin; return bytes(size_t(1) << (t - 0xc4), item);  // bin 8/16/32
    case 0xdc:
    case 0xdd:  // array 16/32
      if (!need(t == 0xdc ? 2 : 4)) return false;
      return container(K::array, read_be(t == 0xdc ? 2 : 4), item);
    case 0xde:
    case 0xdf:  // map 16/32
      if (!need(t == 0xde ? 2 : 4)) return false;
      return container(K::map, read_be(t == 0xde ? 2 : 4), item);
    case 0xc1: return fail_at("unused type byte 0xc1", item.at);
    default: return fail_at("ext type (not a PHP array value)", item.at);  // c7-c9, d4-d8
  }
}

}  // namespace hitcost::msgpack
