#pragma once
// MessagePack at the byte level, for both users of the format: the page codec
// (codecs/msgpack_serializer.cpp) and the generic tree codec (corpus/msgpack_tree.cpp).
// Writers pick the smallest encoding, as php-msgpack's msgpack_pack() and msgpack-cxx's
// packer do (so hitcost's bytes are theirs); the Reader reads any value one header at a time
// with every length and count checked against the bytes left. Every number is big-endian.
//
// Reader errors are parse_error "msgpack: <what> at byte <offset>".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost::msgpack {

// ---- writing ----

// The most a str, array or map header can count (32-bit lengths): callers with longer
// values refuse them before calling the writers, which would truncate.
inline constexpr uint64_t kMaxLength = 0xffffffff;

void put_nil(std::string& out);
void put_bool(std::string& out, bool b);
// positive fixint, uint 8..64 for n >= 0; negative fixint, int 8..64 below.
void put_int(std::string& out, int64_t i);
// float 64 always: a whole-number double must stay a double for PHP (msgpack-cxx 4's
// pack_double would write 5.0 as an int).
void put_float64(std::string& out, double d);
void put_string(std::string& out, std::string_view s);  // fixstr, str 8/16/32
void put_array_header(std::string& out, size_t count);  // fixarray, array 16/32
void put_map_header(std::string& out, size_t count);    // fixmap, map 16/32 (count = entries)

// ---- reading ----

// One value's header as the Reader saw it. Scalars are whole; a str or bin is its bytes (a
// view into the input); an array or map is its count, its elements follow in the input.
struct Item {
  enum class Kind : uint8_t { nil, boolean, integer, big_uint, float32, float64, str, bin, array, map };
  Kind kind = Kind::nil;
  size_t at = 0;       // offset of its type byte
  bool b = false;      // boolean
  int64_t i = 0;       // integer: every int and uint that fits int64
  uint64_t u = 0;      // big_uint: a uint 64 above INT64_MAX
  double d = 0;        // float32 (widened exactly) and float64
  std::string_view s;  // str, bin
  uint64_t count = 0;  // array: elements; map: entries (each a key then a value)
};

// Not thread-safe; the input must outlive the reader and the Items it gives. After a false,
// error() holds the first failure.
class Reader {
 public:
  explicit Reader(std::string_view bytes)
      : begin_(reinterpret_cast<const unsigned char*>(bytes.data())), p_(begin_), end_(begin_ + bytes.size()) {}

  // The next value's header. Refuses ext types (no PHP value is one), the unused byte 0xc1,
  // truncation, and counts the bytes left cannot hold (an element takes at least one byte, a
  // map entry two), so nothing is reserved for what is not there.
  bool next(Item& item);
  // True at the end of the input; otherwise fails with "trailing bytes after the value".
  bool finish();

  bool fail(const char* what) { return fail_at(what, offset()); }
  bool fail_at(const char* what, size_t at);
  size_t offset() const { return size_t(p_ - begin_); }
  Error error() const { return error_; }

 private:
  size_t left() const { return size_t(end_ - p_); }
  bool need(size_t n) { return left() >= n || fail("truncated"); }
  uint64_t read_be(size_t n);
  bool fixed_int(unsigned char t, Item& item);
  bool sized(unsigned char t, Item& item);
  bool bytes(size_t len_bytes, Item& item);
  bool container(Item::Kind kind, uint64_t count, Item& item);

  const unsigned char* begin_;
  const unsigned char* p_;
  const unsigned char* end_;
  Error error_{Errc::parse_error, ""};
};

}  // namespace hitcost::msgpack
