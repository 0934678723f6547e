// PHP serialize() text <-> the generic value tree (corpus/tree_codec.h).
// The grammar, as PHP 8 writes it (serialize_precision = -1, the default):
//   N;   b:0; b:1;   i:<int64>;   d:<double>;   s:<byte length>:"<bytes>";
//   a:<count>:{<key><value>...}   (keys i:..; or s:..;, no ';' after the '}')
// Strings are raw bytes counted in bytes: no escaping, so a '"' or a NUL inside is just data.
// The decoder reads what PHP's unserialize() reads for these types (also "i:+5;", "d:.5;",
// older PHPs' 17-digit doubles); the encoder writes exactly what serialize() writes.
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

// What unserialize("d:NAN;") gives (PHP's ZEND_NAN): the positive quiet NaN.
constexpr uint64_t kPhpNanBits = 0x7ff8000000000000ull;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class PhpReader {
 public:
  explicit PhpReader(std::string_view in) : in_(in) {}

  Result<Value> read_document() {
    Value v;
    if (!value(v, 0)) return error_;
    if (pos_ != in_.size())
      return Error{Errc::parse_error, "php serialize: " + std::to_string(in_.size() - pos_) +
                                          " trailing bytes after the value at byte " + std::to_string(pos_)};
    return v;
  }

 private:
  bool fail(std::string what) { return fail_at(pos_, std::move(what)); }
  bool fail_at(size_t at, std::string what) {
    error_ = Error{Errc::parse_error, "php serialize: " + what + " at byte " + std::to_string(at)};
    return false;
  }
  size_t left() const { return in_.size() - pos_; }

  // Consumes `lit` or fails naming it.
  bool expect(std::string_view lit) {
    if (in_.substr(pos_, lit.size()) != lit) return fail("expected \"" + std::string(lit) + "\"");
    pos_ += lit.size();
    return true;
  }

  // uiv: [0-9]+, a length or count; anything above 2^63 is absurd for any input.
  bool unsigned_number(uint64_t& n) {
    const size_t start = pos_;
    n = 0;
    while (pos_ < in_.size() && is_digit(in_[pos_])) {
      if (n > (uint64_t(INT64_MAX) - 9) / 10) return fail_at(start, "length or count too large");
      n = n * 10 + uint64_t(in_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) return fail("expected a decimal length or count");
    return true;
  }

  // i:<[+-]?[0-9]+>;  (after "i:")
  bool int_body(int64_t& out) {
    const size_t start = pos_;
    size_t p = pos_;
    if (p < in_.size() && (in_[p] == '+' || in_[p] == '-')) ++p;
    const size_t digits = p;
    while (p < in_.size() && is_digit(in_[p])) ++p;
    if (p == digits) return fail("expected an integer");
    // from_chars takes '-' but not '+'.
    const size_t from = in_[start] == '+' ? start + 1 : start;
    const auto [end, ec] = std::from_chars(in_.data() + from, in_.data() + p, out);
    if (ec != std::errc{} || end != in_.data() + p) return fail_at(start, "integer out of int64 range");
    pos_ = p;
    return expect(";");
  }

  // d:<NAN|INF|-INF|iv|nv|nvexp>;  (after "d:")
  bool double_body(double& out) {
    for (const auto& [text, bits] : {std::pair<std::string_view, uint64_t>{"NAN;", kPhpNanBits},
                                     {"INF;", 0x7ff0000000000000ull},
                                     {"-INF;", 0xfff0000000000000ull}}) {
      if (in_.substr(pos_, text.size()) == text) {
        out = std::bit_cast<double>(bits);
        pos_ += text.size();
        return true;
      }
    }
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

  // s:<len>:"<bytes>";  (after "s:"); the view points into the input.
  bool string_body(std::string_view& out) {
    uint64_t len = 0;
    if (!unsigned_number(len) || !expect(":\"")) return false;
    if (len > left() || left() - len < 2)
      return fail("string length " + std::to_string(len) + " runs past the end (" + std::to_string(left()) +
                  " bytes left)");
    out = in_.substr(pos_, len);
    pos_ += len;
    return expect("\";");
  }

  bool array_body(Value& out, size_t depth) {
    const size_t start = pos_ - 2;
    if (depth + 1 > kMaxDepth) return fail_at(start, "arrays nested deeper than " + std::to_string(kMaxDepth));
    uint64_t count = 0;
    if (!unsigned_number(count) || !expect(":{")) return false;
    // The smallest element is "i:0;N;": a count the bytes left cannot hold is refused
    // before anything is reserved for it.
    if (count > left() / 6)
      return fail_at(start, "array count " + std::to_string(count) + " exceeds what the " + std::to_string(left()) +
                                " bytes left can hold");
    Fields fields;
    fields.reserve(count);
    for (uint64_t k = 0; k < count; ++k) {
      MapKey key;
      if (in_.substr(pos_, 2) == "i:") {
        pos_ += 2;
        int64_t i = 0;
        if (!int_body(i)) return false;
        key = make_int_key(i);
      } else if (in_.substr(pos_, 2) == "s:") {
        pos_ += 2;
        std::string_view s;
        if (!string_body(s)) return false;
        key = make_key(std::string(s));  // "7" is the int key 7, as in PHP
      } else {
        if (pos_ >= in_.size()) return fail("unexpected end of input in an array");
        return fail("array key must be i: or s:");
      }
      Value v;
      if (!value(v, depth + 1)) return false;
      fields.emplace_back(std::move(key), std::move(v));
    }
    if (!expect("}")) return false;
    if (const size_t dup = detail::find_duplicate_key(fields); dup != fields.size()) {
      const MapKey& key = fields[dup].first;
      return fail_at(start,
                     "duplicate key " + (key.is_int ? std::to_string(key.i) : "\"" + key.s + "\"") + " in the array");
    }
    out = make_map(std::move(fields));
    return true;
  }

  bool value(Value& out, size_t depth) {
    if (pos_ >= in_.size()) return fail("unexpected end of input");
    const char type = in_[pos_];
    switch (type) {
      case 'N':
        if (!expect("N;")) return false;
        out = make_null();
        return true;
      case 'b': {
        if (!expect("b:")) return false;
        if (pos_ >= in_.size() || (in_[pos_] != '0' && in_[pos_] != '1')) return fail("expected 0 or 1 after b:");
        const bool b = in_[pos_++] == '1';
        if (!expect(";")) return false;
        out = make_bool(b);
        return true;
      }
      case 'i': {
        int64_t i = 0;
        if (!expect("i:") || !int_body(i)) return false;
        out = make_int(i);
        return true;
      }
      case 'd': {
        double d = 0;
        if (!expect("d:") || !double_body(d)) return false;
        out = make_real(d);
        return true;
      }
      case 's': {
        std::string_view s;
        if (!expect("s:") || !string_body(s)) return false;
        out = make_string(std::string(s));
        return true;
      }
      case 'a':
        if (!expect("a:")) return false;
        return array_body(out, depth);
      case 'O':
      case 'C': return fail(std::string("PHP object (") + type + ":) not supported");
      case 'E': return fail("PHP enum (E:) not supported");
      case 'R':
      case 'r': return fail(std::string("PHP reference (") + type + ":) not supported");
      case 'S': return fail("escaped string (S:, never written by serialize()) not supported");
      default: {
        static const char kHex[] = "0123456789abcdef";
        const auto byte = static_cast<unsigned char>(type);
        return fail(std::string("unexpected byte 0x") + kHex[byte >> 4] + kHex[byte & 15]);
      }
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  Error error_{Errc::parse_error, ""};
};

// ---- encoder ----

void append_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// A double as PHP 8 prints it with serialize_precision = -1: the shortest digits that read
// back exactly (D = d1 d2 ... dn, value = 0.D x 10^decpt), laid out as PHP's own %G-like
// formatter does with 17 as its precision:
//   decpt < -3 or decpt > 17  -> d1 "." (d2..dn or "0") "E" sign exponent  (1.0E+25, 1.5E-7)
//   -3 <= decpt <= 0          -> "0." then -decpt zeros then D              (0.0001, 0.5)
//   otherwise                 -> D padded with zeros to decpt digits, "." and the rest if any
// so integral doubles have no ".0" (d:5;), and 0.0 / -0.0 are "0" / "-0".
void append_php_double(std::string& out, double v) {
  if (v != v) {  // PHP prints every NaN the same, whatever its sign or payload
    out += "NAN";
    return;
  }
  if (v == std::numeric_limits<double>::infinity()) {
    out += "INF";
    return;
  }
  if (v == -std::numeric_limits<double>::infinity()) {
    out += "-INF";
    return;
  }
  char buf[40];
  // Shortest round-trip digits in scientific form: "-1.2345e+17", "5e-324", "0e+00".
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e_at = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_at))
    if (c != '.') digits += c;
  int exponent = 0;
  const std::string_view exp_text = sci.substr(e_at + 1);
  std::from_chars(exp_text.data() + (exp_text.front() == '+' ? 1 : 0), exp_text.data() + exp_text.size(), exponent);
  const int decpt = exponent + 1;
  constexpr int kPrecision = 17;
  if (decpt < -3 || decpt > kPrecision) {
    out += digits[0];
    out += '.';
    if (digits.size() > 1)
      out.append(digits, 1);
    else
      out += '0';
    out += 'E';
    out += exponent < 0 ? '-' : '+';
    append_int(out, exponent < 0 ? -exponent : exponent);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else {
    const size_t whole = static_cast<size_t>(decpt);
    if (digits.size() <= whole) {
      out += digits;
      out.append(whole - digits.size(), '0');
    } else {
      out.append(digits, 0, whole);
      out += '.';
      out.append(digits, whole);
    }
  }
}

void append_string(std::string& out, std::string_view s) {
  out += "s:";
  append_int(out, static_cast<int64_t>(s.size()));
  out += ":\"";
  out += s;
  out += "\";";
}

void append_key(std::string& out, const MapKey& key) {
  if (key.is_int) {
    out += "i:";
    append_int(out, key.i);
    out += ';';
  } else {
    append_string(out, key.s);
  }
}

Status append_value(std::string& out, const Value& v, size_t depth) {
  switch (v.kind) {
    case Value::Kind::null: out += "N;"; break;
    case Value::Kind::boolean: out += v.b ? "b:1;" : "b:0;"; break;
    case Value::Kind::integer:
      out += "i:";
      append_int(out, v.i);
      out += ';';
      break;
    case Value::Kind::real:
      out += "d:";
      append_php_double(out, v.d);
      out += ';';
      break;
    case Value::Kind::string: append_string(out, v.s); break;
    case Value::Kind::list:
    case Value::Kind::map: {
      // The encoder recurses: a hand-built tree deeper than any decoder accepts is refused
      // rather than allowed to exhaust the stack.
      if (depth + 1 > kMaxDepth)
        return Error{Errc::invalid_argument, "php serialize: arrays nested deeper than " + std::to_string(kMaxDepth)};
      const bool is_list = v.kind == Value::Kind::list;
      out += "a:";
      append_int(out, static_cast<int64_t>(is_list ? v.items.size() : v.fields.size()));
      out += ":{";
      if (is_list) {
        for (size_t k = 0; k < v.items.size(); ++k) {
          out += "i:";
          append_int(out, static_cast<int64_t>(k));
          out += ';';
          if (Status st = append_value(out, v.items[k], depth + 1); !st) return st;
        }
      } else {
        for (const auto& [key, child] : v.fields) {
          append_key(out, key);
          if (Status st = append_value(out, child, depth + 1); !st) return st;
        }
      }
      out += '}';
      break;
    }
  }
  return ok_status();
}

}  // namespace

Result<Value> decode_php_tree(std::string_view bytes) { return PhpReader(bytes).read_document(); }

Status encode_php_tree(const Value& v, std::string& out) {
  const size_t had = out.size();
  Status st = append_value(out, v, 0);
  if (!st) out.resize(had);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
