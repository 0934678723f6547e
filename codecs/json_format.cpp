#include "codecs/json_format.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "codecs/php_double.h"
#include "codecs/text_append.h"

namespace hitcost::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length (1..4) of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. `avail` >= 1.
size_t utf8_sequence_length(const unsigned char* p, size_t avail, uint32_t* code_point) {
  const unsigned char c = p[0];
  if (c < 0x80) {
    *code_point = c;
    return 1;
  }
  auto cont = [&](size_t k) { return k < avail && (p[k] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) {
    if (!cont(1)) return 0;
    *code_point = (uint32_t(c & 0x1F) << 6) | (p[1] & 0x3F);
    return 2;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    const uint32_t cp = (uint32_t(c & 0x0F) << 12) | (uint32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    *code_point = cp;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const uint32_t cp =
        (uint32_t(c & 0x07) << 18) | (uint32_t(p[1] & 0x3F) << 12) | (uint32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0;
    *code_point = cp;
    return 4;
  }
  return 0;  // a continuation byte, C0/C1 (always overlong) or F5..FF
}

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

void append_u_escape(uint32_t unit, std::string& out) {
  out += "\\u";
  out += kHex[(unit >> 12) & 15];
  out += kHex[(unit >> 8) & 15];
  out += kHex[(unit >> 4) & 15];
  out += kHex[unit & 15];
}

// The two-character escape of an ASCII byte both writers escape, or 0 for \u00XX.
char short_escape(unsigned char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return 0;
  }
}

void append_ascii_escape(unsigned char c, std::string& out) {
  if (const char e = short_escape(c)) {
    out += '\\';
    out += e;
  } else {
    append_u_escape(c, out);
  }
}

// from_chars gives no value when the literal is beyond a double: PHP (strtod) gives +-INF
// for too large and +-0 for too small. Which one: the decimal exponent of the first
// significant digit (too large numbers have it near +308 or above, too small near -324).
double out_of_range_double(const char* s, const char* end) {
  const bool negative = *s == '-';
  int64_t magnitude = 0;  // decimal exponent of the first nonzero digit, before 'e'
  bool seen_nonzero = false, after_point = false;
  const char* p = s + (negative ? 1 : 0);
  for (; p != end && *p != 'e' && *p != 'E'; ++p) {
    if (*p == '.') {
      after_point = true;
      continue;
    }
    if (!seen_nonzero) {
      if (*p != '0') {
        seen_nonzero = true;
        if (after_point) --magnitude;
      } else if (after_point) {
        --magnitude;
      }
    } else if (!after_point) {
      ++magnitude;
    }
  }
  int64_t exponent = 0;
  if (p != end) {  // 'e' [+-]? digits; saturate, the sign is what counts
    ++p;
    const bool exp_negative = *p == '-';
    if (*p == '+' || *p == '-') ++p;
    for (; p != end; ++p)
      if (exponent < 1'000'000) exponent = exponent * 10 + (*p - '0');
    if (exp_negative) exponent = -exponent;
  }
  const bool too_large = magnitude + exponent > 0;
  const double v = too_large ? std::numeric_limits<double>::infinity() : 0.0;
  return negative ? -v : v;
}

}  // namespace

void append_string(std::string_view s, std::string& out) {
  out += '"';
  size_t run = 0;  // start of the current run of bytes that need no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    append_ascii_escape(c, out);
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

Status append_php_string(std::string_view s, std::string& out) {
  out += '"';
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  size_t run = 0;  // start of the current run of bytes written as they are
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = b[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '/') {
      ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    if (c < 0x80) {
      append_ascii_escape(c, out);
      run = ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_sequence_length(b + i, s.size() - i, &cp);
    if (n == 0) {
      std::string why = "json: string is not valid UTF-8 at byte ";
      append_uint(why, i);
      return Error{Errc::invalid_argument, std::move(why)};
    }
    if (cp >= 0x10000) {
      append_u_escape(0xD800 + ((cp - 0x10000) >> 10), out);
      append_u_escape(0xDC00 + ((cp - 0x10000) & 0x3FF), out);
    } else {
      append_u_escape(cp, out);
    }
    run = i += n;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
  return ok_status();
}

void append_php_double(double d, std::string& out) { append_php_style_double(out, d, 'e', true); }

// ---- Reader ----

bool Reader::fail_at(const char* what, const char* at) {
  if (!error_.message.empty()) return false;  // the first error is the one that counts
  error_.message = "json: ";
  error_.message += what;
  error_.message += " at byte ";
  append_uint(error_.message, uint64_t(at - begin_));
  return false;
}

void Reader::skip_ws() {
  while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

char Reader::peek() {
  skip_ws();
  return p_ == end_ ? '\0' : *p_;
}

bool Reader::finish() {
  skip_ws();
  return p_ == end_ || fail("trailing bytes after the value");
}

bool Reader::literal(std::string_view word) {
  if (size_t(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return fail("invalid literal");
  p_ += word.size();
  return true;
}

Reader::Step Reader::array_step(bool first) {
  skip_ws();
  if (first) {
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return Step::done;
    }
    return Step::item;
  }
  if (p_ == end_) return fail("unterminated array"), Step::error;
  if (*p_ == ',') {
    ++p_;
    return Step::item;
  }
  if (*p_ == ']') {
    ++p_;
    return Step::done;
  }
  return fail("expected ',' or ']' in array"), Step::error;
}

Reader::Step Reader::object_step(bool first, std::string& key) {
  skip_ws();
  if (first) {
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return Step::done;
    }
  } else {
    if (p_ == end_) return fail("unterminated object"), Step::error;
    if (*p_ == '}') {
      ++p_;
      return Step::done;
    }
    if (*p_ != ',') return fail("expected ',' or '}' in object"), Step::error;
    ++p_;
  }
  return object_key(key) ? Step::item : Step::error;
}

// `"key" :` and the whitespace around them.
bool Reader::object_key(std::string& key) {
  skip_ws();
  if (p_ == end_) return fail("unterminated object");
  if (*p_ != '"') return fail("expected a string key");
  key.clear();
  if (!string(key)) return false;
  skip_ws();
  if (p_ == end_ || *p_ != ':') return fail("expected ':' after key");
  ++p_;
  skip_ws();
  return true;
}

// Four hex digits at p_ (after "\u"); advances past them.
bool Reader::hex4(uint32_t& v) {
  if (end_ - p_ < 4) return fail("truncated \\u escape");
  v = 0;
  for (int k = 0; k < 4; ++k) {
    const char c = *p_++;
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= uint32_t(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= uint32_t(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= uint32_t(c - 'A' + 10);
    else
      return fail_at("invalid hex digit in \\u escape", p_ - 1);
  }
  return true;
}

// At a backslash: appends what the escape stands for (a \u pair as one UTF-8 sequence).
bool Reader::escape(std::string& out) {
  const char* const esc = p_;
  if (++p_ == end_) return fail("truncated escape");
  const char c = *p_++;
  if (c != 'u') {
    for (const char unescaped : {'"', '\\', '/', '\b', '\f', '\n', '\r', '\t'}) {
      if (short_escape(static_cast<unsigned char>(unescaped)) == c) {
        out += unescaped;
        return true;
      }
    }
    return fail_at("invalid escape", esc);
  }
  uint32_t cp = 0;
  if (!hex4(cp)) return false;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return fail_at("unpaired low surrogate escape", esc);
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    uint32_t low = 0;
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return fail_at("unpaired high surrogate escape", esc);
    p_ += 2;
    if (!hex4(low)) return false;
    if (low < 0xDC00 || low > 0xDFFF) return fail_at("unpaired high surrogate escape", esc);
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(cp, out);
  return true;
}

bool Reader::string(std::string& out) {
  ++p_;  // '"'
  for (;;) {
    // A run of bytes copied as they are: ASCII other than '"', '\\' and controls.
    const char* run = p_;
    while (p_ != end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++p_;
    }
    out.append(run, size_t(p_ - run));
    if (p_ == end_) return fail("unterminated string");
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      return true;
    }
    if (c < 0x20) return fail("raw control character in string");
    if (c == '\\') {
      if (!escape(out)) return false;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_), size_t(end_ - p_), &cp);
    if (n == 0) return fail("invalid UTF-8 in string");
    out.append(p_, n);
    p_ += n;
  }
}

// RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
bool Reader::number(Number& out) {
  const char* const start = p_;
  auto digit = [&] { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; };
  if (*p_ == '-') ++p_;
  if (!digit()) return fail("expected a digit");
  if (*p_ == '0') {
    ++p_;
    if (digit()) return fail("leading zero in number");
  } else {
    while (digit()) ++p_;
  }
  bool is_integer = true;
  if (p_ != end_ && *p_ == '.') {
    is_integer = false;
    ++p_;
    if (!digit()) return fail("expected a digit after '.'");
    while (digit()) ++p_;
  }
  if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
    is_integer = false;
    ++p_;
    if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (!digit()) return fail("expected a digit in exponent");
    while (digit()) ++p_;
  }
  out = Number{};
  // Outside int64 an integer literal is a double, as in PHP.
  if (is_integer) {
    const auto r = std::from_chars(start, p_, out.i);
    if (r.ec == std::errc{} && r.ptr == p_) {
      out.is_int = true;
      return true;
    }
  }
  const auto r = std::from_chars(start, p_, out.d);
  if (r.ec == std::errc::result_out_of_range) {
    out.d = out_of_range_double(start, p_);
  } else if (r.ec != std::errc{} || r.ptr != p_) {
    return fail_at("unreadable number", start);
  }
  return true;
}

}  // namespace hitcost::json
