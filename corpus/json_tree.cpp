// JSON (RFC 8259) <-> the generic value tree, as PHP reads it with json_decode($s, true) and
// writes it with json_encode($v, JSON_PRESERVE_ZERO_FRACTION).
//
// Decoder: a strict recursive descent over the bytes (its time is hitcost's "decode" cost per
// hit, so no DOM in between). Objects become maps through make_key ("7" -> int key 7, as PHP),
// arrays lists; an integer literal within int64 is an int, any other number a double (as PHP:
// 9223372036854775808 is a float there too). Duplicate keys are refused: PHP keeps the last,
// which a round trip could not reproduce.
//
// Encoder: byte for byte what PHP 8's json_encode writes with JSON_PRESERVE_ZERO_FRACTION —
// flags 0 would write 1.0 as "1", which reads back as an int; the tree keeps doubles apart.
// Escapes as PHP's default: '/' as "\/", every non-ASCII code point as \uXXXX (lowercase hex,
// surrogate pairs above U+FFFF), controls as \b \f \n \r \t or \u00XX, DEL raw.
#include <charconv>
#include <cmath>
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

class JsonParser {
 public:
  explicit JsonParser(std::string_view bytes)
      : begin_(bytes.data()), p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  Result<Value> parse_document() {
    Value root;
    skip_ws();
    if (!parse_value(root, 0)) return std::move(error_);
    skip_ws();
    if (p_ != end_) return fail_result("trailing bytes after the value");
    return root;
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  Error error_{Errc::parse_error, ""};

  bool fail(const char* what) { return fail_at(what, p_); }
  bool fail_at(const char* what, const char* at) {
    error_.message = "json: ";
    error_.message += what;
    error_.message += " at byte ";
    append_uint(error_.message, uint64_t(at - begin_));
    return false;
  }
  Error fail_result(const char* what) {
    fail(what);
    return std::move(error_);
  }

  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool literal(const char* word, size_t n) {
    if (size_t(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return fail("invalid literal");
    p_ += n;
    return true;
  }

  // `depth`: containers already open around this value (the root is at 0).
  bool parse_value(Value& out, size_t depth) {
    if (p_ == end_) return fail("unexpected end of input");
    switch (*p_) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': {
        std::string s;
        if (!parse_string(s)) return false;
        out = make_string(std::move(s));
        return true;
      }
      case 't':
        if (!literal("true", 4)) return false;
        out = make_bool(true);
        return true;
      case 'f':
        if (!literal("false", 5)) return false;
        out = make_bool(false);
        return true;
      case 'n':
        if (!literal("null", 4)) return false;
        out = make_null();
        return true;
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return parse_number(out);
        return fail("unexpected character");
    }
  }

  bool parse_array(Value& out, size_t depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 512");
    ++p_;  // '['
    std::vector<Value> items;
    skip_ws();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      out = make_list(std::move(items));
      return true;
    }
    for (;;) {
      items.emplace_back();
      skip_ws();
      if (!parse_value(items.back(), depth)) return false;
      skip_ws();
      if (p_ == end_) return fail("unterminated array");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == ']') {
        ++p_;
        break;
      }
      return fail("expected ',' or ']' in array");
    }
    out = make_list(std::move(items));
    return true;
  }

  bool parse_object(Value& out, size_t depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 512");
    const char* const start = p_;
    ++p_;  // '{'
    Fields fields;
    skip_ws();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      out = make_map(std::move(fields));
      return true;
    }
    for (;;) {
      skip_ws();
      if (p_ == end_) return fail("unterminated object");
      if (*p_ != '"') return fail("expected a string key");
      std::string key;
      if (!parse_string(key)) return false;
      skip_ws();
      if (p_ == end_ || *p_ != ':') return fail("expected ':' after key");
      ++p_;
      skip_ws();
      fields.emplace_back(make_key(std::move(key)), Value{});
      if (!parse_value(fields.back().second, depth)) return false;
      skip_ws();
      if (p_ == end_) return fail("unterminated object");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == '}') {
        ++p_;
        break;
      }
      return fail("expected ',' or '}' in object");
    }
    if (detail::find_duplicate_key(fields) != fields.size()) return fail_at("duplicate key in object", start);
    out = make_map(std::move(fields));
    return true;
  }

  // Four hex digits at p_ (after "\u"); advances past them.
  bool hex4(uint32_t& v) {
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

  bool parse_string(std::string& out) {
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
      if (c >= 0x80) {
        uint32_t cp = 0;
        const size_t n = utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_), size_t(end_ - p_), &cp);
        if (n == 0) return fail("invalid UTF-8 in string");
        out.append(p_, n);
        p_ += n;
        continue;
      }
      // A backslash escape.
      const char* const esc = p_;
      if (++p_ == end_) return fail("truncated escape");
      switch (*p_++) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
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
          break;
        }
        default: return fail_at("invalid escape", esc);
      }
    }
  }

  // RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  bool parse_number(Value& out) {
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
    if (is_integer) {
      int64_t i = 0;
      const auto r = std::from_chars(start, p_, i);
      if (r.ec == std::errc{} && r.ptr == p_) {
        out = make_int(i);
        return true;
      }
      // Outside int64: PHP makes it a float; so do we (below).
    }
    double d = 0;
    const auto r = std::from_chars(start, p_, d);
    if (r.ec == std::errc::result_out_of_range) {
      d = out_of_range_double(start, p_);
    } else if (r.ec != std::errc{} || r.ptr != p_) {
      return fail_at("unreadable number", start);
    }
    out = make_real(d);
    return true;
  }

  // from_chars gives no value when the literal is beyond a double: PHP (strtod) gives +-INF
  // for too large and +-0 for too small. Which one: the decimal exponent of the first
  // significant digit (too large numbers have it near +308 or above, too small near -324).
  static double out_of_range_double(const char* s, const char* end) {
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
};

