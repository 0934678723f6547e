#include "codecs/simdjson_decoder.h"

#include <simdjson.h>

#include <string>

#include "codecs/page_fields.h"
#include "codecs/simdjson_input.h"

namespace hitcost {
namespace {

namespace od = simdjson::ondemand;

Error fail(std::string what) { return Error{Errc::parse_error, "simdjson: " + std::move(what)}; }
Error fail(simdjson::error_code e) { return fail(simdjson::error_message(e)); }

// The On Demand API reports errors through simdjson_result; each helper returns the
// first error so the caller can stop.
simdjson::error_code get_string(od::value v, std::string& out) {
  std::string_view s;
  auto e = v.get_string().get(s);
  if (!e) out.assign(s);
  return e;
}

simdjson::error_code get_row(od::value rv, Row& r) {
  od::object obj;
  if (auto e = rv.get_object().get(obj)) return e;
  uint32_t seen = 0;
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    RowKey k = row_key(key);
    if (k == RowKey::unknown) return simdjson::INCORRECT_TYPE;
    mark_seen(seen, static_cast<uint8_t>(k));  // a repeated key: its last value counts, as in the other decoders
    od::value v;
    if (auto e = field.value().get(v)) return e;
    simdjson::error_code e = simdjson::SUCCESS;
    switch (k) {
      case RowKey::id: e = exact_int64(v, r.id); break;
      case RowKey::created: e = exact_int64(v, r.created); break;
      case RowKey::title: e = get_string(v, r.title); break;
      case RowKey::author: e = get_string(v, r.author); break;
      case RowKey::excerpt: e = get_string(v, r.excerpt); break;
      case RowKey::url: e = get_string(v, r.url); break;
      case RowKey::price:
        e = exact_double(v, r.price);  // accepts integers too
        if (!e && !valid_price(r.price)) e = simdjson::NUMBER_ERROR;
        break;
      case RowKey::tags: {
        od::array arr;
        if ((e = v.get_array().get(arr))) break;
        size_t used = 0;
        for (auto tv : arr) {
          od::value t;
          if ((e = tv.get(t))) break;
          if ((e = get_string(t, next_slot(r.tags, used)))) break;
        }
        trim_slots(r.tags, used);
        break;
      }
      case RowKey::unknown: break;
    }
    if (e) return e;
  }
  return seen == kAllRowKeys ? simdjson::SUCCESS : simdjson::NO_SUCH_FIELD;
}

}  // namespace

Status decode_simdjson(std::string_view text, Page& page) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM, as the other decoders
  thread_local od::parser parser;
  const std::string_view padded = simdjson_padded(text);
  od::document doc;
  if (auto e = parser.iterate(padded.data(), text.size(), padded.size()).get(doc)) return fail(e);
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return fail(e);
  uint32_t seen = 0;
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return fail(e);
    PageKey k = page_key(key);
    if (k == PageKey::unknown) return fail("unexpected page key");
    mark_seen(seen, static_cast<uint8_t>(k));  // a repeated key: its last value counts
    od::value v;
    if (auto e = field.value().get(v)) return fail(e);
    simdjson::error_code e = simdjson::SUCCESS;
    switch (k) {
      case PageKey::id: e = exact_int64(v, page.id); break;
      case PageKey::title: e = get_string(v, page.title); break;
      case PageKey::rows: {
        od::array arr;
        if ((e = v.get_array().get(arr))) break;
        size_t used = 0;
        for (auto rv : arr) {
          od::value r;
          if ((e = rv.get(r))) break;
          if ((e = get_row(r, next_slot(page.rows, used)))) break;
        }
        trim_slots(page.rows, used);
        break;
      }
      case PageKey::unknown: break;
    }
    if (e) return fail(e);
  }
  if (seen != kAllPageKeys) return fail("page is missing a key");
  // Anything after the closing brace (other than whitespace) is trailing content.
  const char* at = nullptr;
  if (!doc.current_location().get(at)) return fail("trailing bytes after the page");
  return ok_status();
}

}  // namespace hitcost
