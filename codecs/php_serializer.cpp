#include "codecs/php_serializer.h"

#include <cstdint>

#include "codecs/page_fields.h"
#include "codecs/page_writer.h"
#include "codecs/php_format.h"
#include "codecs/text_append.h"

namespace hitcost {
namespace {

using php::Reader;

// Smallest encodings, used to bound counts: a page entry is at least 4 bytes, a row's 8,
// "i:0;s:0:\"\";" is 11 bytes per tag; a row is far larger than 40 bytes.
constexpr size_t kMinPageEntryBytes = 4;
constexpr size_t kMinRowEntryBytes = 8;
constexpr size_t kMinTagBytes = 11;
constexpr size_t kMinRowBytes = 40;

bool read_int(Reader& in, int64_t& out) { return in.int_value(out); }

bool read_key(Reader& in, std::string_view& out) { return in.string_value(out); }

bool open_array(Reader& in, uint64_t& count, size_t min_element_bytes) {
  const size_t start = in.offset();
  return in.expect("a:") && in.array_body(count, min_element_bytes, start);
}

// a:N:{i:0;<element>i:1;<element>...}: keys 0..N-1 in order, read_element(in, T&) each value.
template <class T, class ReadElement>
bool read_list(Reader& in, size_t min_element_bytes, std::vector<T>& out, ReadElement read_element) {
  uint64_t n = 0;
  if (!open_array(in, n, min_element_bytes)) return false;
  out.resize(n);  // the elements an earlier page left are reused (page_fields.h next_slot)
  for (uint64_t k = 0; k < n; ++k) {
    int64_t index = -1;
    if (!read_int(in, index)) return false;
    if (index < 0 || static_cast<uint64_t>(index) != k) return in.fail("list keys are not 0..N-1 in order");
    if (!read_element(in, out[k])) return false;
  }
  return in.expect("}");
}

// How serialize() holds each type a row has.
struct Fields {
  static bool integer(Reader& in, int64_t& out) { return read_int(in, out); }

  static bool text(Reader& in, std::string& out) {
    std::string_view v;
    if (!read_key(in, v)) return false;
    out.assign(v);
    return true;
  }

  // d:<float>; or i:<int>; (a PHP app may store a whole price as an integer).
  static bool price(Reader& in, double& out) {
    if (in.starts_with("i:")) {
      int64_t i = 0;
      if (!read_int(in, i)) return false;
      out = static_cast<double>(i);
      return true;
    }
    if (!in.expect("d:") || !in.double_body(out)) return false;
    return valid_price(out) || in.fail("price is not finite");
  }

  static bool tags(Reader& in, std::vector<std::string>& tags) { return read_list(in, kMinTagBytes, tags, text); }

  static bool rows(Reader& in, std::vector<Row>& rows);  // after read_row, which it calls
};

// An array of the page shape's keys, exactly `count` of them, each once (`Key`: PageKey or
// RowKey), read_field(k) reading each value; `what` ("page", "row") names it in errors.
template <class Key, class ReadField>
bool read_keyed_array(Reader& in, const char* what, size_t count, size_t min_entry_bytes,
                      Key (*key_of)(std::string_view), ReadField&& read_field) {
  uint64_t n = 0;
  if (!open_array(in, n, min_entry_bytes)) return false;
  if (n != count) return in.fail(concat({"a ", what, " must have ", std::to_string(count), " keys"}));
  uint32_t seen = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key;
    if (!read_key(in, key)) return false;
    const Key k = key_of(key);
    if (k == Key::unknown) return in.fail(concat({"unexpected ", what, " key"}));
    if (!mark_seen(seen, static_cast<uint8_t>(k))) return in.fail(concat({"duplicate ", what, " key"}));
    if (!read_field(k)) return in.fail(concat({"bad ", what, " value"}));
  }
  return in.expect("}");
}

bool read_row(Reader& in, Row& r) {
  return read_keyed_array(in, "row", 8, kMinRowEntryBytes, row_key,
                          [&](RowKey k) { return read_row_field<Fields>(in, k, r); });
}

bool Fields::rows(Reader& in, std::vector<Row>& rows) { return read_list(in, kMinRowBytes, rows, read_row); }

bool read_page(Reader& in, Page& page) {
  return read_keyed_array(in, "page", 3, kMinPageEntryBytes, page_key,
                          [&](PageKey k) { return read_page_field<Fields>(in, k, page); });
}

// The page's shape (codecs/page_writer.h) in serialize() text: maps and lists are both
// arrays, a list's keys are its indexes. The price is the page's own form, std::to_chars's
// shortest round trip ("d:12.34;", "d:5;"), kept so that stored pages keep their bytes:
// php::put_double (PHP's layout) differs only where to_chars takes an exponent for being
// shorter (100000 -> "1e+05", 0.0001 -> "1e-04"); PHP reads both back as the same double.
struct PhpOut {
  std::string& out;
  bool open_map(size_t n) {
    php::put_array_header(out, n);
    return true;
  }
  bool open_list(size_t n) {
    php::put_array_header(out, n);
    return true;
  }
  void index(size_t i) { php::put_int(out, static_cast<int64_t>(i)); }
  void key(std::string_view k) { php::put_string(out, k); }
  void integer(int64_t v) { php::put_int(out, v); }
  void text(std::string_view s) { php::put_string(out, s); }
  void price(double d) {
    out += "d:";
    append_double_shortest(out, d);
    out += ';';
  }
  void close() { out += '}'; }
};

}  // namespace

void encode_php(const Page& page, std::string& out) {
  PhpOut writer{out};
  write_page(page, writer);
}

Status decode_php(std::string_view text, Page& page) {
  Reader in(text);
  if (!read_page(in, page) || !in.finish()) return in.error();
  return ok_status();
}

}  // namespace hitcost