// PHP's json_encode of a double (serialize_precision -1): the shortest digits that read back,
// placed as php_gcvt does with precision 17 — plain when the decimal point position `decpt`
// (value = 0.DIGITS x 10^decpt) is within -3..17, else d.ddde+X / d.0e-X — then ".0" when
// the text has no '.' (JSON_PRESERVE_ZERO_FRACTION), so it reads back as a double.
void append_php_double(double d, std::string& out) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  // buf: -?D(.DDD)?e[+-]XX
  const char* p = buf;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  char digits[32];
  size_t n = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  int exponent = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exponent);
  const int decpt = exponent + 1;
  if (decpt < 0 ? decpt < -3 : decpt > 17) {
    out += digits[0];
    out += '.';
    if (n == 1)
      out += '0';
    else
      out.append(digits + 1, n - 1);
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    append_int(out, exponent < 0 ? -int64_t(exponent) : exponent);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(size_t(-decpt), '0');
    out.append(digits, n);
  } else if (size_t(decpt) >= n) {
    out.append(digits, n);
    out.append(size_t(decpt) - n, '0');
    out += ".0";
  } else {
    out.append(digits, size_t(decpt));
    out += '.';
    out.append(digits + decpt, n - size_t(decpt));
  }
}

void append_u_escape(uint32_t unit, std::string& out) {
  out += "\\u";
  out += kHex[(unit >> 12) & 15];
  out += kHex[(unit >> 8) & 15];
  out += kHex[(unit >> 4) & 15];
  out += kHex[unit & 15];
}

Status append_php_json_string(std::string_view s, std::string& out) {
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
    if (c >= 0x80) {
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
      i += n;
    } else {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '/': out += "\\/"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: append_u_escape(c, out);
      }
      ++i;
    }
    run = i;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
  return ok_status();
}

Status encode_value(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::null: out += "null"; return ok_status();
    case Value::Kind::boolean: out += v.b ? "true" : "false"; return ok_status();
    case Value::Kind::integer: append_int(out, v.i); return ok_status();
    case Value::Kind::real:
      if (!std::isfinite(v.d)) return Error{Errc::invalid_argument, "json: NaN or infinity cannot be written"};
      append_php_double(v.d, out);
      return ok_status();
    case Value::Kind::string: return append_php_json_string(v.s, out);
    case Value::Kind::list: {
      out += '[';
      for (size_t k = 0; k < v.items.size(); ++k) {
        if (k) out += ',';
        if (Status st = encode_value(v.items[k], out); !st) return st;
      }
      out += ']';
      return ok_status();
    }
    case Value::Kind::map: {
      out += '{';
      for (size_t k = 0; k < v.fields.size(); ++k) {
        if (k) out += ',';
        const MapKey& key = v.fields[k].first;
        if (key.is_int) {
          out += '"';
          append_int(out, key.i);
          out += '"';
        } else if (Status st = append_php_json_string(key.s, out); !st) {
          return st;
        }
        out += ':';
        if (Status st = encode_value(v.fields[k].second, out); !st) return st;
      }
      out += '}';
      return ok_status();
    }
  }
  return Error{Errc::invalid_argument, "json: unknown value kind"};
}

}  // namespace

Result<Value> decode_json_tree(std::string_view bytes) { return JsonParser(bytes).parse_document(); }

Status encode_json_tree(const Value& v, std::string& out) {
  const size_t before = out.size();
  Status st = encode_value(v, out);
  if (!st) out.resize(before);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
