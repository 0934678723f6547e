#include "codecs/msgpack_serializer.h"

#include <cstdint>

#include "codecs/msgpack_format.h"
#include "codecs/page_fields.h"
#include "codecs/page_writer.h"
#include "codecs/text_append.h"

namespace hitcost {
namespace {

using msgpack::Item;
using msgpack::Reader;

// How MessagePack holds each type a row has. Each reader returns false for a value of the
// wrong type (the caller names the key) and for malformed bytes (the reader has already kept
// that, the first, error).
struct Fields {
  static bool integer(Reader& in, int64_t& out) {
    Item v;
    if (!in.next(v) || v.kind != Item::Kind::integer) return false;
    out = v.i;
    return true;
  }

  // str and bin alike: older writers emit raw/bin for strings.
  static bool text(Reader& in, std::string& out) {
    Item v;
    if (!in.next(v) || (v.kind != Item::Kind::str && v.kind != Item::Kind::bin)) return false;
    out.assign(v.s);
    return true;
  }

  // Floats and ints: a PHP app may store a whole price as an int.
  static bool price(Reader& in, double& out) {
    Item v;
    if (!in.next(v)) return false;
    if (v.kind == Item::Kind::float64 || v.kind == Item::Kind::float32)
      out = v.d;
    else if (v.kind == Item::Kind::integer)
      out = static_cast<double>(v.i);
    else
      return false;
    return valid_price(out);
  }

  static bool tags(Reader& in, std::vector<std::string>& tags) {
    Item v;
    if (!in.next(v) || v.kind != Item::Kind::array) return false;
    tags.resize(v.count);
    for (std::string& tag : tags)
      if (!text(in, tag)) return false;
    return true;
  }

  static bool rows(Reader& in, std::vector<Row>& rows);  // after read_row, which it calls
};

// A map of the page shape's keys (`Key`: PageKey or RowKey; `all_keys`, each one's bit), each
// once and a str (as php-msgpack writes a PHP array's string keys), read_field(k) reading
// each value; `what` ("page", "row") names it in errors.
template <class Key, class ReadField>
bool read_keyed_map(Reader& in, const char* what, uint32_t all_keys, Key (*key_of)(std::string_view),
                    ReadField&& read_field) {
  Item m;
  if (!in.next(m)) return false;
  if (m.kind != Item::Kind::map) return in.fail_at(concat({what, " is not a map"}).c_str(), m.at);
  uint32_t seen = 0;
  for (uint64_t i = 0; i < m.count; ++i) {
    Item key;
    if (!in.next(key)) return false;
    if (key.kind != Item::Kind::str) return in.fail_at(concat({what, " key is not a string"}).c_str(), key.at);
    const Key k = key_of(key.s);
    if (k == Key::unknown) return in.fail(concat({"unexpected ", what, " key"}).c_str());
    if (!mark_seen(seen, static_cast<uint8_t>(k))) return in.fail(concat({"duplicate ", what, " key"}).c_str());
    if (!read_field(k)) return in.fail(concat({what, " key '", key.s, "' has the wrong type"}).c_str());
  }
  return seen == all_keys || in.fail(concat({what, " is missing a key"}).c_str());
}

bool read_row(Reader& in, Row& r) {
  return read_keyed_map(in, "row", kAllRowKeys, row_key, [&](RowKey k) { return read_row_field<Fields>(in, k, r); });
}

bool Fields::rows(Reader& in, std::vector<Row>& rows) {
  Item v;
  if (!in.next(v) || v.kind != Item::Kind::array) return false;
  rows.resize(v.count);
  for (Row& r : rows)
    if (!read_row(in, r)) return false;
  return true;
}

bool read_page(Reader& in, Page& page) {
  return read_keyed_map(in, "page", kAllPageKeys, page_key,
                        [&](PageKey k) { return read_page_field<Fields>(in, k, page); });
}

// The page's shape (codecs/page_writer.h) in MessagePack: maps and arrays carry their counts
// and need no closing; an array has no keys.
struct MsgpackOut {
  std::string& out;
  bool open_map(size_t n) {
    msgpack::put_map_header(out, n);
    return true;
  }
  bool open_list(size_t n) {
    msgpack::put_array_header(out, n);
    return true;
  }
  void index(size_t) {}
  void key(std::string_view k) { msgpack::put_string(out, k); }
  void integer(int64_t v) { msgpack::put_int(out, v); }
  void text(std::string_view s) { msgpack::put_string(out, s); }
  void price(double d) { msgpack::put_float64(out, d); }
  void close() {}
};

}  // namespace

void encode_msgpack(const Page& page, std::string& out) {
  MsgpackOut writer{out};
  write_page(page, writer);
}

Status decode_msgpack(std::string_view bytes, Page& page) {
  Reader in(bytes);
  if (!read_page(in, page) || !in.finish()) return in.error();
  return ok_status();
}

}  // namespace hitcost
