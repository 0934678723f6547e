#include "codecs/nlohmann_decoder.h"

#include <nlohmann/json.hpp>

#include "codecs/page_fields.h"

namespace hitcost {
namespace {

using Json = nlohmann::json;

// How the DOM holds each type a row has (codecs/page_fields.h's readers): false on another type.
struct Fields {
  static bool integer(const Json& v, int64_t& out) {
    if (!v.is_number_integer()) return false;
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return false;
    out = v.get<int64_t>();
    return true;
  }
  static bool text(const Json& v, std::string& out) {
    if (!v.is_string()) return false;
    out = v.get_ref<const std::string&>();
    return true;
  }
  // An integer is a price too: PHP's json_encode writes 5.0 as 5 without PRESERVE_ZERO_FRACTION.
  static bool price(const Json& v, double& out) {
    if (!v.is_number()) return false;
    out = v.get<double>();
    return valid_price(out);
  }
  static bool tags(const Json& v, std::vector<std::string>& tags) {
    if (!v.is_array()) return false;
    tags.resize(v.size());
    size_t i = 0;
    for (const Json& t : v) {
      if (!t.is_string()) return false;
      tags[i++] = t.get_ref<const std::string&>();
    }
    return true;
  }
  static bool rows(const Json& v, std::vector<Row>& rows);
};

// An object of the page shape's keys, each read by read_field; false on an unknown key, a
// value of the wrong type or a missing key.
template <class Key, class ReadField>
bool read_keyed_object(const Json& obj, uint32_t all_keys, Key (*key_of)(std::string_view), ReadField&& read_field) {
  if (!obj.is_object()) return false;
  uint32_t seen = 0;
  for (const auto& [key, value] : obj.items()) {
    const Key k = key_of(key);
    if (k == Key::unknown || !read_field(value, k)) return false;
    mark_seen(seen, static_cast<uint8_t>(k));
  }
  return seen == all_keys;
}

bool Fields::rows(const Json& v, std::vector<Row>& rows) {
  if (!v.is_array()) return false;
  rows.resize(v.size());
  size_t i = 0;
  for (const Json& rv : v) {
    Row& r = rows[i++];
    if (!read_keyed_object(rv, kAllRowKeys, row_key,
                           [&](const Json& f, RowKey k) { return read_row_field<Fields>(f, k, r); })) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status decode_nlohmann(std::string_view text, Page& page) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error{Errc::parse_error, "nlohmann: not valid JSON"};
  if (!read_keyed_object(doc, kAllPageKeys, page_key,
                         [&](const Json& f, PageKey k) { return read_page_field<Fields>(f, k, page); })) {
    return Error{Errc::parse_error, "nlohmann: not a page (an unknown or missing key, or a value of the wrong type)"};
  }
  return ok_status();
}

}  // namespace hitcost
