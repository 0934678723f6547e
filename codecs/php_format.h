#pragma once
// PHP serialize() text at the byte level, for both users of the format: the page codec
// (codecs/php_serializer.cpp) and the generic tree codec (corpus/php_tree.cpp).
// The grammar, as PHP 8 writes it (serialize_precision = -1, the default):
//   N;   b:0; b:1;   i:<int64>;   d:<double>;   s:<byte length>:"<bytes>";
//   a:<count>:{<key><value>...}   (keys i:..; or s:..;, no ';' after the '}')
// Strings are raw bytes counted in bytes: no escaping, so a '"' or a NUL inside is just data.
// The Reader reads what PHP's unserialize() reads for these (also "i:+5;", "d:.5;", older
// PHPs' 17-digit doubles); the writers write exactly what serialize() writes.
//
// Reader errors are parse_error "php serialize: <what> at byte <offset>".
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost::php {

// ---- writing ----

void put_null(std::string& out);                        // N;
void put_bool(std::string& out, bool b);                // b:0; b:1;
void put_int(std::string& out, int64_t i);              // i:-7;
void put_double(std::string& out, double d);            // d:0.1; d:5; d:1.0E+25; d:NAN; d:-INF;
void put_string(std::string& out, std::string_view s);  // s:3:"abc";
void put_array_header(std::string& out, size_t count);  // a:2:{  (then the pairs and '}')

// ---- reading ----

// Not thread-safe; the input must outlive the reader and the views it gives. After a false,
// error() holds the first failure. The *_body readers start after their "x:" prefix.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool at_end() const { return pos_ >= in_.size(); }
  char peek() const { return at_end() ? '\0' : in_[pos_]; }
  bool starts_with(std::string_view lit) const {
    return left() >= lit.size() && std::memcmp(in_.data() + pos_, lit.data(), lit.size()) == 0;
  }
  // Consumes `lit` or fails naming it.
  bool expect(std::string_view lit) {
    if (!starts_with(lit)) return fail_expected(lit);
    pos_ += lit.size();
    return true;
  }

  // Whole values, prefix included: "i:<int>;" and "s:<len>:\"<bytes>\";". One pass over locals
  // for the well-formed case (the page decoder's hot path); anything else is read again by
  // expect() and the *_body reader, so results and errors are theirs.
  bool int_value(int64_t& out);
  bool string_value(std::string_view& out);

  bool bool_body(bool& out);                // 0 or 1, then ';'
  bool int_body(int64_t& out);              // [+-]?[0-9]+ within int64, then ';'
  bool double_body(double& out);            // NAN, INF, -INF or a decimal, then ';'
  bool string_body(std::string_view& out);  // length ':"' bytes '";' (a view of the input)
  // count ":{"; a count the bytes left cannot hold, at `min_element_bytes` each, is refused
  // before anything is reserved for it. `start`: the offset of the array's 'a', for errors.
  bool array_body(uint64_t& count, size_t min_element_bytes, size_t start);

  // True at the end of the input; otherwise fails with "N trailing bytes after the value".
  bool finish();

  bool fail(std::string_view what) { return fail_at(pos_, what); }
  bool fail_at(size_t at, std::string_view what);
  size_t offset() const { return pos_; }
  Error error() const { return error_; }

 private:
  size_t left() const { return in_.size() - pos_; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  bool unsigned_number(uint64_t& n);
  bool long_unsigned_number(uint64_t& n);  // more than 18 digits: with the overflow check
  bool special_double(double& out);
  // The failure paths, out of line so that the readers above stay small enough to inline.
  bool fail_expected(std::string_view lit);
  bool fail_string_length(uint64_t len);
  bool fail_array_count(size_t start, uint64_t count);

  std::string_view in_;
  size_t pos_ = 0;
  Error error_{Errc::parse_error, ""};
};

// The hot readers are defined here, inline: a page decode calls them for every value, and a
// call into php_format.cpp for each costs more than the reading itself.

// uiv: [0-9]+, a length or count; anything above 2^63 is absurd for any input.
inline bool Reader::unsigned_number(uint64_t& n) {
  // Locals, not pos_: a char read may alias any member, so the compiler would reload pos_.
  const char* const begin = in_.data() + pos_;
  const char* const end = in_.data() + in_.size();
  const char* p = begin;
  uint64_t v = 0;
  for (; p != end && is_digit(*p); ++p) v = v * 10 + uint64_t(*p - '0');
  if (p == begin) return fail("expected a decimal length or count");
  // Up to 18 digits is below 10^18 < 2^63; longer ones (leading zeros allowed) are checked.
  if (p - begin > 18) return long_unsigned_number(n);
  n = v;
  pos_ += size_t(p - begin);
  return true;
}

// At most 18 digits in the fast paths: below 10^18 < 2^63, so no overflow check is needed.
inline bool Reader::int_value(int64_t& out) {
  const char* p = in_.data() + pos_;
  const char* const end = in_.data() + in_.size();
  if (end - p >= 4 && p[0] == 'i' && p[1] == ':') {
    p += 2;
    const bool negative = *p == '-';
    if (negative) ++p;
    const char* const digits = p;
    uint64_t v = 0;
    const char* const stop = end - digits > 18 ? digits + 18 : end;
    for (; p != stop && is_digit(*p); ++p) v = v * 10 + uint64_t(*p - '0');
    if (p != digits && p != end && *p == ';') {
      out = negative ? -int64_t(v) : int64_t(v);
      pos_ = size_t(p + 1 - in_.data());
      return true;
    }
  }
  return expect("i:") && int_body(out);
}

inline bool Reader::string_value(std::string_view& out) {
  const char* p = in_.data() + pos_;
  const char* const end = in_.data() + in_.size();
  if (end - p >= 4 && p[0] == 's' && p[1] == ':') {
    p += 2;
    const char* const digits = p;
    uint64_t len = 0;
    const char* const stop = end - digits > 18 ? digits + 18 : end;
    for (; p != stop && is_digit(*p); ++p) len = len * 10 + uint64_t(*p - '0');
    // p: ':' '"' <len bytes> '"' ';'
    if (p != digits && end - p >= 4 && len <= uint64_t(end - p - 4) && p[0] == ':' && p[1] == '"' &&
        p[2 + len] == '"' && p[3 + len] == ';') {
      out = std::string_view(p + 2, len);
      pos_ = size_t(p + 4 + len - in_.data());
      return true;
    }
  }
  return expect("s:") && string_body(out);
}

inline bool Reader::bool_body(bool& out) {
  if (at_end() || (in_[pos_] != '0' && in_[pos_] != '1')) return fail("expected 0 or 1 after b:");
  out = in_[pos_++] == '1';
  return expect(";");
}

// One pass: from_chars reads [-]?[0-9]+ and says which of the two errors it is.
inline bool Reader::int_body(int64_t& out) {
  const size_t start = pos_;
  size_t from = start;
  // from_chars takes '-' but not '+'; "+-5" is no integer.
  if (from < in_.size() && in_[from] == '+' && ++from < in_.size() && in_[from] == '-')
    return fail("expected an integer");
  const auto [end, ec] = std::from_chars(in_.data() + from, in_.data() + in_.size(), out);
  if (ec == std::errc::invalid_argument) return fail("expected an integer");
  if (ec != std::errc{}) return fail_at(start, "integer out of int64 range");
  pos_ = size_t(end - in_.data());
  return expect(";");
}

// [+-]? digits? (. digits?)? ([eE] [+-]? digits)? with at least one mantissa digit.
inline bool Reader::double_body(double& out) {
  const char c = peek();
  if ((c == 'N' || c == 'I' || c == '-') && special_double(out)) return true;
  const size_t start = pos_;
  size_t p = pos_;
  if (p < in_.size() && (in_[p] == '+' || in_[p] == '-')) ++p;
  size_t mantissa_digits = 0;
  while (p < in_.size() && is_digit(in_[p])) ++p, ++mantissa_digits;
  if (p < in_.size() && in_[p] == '.') {
    ++p;
    while (p < in_.size() && is_digit(in_[p])) ++p, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return fail("expected a double");
  if (p < in_.size() && (in_[p] == 'e' || in_[p] == 'E')) {
    ++p;
    if (p < in_.size() && (in_[p] == '+' || in_[p] == '-')) ++p;
    const size_t exp_digits = p;
    while (p < in_.size() && is_digit(in_[p])) ++p;
    if (p == exp_digits) return fail_at(p, "expected the exponent's digits");
  }
  const size_t from = in_[start] == '+' ? start + 1 : start;
  const auto [end, ec] = std::from_chars(in_.data() + from, in_.data() + p, out);
  if (ec != std::errc{} || end != in_.data() + p) return fail_at(start, "double out of range");
  pos_ = p;
  return expect(";");
}

inline bool Reader::string_body(std::string_view& out) {
  uint64_t len = 0;
  if (!unsigned_number(len) || !expect(":\"")) return false;
  if (len > left() || left() - len < 2) return fail_string_length(len);
  out = in_.substr(pos_, len);
  pos_ += len;
  return expect("\";");
}

inline bool Reader::array_body(uint64_t& count, size_t min_element_bytes, size_t start) {
  if (!unsigned_number(count) || !expect(":{")) return false;
  if (count > left() / min_element_bytes) return fail_array_count(start, count);
  return true;
}

}  // namespace hitcost::php
