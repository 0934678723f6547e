#include "codecs/json_serializer.h"

#include <cstdint>
#include <vector>

#include "codecs/json_format.h"
#include "codecs/page_fields.h"
#include "codecs/text_append.h"

namespace hitcost {
namespace {

void append_price(double price, std::string& out) {
  std::string_view t = append_double_shortest(out, price);
  if (t.find_first_of(".en") == std::string_view::npos) out += ".0";  // "5" -> "5.0"
}

// An object member after the first: `comma_key` is its separator and key as one literal
// (`,"title":`), then the value. The JSON counterpart of codecs/page_writer.h's entry().
void member(std::string& out, std::string_view comma_key, int64_t v) {
  out += comma_key;
  append_int(out, v);
}
void member(std::string& out, std::string_view comma_key, const std::string& s) {
  out += comma_key;
  json::append_string(s, out);
}

// Rough size of the JSON so the output is allocated once (bytes).
size_t estimate(const Page& page) {
  size_t n = 64 + page.title.size();
  for (const Row& r : page.rows) {
    n += 128 + r.title.size() + r.author.size() + r.excerpt.size() + r.url.size();
    for (const auto& t : r.tags) n += t.size() + 3;
  }
  return n + n / 16;  // escapes
}

}  // namespace

void encode_json(const Page& page, std::string& out) {
  out.reserve(out.size() + estimate(page));
  out += "{\"id\":";
  append_int(out, page.id);
  member(out, ",\"title\":", page.title);
  out += ",\"rows\":[";
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const Row& r = page.rows[i];
    out += i ? ",{\"id\":" : "{\"id\":";
    append_int(out, r.id);
    member(out, ",\"title\":", r.title);
    member(out, ",\"author\":", r.author);
    out += ",\"tags\":[";
    for (size_t k = 0; k < r.tags.size(); ++k) {
      if (k) out += ',';
      json::append_string(r.tags[k], out);
    }
    out += "],\"price\":";
    append_price(r.price, out);
    member(out, ",\"created\":", r.created);
    member(out, ",\"excerpt\":", r.excerpt);
    member(out, ",\"url\":", r.url);
    out += '}';
  }
  out += "]}";
}

namespace {

using json::Reader;

// How JSON holds each type a row has. Each reader returns false for a value of the wrong
// JSON type (the caller names the key) and for malformed JSON (the reader has already kept
// that, the first, error).
struct Fields {
  static bool integer(Reader& in, int64_t& out) {
    json::Number n;
    if (!in.at_number() || !in.number(n) || !n.is_int) return false;
    out = n.i;
    return true;
  }

  static bool text(Reader& in, std::string& out) {
    if (in.peek() != '"') return false;
    out.clear();
    return in.string(out);
  }

  // An integer is a price too: PHP's json_encode writes 5.0 as 5 without PRESERVE_ZERO_FRACTION.
  static bool price(Reader& in, double& out) {
    json::Number n;
    if (!in.at_number() || !in.number(n)) return false;
    out = n.is_int ? static_cast<double>(n.i) : n.d;
    return valid_price(out);
  }

  static bool tags(Reader& in, std::vector<std::string>& tags) {
    if (in.peek() != '[') return false;
    size_t used = 0;
    const bool ok = in.array([&] { return text(in, next_slot(tags, used)); });
    trim_slots(tags, used);
    return ok;
  }

  static bool rows(Reader& in, std::vector<Row>& rows);  // after read_row, which it calls
};

// An object of the page shape's keys (`Key`: PageKey or RowKey; `all_keys`, each one's bit),
// read_field(k) reading each value; `what` ("page", "row") names it in errors. A key given
// twice is read twice and the last value counts: what nlohmann_json's DOM, this decoder's
// engine before codecs/json_format.h, made of it (simdjson refuses it instead).
template <class Key, class ReadField>
bool read_keyed_object(Reader& in, const char* what, uint32_t all_keys, Key (*key_of)(std::string_view),
                       ReadField&& read_field) {
  if (in.peek() != '{') return in.fail(concat({what, " is not an object"}));
  uint32_t seen = 0;
  const bool ok = in.object([&](const std::string& key) {
    const Key k = key_of(key);
    if (k == Key::unknown) return in.fail(concat({"unexpected ", what, " key '", key, "'"}));
    mark_seen(seen, static_cast<uint8_t>(k));
    return read_field(k) || in.fail(concat({what, " key '", key, "' has the wrong type"}));
  });
  return ok && (seen == all_keys || in.fail(concat({what, " is missing a key"})));
}

bool read_row(Reader& in, Row& r) {
  return read_keyed_object(in, "row", kAllRowKeys, row_key, [&](RowKey k) { return read_row_field<Fields>(in, k, r); });
}

bool Fields::rows(Reader& in, std::vector<Row>& rows) {
  if (in.peek() != '[') return false;
  size_t used = 0;
  const bool ok = in.array([&] { return read_row(in, next_slot(rows, used)); });
  trim_slots(rows, used);
  return ok;
}

bool read_page(Reader& in, Page& page) {
  return read_keyed_object(in, "page", kAllPageKeys, page_key,
                           [&](PageKey k) { return read_page_field<Fields>(in, k, page); });
}

}  // namespace

Status decode_json(std::string_view text, Page& page) {
  // nlohmann_json, this decoder's engine before, skipped a leading UTF-8 byte order mark.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Reader in(text);
  if (!read_page(in, page) || !in.finish()) return in.error();
  return ok_status();
}

}  // namespace hitcost
