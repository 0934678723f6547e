#pragma once
// igbinary format version 2 (php-igbinary 3.x) at the byte level, for both users of the format:
// the page codec (codecs/igbinary_serializer.cpp) and the generic tree codec
// (corpus/igbinary_tree.cpp). The header, the type bytes, the Writer (with the two tables PHP's
// writer keeps) and the Cursor that reads numbers and type bytes with bounds checks; the string
// and array id tables a reader needs differ between the two (the tree replays referenced
// arrays), so they stay with each. Every number after a type byte is big-endian; the
// 8/16/32-bit variants of a type are consecutive bytes.
//
// Cursor errors are "igbinary: <what> at byte <offset>", parse_error unless said otherwise.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"

namespace hitcost::igbinary {

enum Type : uint8_t {
  kNull = 0x00,
  kArrayRef8 = 0x01,  // the same array again, by id: 01/02/03 for u8/u16/u32 ids
  kArrayRef16 = 0x02,
  kArrayRef32 = 0x03,
  kFalse = 0x04,
  kTrue = 0x05,
  kPos8 = 0x06,  // non-negative ints: 06/08/0a (u8/u16/u32), 20 (u64)
  kNeg8 = 0x07,  // negative ints as their magnitude: 07/09/0b, 21
  kPos16 = 0x08,
  kNeg16 = 0x09,
  kPos32 = 0x0a,
  kNeg32 = 0x0b,
  kDouble = 0x0c,  // 8 bytes, the IEEE bits
  kEmptyString = 0x0d,
  kStringId8 = 0x0e,  // a string seen before, by id: 0e/0f/10
  kStringId16 = 0x0f,
  kStringId32 = 0x10,
  kString8 = 0x11,  // a new string, length then bytes: 11/12/13
  kString16 = 0x12,
  kString32 = 0x13,
  kArray8 = 0x14,  // an array, count then (key, value) pairs: 14/15/16
  kArray16 = 0x15,
  kArray32 = 0x16,
  kPos64 = 0x20,
  kNeg64 = 0x21,
  kReference = 0x25,  // a PHP reference (refused by both readers)
  kEnum = 0x27,       // a PHP enum case (refused)
};

inline constexpr char kHeader[4] = {0, 0, 0, 2};

// The most a string length or an array count can be (32-bit): callers refuse more first.
inline constexpr uint64_t kMaxLength = 0xffffffff;

// The header's own errors: "no 00 00 00 0v header", "format version N not supported".
Status check_header(std::string_view bytes);

// Writes values as php-igbinary's igbinary_serialize() does with compact_strings on (its
// default): every non-empty string gets an id in stream order when first written and is
// written again as a back-reference; arrays get ids in the order they start, and PHP's one
// shared empty array is written once and then referred to. Not thread-safe; the strings
// written must outlive the writer (it keeps views of them).
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void header() { out_.append(kHeader, 4); }
  void null() { byte(kNull); }
  void boolean(bool b) { byte(b ? kTrue : kFalse); }
  void integer(int64_t v);          // the smallest width; negative ones as their magnitude
  void dbl(double d);               // 0c + the IEEE bits
  void string(std::string_view s);  // s.size() <= kMaxLength
  // Opens an array of `n` (key, value) pairs (n <= kMaxLength); false when it was written as a
  // reference to the shared empty array (nothing follows then).
  bool array(size_t n);
  void reserve_strings(size_t n) { ids_.reserve(n); }

 private:
  void byte(uint64_t b) { out_.push_back(static_cast<char>(static_cast<uint8_t>(b))); }
  void be(uint64_t v, size_t width);
  void sized(uint8_t type8, uint64_t v);

  std::string& out_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  uint32_t next_array_id_ = 0;
  bool has_empty_ = false;
  uint32_t empty_id_ = 0;
};

// Reads type bytes and the numbers after them, every read bounds-checked. After a false,
// error() holds the first failure. Not thread-safe; the input must outlive the cursor.
class Cursor {
 public:
  Cursor(std::string_view in, size_t pos) : in_(in), pos_(pos) {}

  size_t pos() const { return pos_; }
  size_t left() const { return in_.size() - pos_; }
  bool at_end() const { return pos_ >= in_.size(); }
  std::string_view input() const { return in_; }

  // Inline (below): a page decode calls these for every value.
  bool peek(uint8_t& t);               // "unexpected end of input"
  bool type(uint8_t& t);               // peek, then past it
  bool be(size_t width, uint64_t& v);  // `width` bytes big-endian
  std::string_view take(size_t n);     // n <= left(): the next n bytes, a view
  // The int after an int type byte (06..0b, 20, 21) that started at `at`.
  bool int_body(uint8_t type, size_t at, int64_t& out);

  static bool is_int_type(uint8_t t) { return (t >= kPos8 && t <= kNeg32) || t == kPos64 || t == kNeg64; }
  // The width of an 8/16/32-bit family member: type8 -> 1, type8+1 -> 2, type8+2 -> 4.
  static size_t width_of(uint8_t type, uint8_t type8) { return size_t(1) << (type - type8); }
  // True when `t` is type8, type8+1 or type8+2.
  static bool in_family(uint8_t t, uint8_t type8) { return t >= type8 && t <= type8 + 2; }

  bool fail(std::string_view what) { return fail_at(pos_, what); }
  bool fail_at(size_t at, std::string_view what, Errc code = Errc::parse_error);
  bool fail_with(const Error& e);  // an error found elsewhere (a replay of the same input)
  const Error& error() const { return error_; }

 private:
  bool fail_short(size_t width);  // out of line: keeps be() small

  std::string_view in_;
  size_t pos_;
  Error error_{Errc::parse_error, ""};
};

inline bool Cursor::peek(uint8_t& t) {
  if (at_end()) return fail("unexpected end of input");
  t = static_cast<uint8_t>(in_[pos_]);
  return true;
}

inline bool Cursor::type(uint8_t& t) {
  if (!peek(t)) return false;
  ++pos_;
  return true;
}

inline bool Cursor::be(size_t width, uint64_t& v) {
  if (left() < width) return fail_short(width);
  v = 0;
  for (size_t k = 0; k < width; ++k) v = (v << 8) | static_cast<uint8_t>(in_[pos_ + k]);
  pos_ += width;
  return true;
}

inline std::string_view Cursor::take(size_t n) {
  const std::string_view v = in_.substr(pos_, n);
  pos_ += v.size();
  return v;
}

inline bool Cursor::int_body(uint8_t type, size_t at, int64_t& out) {
  const bool negative = type == kNeg8 || type == kNeg16 || type == kNeg32 || type == kNeg64;
  const size_t width = type == kPos64 || type == kNeg64 ? 8 : size_t(1) << ((type - kPos8) / 2);
  uint64_t magnitude = 0;
  if (!be(width, magnitude)) return false;
  if (!negative) {
    if (magnitude > uint64_t(INT64_MAX)) return fail_at(at, "integer above INT64_MAX");
    out = static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > uint64_t(INT64_MAX) + 1) return fail_at(at, "integer below INT64_MIN");
    out = static_cast<int64_t>(uint64_t{0} - magnitude);
  }
  return true;
}

}  // namespace hitcost::igbinary
