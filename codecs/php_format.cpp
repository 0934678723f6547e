#include "codecs/php_format.h"

#include <bit>
#include <limits>
#include <utility>

#include "codecs/php_double.h"
#include "codecs/text_append.h"

namespace hitcost::php {
namespace {

// What unserialize("d:NAN;") gives (PHP's ZEND_NAN): the positive quiet NaN.
constexpr uint64_t kPhpNanBits = 0x7ff8000000000000ull;

}  // namespace

void put_null(std::string& out) { out += "N;"; }
void put_bool(std::string& out, bool b) { out += b ? "b:1;" : "b:0;"; }

void put_int(std::string& out, int64_t i) {
  out += "i:";
  append_int(out, i);
  out += ';';
}

// serialize() has no ".0" (d:5;) and writes 1.0E+25 with a capital E; every NaN, whatever its
// sign or payload, is NAN.
void put_double(std::string& out, double d) {
  out += "d:";
  if (d != d)
    out += "NAN";
  else if (d == std::numeric_limits<double>::infinity())
    out += "INF";
  else if (d == -std::numeric_limits<double>::infinity())
    out += "-INF";
  else
    append_php_style_double(out, d, 'E', false);
  out += ';';
}

void put_string(std::string& out, std::string_view s) {
  out += "s:";
  append_uint(out, s.size());
  out += ":\"";
  out += s;
  out += "\";";
}

void put_array_header(std::string& out, size_t count) {
  out += "a:";
  append_uint(out, count);
  out += ":{";
}

// ---- Reader ----

bool Reader::fail_at(size_t at, std::string_view what) {
  if (!error_.message.empty()) return false;  // the first error is the one that counts
  error_.message = "php serialize: " + std::string(what) + " at byte " + std::to_string(at);
  return false;
}

bool Reader::fail_expected(std::string_view lit) { return fail("expected \"" + std::string(lit) + "\""); }

bool Reader::finish() {
  if (at_end()) return true;
  return fail(std::to_string(left()) + " trailing bytes after the value");
}

// uiv: [0-9]+, a length or count; anything above 2^63 is absurd for any input.
bool Reader::long_unsigned_number(uint64_t& n) {
  const size_t start = pos_;
  n = 0;
  while (pos_ < in_.size() && is_digit(in_[pos_])) {
    if (n > (uint64_t(INT64_MAX) - 9) / 10) return fail_at(start, "length or count too large");
    n = n * 10 + uint64_t(in_[pos_] - '0');
    ++pos_;
  }
  return true;
}

// NAN; INF; -INF; as serialize() writes them.
bool Reader::special_double(double& out) {
  for (const auto& [text, bits] : {std::pair<std::string_view, uint64_t>{"NAN;", kPhpNanBits},
                                   {"INF;", 0x7ff0000000000000ull},
                                   {"-INF;", 0xfff0000000000000ull}}) {
    if (starts_with(text)) {
      out = std::bit_cast<double>(bits);
      pos_ += text.size();
      return true;
    }
  }
  return false;
}

bool Reader::fail_string_length(uint64_t len) {
  return fail("string length " + std::to_string(len) + " runs past the end (" + std::to_string(left()) +
              " bytes left)");
}

bool Reader::fail_array_count(size_t start, uint64_t count) {
  return fail_at(start, "array count " + std::to_string(count) + " exceeds what the " + std::to_string(left()) +
                            " bytes left can hold");
}

}  // namespace hitcost::php
