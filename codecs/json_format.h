#pragma once
// JSON text (RFC 8259) at the byte level, for both readers of the format: the page codec
// (codecs/json_serializer.cpp) and the generic tree codec (corpus/json_tree.cpp). What each
// maps JSON to is theirs; how strings are escaped, how numbers are printed and read, and what
// well-formed JSON is, is here. simdjson (codecs/simdjson_decoder.cpp) is a second,
// deliberately different page decoder and does not use the reader.
//
// Errors are parse_error "json: <what> at byte <offset>" (offset into the text read).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost::json {

// ---- writing ----

// `s` as a string literal, quotes included, as hitcost's page encoder writes it: UTF-8 passed
// through, only '"', '\\' and the controls escaped (\n \r \t \b \f, else \u00XX).
void append_string(std::string_view s, std::string& out);

// `s` as PHP's json_encode writes it with default flags: '/' as "\/", every non-ASCII code
// point as \uXXXX (lowercase hex, surrogate pairs above U+FFFF), controls as \b \f \n \r \t
// or \u00XX, DEL raw. invalid_argument when `s` is not UTF-8 (json_encode fails there too).
Status append_php_string(std::string_view s, std::string& out);

// A finite double as PHP's json_encode writes it (serialize_precision -1,
// JSON_PRESERVE_ZERO_FRACTION): always with a '.' or an exponent, so it reads back a double.
void append_php_double(double d, std::string& out);

// ---- reading ----

// What a number literal reads as, as PHP's json_decode reads it: within int64 and without
// '.' or exponent an int, anything else a double (beyond a double: +-INF, below: +-0).
struct Number {
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
};

// A strict, bounds-checked reader over JSON text, one token at a time; callers decide what
// each value becomes and how deep they let it nest. After a false the reader holds
// the first error; read it with error(). Not thread-safe; the text must outlive it.
class Reader {
 public:
  explicit Reader(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  // The first byte of the next value after whitespace, or '\0' at the end of the text (a NUL
  // byte, which starts no JSON value, reads as the end too).
  char peek();
  // True when only whitespace is left; otherwise fails with "trailing bytes after the value".
  bool finish();
  // True when the next value is a number ('-' or a digit after whitespace).
  bool at_number() {
    const char c = peek();
    return c == '-' || (c >= '0' && c <= '9');
  }

  bool string(std::string& out);        // at '"': appends the unescaped bytes to `out`
  bool number(Number& out);             // at '-' or a digit
  bool literal(std::string_view word);  // true, false or null, exactly

  // At '[' (peek() said so): calls on_element() with the reader at each element; true after
  // the ']', false at the first false or malformed JSON.
  template <class OnElement>
  bool array(OnElement&& on_element) {
    ++p_;
    for (bool first = true;; first = false) {
      const Step step = array_step(first);
      if (step != Step::item) return step == Step::done;
      if (!on_element()) return false;
    }
  }
  // At '{' (peek() said so): calls on_member(key) with the reader at each member's value (the
  // key is the callee's to move from); true after the '}'.
  template <class OnMember>
  bool object(OnMember&& on_member) {
    ++p_;
    std::string key;
    for (bool first = true;; first = false) {
      const Step step = object_step(first, key);
      if (step != Step::item) return step == Step::done;
      if (!on_member(key)) return false;
    }
  }

  bool fail(const char* what) { return fail_at(what, p_); }
  bool fail(const std::string& what) { return fail_at(what.c_str(), p_); }
  bool fail_at(const char* what, const char* at);
  const char* position() const { return p_; }
  Error error() const { return error_; }

 private:
  // One step through an array's elements or an object's members.
  enum class Step : uint8_t { item, done, error };
  // Before each element: Step::item when one follows, done after the closing ']'.
  Step array_step(bool first);
  // Before each member: reads its key into `key` (cleared first) and the ':' after it.
  Step object_step(bool first, std::string& key);
  void skip_ws();
  bool escape(std::string& out);
  bool hex4(uint32_t& v);
  bool object_key(std::string& key);

  const char* begin_;
  const char* p_;
  const char* end_;
  Error error_{Errc::parse_error, ""};
};

}  // namespace hitcost::json
