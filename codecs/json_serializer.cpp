#include "codecs/json_serializer.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "codecs/page_fields.h"
#include "codecs/text_append.h"

namespace hitcost {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_price(double price, std::string& out) {
  std::string_view t = append_double_shortest(out, price);
  if (t.find_first_of(".en") == std::string_view::npos) out += ".0";  // "5" -> "5.0"
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

void append_json_string(std::string_view s, std::string& out) {
  out += '"';
  size_t run = 0;  // start of the current run of bytes that need no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void encode_json(const Page& page, std::string& out) {
  out.reserve(out.size() + estimate(page));
  out += "{\"id\":";
  append_int(out, page.id);
  out += ",\"title\":";
  append_json_string(page.title, out);
  out += ",\"rows\":[";
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const Row& r = page.rows[i];
    out += i ? ",{\"id\":" : "{\"id\":";
    append_int(out, r.id);
    out += ",\"title\":";
    append_json_string(r.title, out);
    out += ",\"author\":";
    append_json_string(r.author, out);
    out += ",\"tags\":[";
    for (size_t k = 0; k < r.tags.size(); ++k) {
      if (k) out += ',';
      append_json_string(r.tags[k], out);
    }
    out += "],\"price\":";
    append_price(r.price, out);
    out += ",\"created\":";
    append_int(out, r.created);
    out += ",\"excerpt\":";
    append_json_string(r.excerpt, out);
    out += ",\"url\":";
    append_json_string(r.url, out);
    out += '}';
  }
  out += "]}";
}

namespace {

using nlohmann::json;

Error shape(std::string what) { return Error{Errc::parse_error, "json: " + std::move(what)}; }

bool get_int(const json& v, int64_t& out) {
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    out = static_cast<int64_t>(u);
    return true;
  }
  if (!v.is_number_integer()) return false;
  out = v.get<int64_t>();
  return true;
}

bool take_string(json& v, std::string& out) {
  if (!v.is_string()) return false;
  out = std::move(v.get_ref<std::string&>());
  return true;
}

Result<Row> to_row(json& j) {
  if (!j.is_object()) return shape("row is not an object");
  Row r;
  uint32_t seen = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    RowKey k = row_key(it.key());
    if (k == RowKey::unknown) return shape("unexpected row key '" + it.key() + "'");
    mark_seen(seen, static_cast<uint8_t>(k));  // a DOM object cannot hold duplicates
    json& v = it.value();
    bool ok = true;
    switch (k) {
      case RowKey::id: ok = get_int(v, r.id); break;
      case RowKey::created: ok = get_int(v, r.created); break;
      case RowKey::title: ok = take_string(v, r.title); break;
      case RowKey::author: ok = take_string(v, r.author); break;
      case RowKey::excerpt: ok = take_string(v, r.excerpt); break;
      case RowKey::url: ok = take_string(v, r.url); break;
      case RowKey::price: ok = v.is_number() && valid_price(r.price = v.get<double>()); break;
      case RowKey::tags:
        ok = v.is_array();
        if (ok) {
          r.tags.resize(v.size());
          for (size_t i = 0; ok && i < v.size(); ++i) ok = take_string(v[i], r.tags[i]);
        }
        break;
      case RowKey::unknown: break;
    }
    if (!ok) return shape("row key '" + it.key() + "' has the wrong type");
  }
  if (seen != kAllRowKeys) return shape("row is missing a key");
  return r;
}

}  // namespace

Result<Page> decode_json(std::string_view text) {
  try {
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return shape("malformed JSON");
    if (!j.is_object()) return shape("page is not an object");
    Page page;
    uint32_t seen = 0;
    for (auto it = j.begin(); it != j.end(); ++it) {
      PageKey k = page_key(it.key());
      json& v = it.value();
      bool ok = true;
      switch (k) {
        case PageKey::id: ok = get_int(v, page.id); break;
        case PageKey::title: ok = take_string(v, page.title); break;
        case PageKey::rows:
          ok = v.is_array();
          if (!ok) break;
          page.rows.reserve(v.size());
          for (auto& rj : v) {
            auto r = to_row(rj);
            if (!r) return r.error();
            page.rows.push_back(std::move(*r));
          }
          break;
        case PageKey::unknown: return shape("unexpected page key '" + it.key() + "'");
      }
      if (!ok) return shape("page key '" + it.key() + "' has the wrong type");
      mark_seen(seen, static_cast<uint8_t>(k));
    }
    if (seen != kAllPageKeys) return shape("page is missing a key");
    return page;
  } catch (const std::exception& e) {  // bad_alloc, or a library invariant we missed
    return shape(e.what());
  }
}

}  // namespace hitcost
