// JSON -> the generic value tree with simdjson's On Demand API: the default JSON tree decoder
// (the fastest reader this host has for the bytes, as the server's page decoder), with
// hitcost's own reader (json_tree.cpp) as the authority on everything simdjson refuses.
//
// Why a fallback and not two answers: PHP's json_decode reads a few things simdjson refuses
// (an integer below int64 is a double there); the reader already reads them as PHP does.
// Doubles are read by the reader's number rule on simdjson's token (see read_number). So
// simdjson answers every document it reads, the reader every one it refuses: one accept set
// (the reader's) and one message per error. fuzz/fuzz_tree.cpp and the mutation test in
// tests/corpus/json_msgpack_tree_test.cpp hold the two to the same trees and accept set.
//
// What simdjson would read that the tree must not: a UTF-8 byte-order mark (PHP refuses it),
// nesting past kMaxDepth, duplicate keys — each refused here or handed to the reader.
#include <simdjson.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/json_format.h"
#include "codecs/simdjson_input.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

error_code read_value(od::value v, Value& out, size_t depth);

// A number as PHP reads it, from its text by the reader's own number rule: an integer literal
// within int64 an int, any other a double (std::from_chars: correctly rounded, as PHP's
// strtod), INF beyond a double. Not simdjson's own number parsing: 3.0.1 reads
// -31333333333333333333 (20 digits, beyond int64) as -3133333333333333333 without an error, and
// rounds some 20-digit mantissas one unit off (found by fuzz_tree and the mutation test in
// tests/corpus). `text` runs from the number to the next structural character (or the end of a
// scalar document): only whitespace may follow the number in it.
error_code number_from_text(std::string_view text, Value& out) {
  json::Reader reader(text);
  json::Number n;
  if (!reader.at_number() || !reader.number(n) || !reader.finish()) return simdjson::NUMBER_ERROR;
  out = n.is_int ? make_int(n.i) : make_real(n.d);
  return simdjson::SUCCESS;
}

template <class Json>
error_code read_string(Json& v, Value& out) {
  std::string_view s;
  if (auto e = v.get_string().get(s)) return e;
  out = make_string(std::string(s));
  return simdjson::SUCCESS;
}

template <class Json>
error_code read_bool(Json& v, Value& out) {
  bool b = false;
  if (auto e = v.get_bool().get(b)) return e;
  out = make_bool(b);
  return simdjson::SUCCESS;
}

// `depth`: containers open around this one, itself included (the root's is 1).
error_code read_array(od::value v, Value& out, size_t depth) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::array arr;
  if (auto e = v.get_array().get(arr)) return e;
  std::vector<Value> items;
  for (auto element : arr) {
    od::value ev;
    if (auto e = element.get(ev)) return e;
    items.emplace_back();
    if (auto e = read_value(ev, items.back(), depth)) return e;
  }
  out = make_list(std::move(items));
  return simdjson::SUCCESS;
}

error_code read_object(od::value v, Value& out, size_t depth) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::object obj;
  if (auto e = v.get_object().get(obj)) return e;
  Fields fields;
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    fields.emplace_back(make_key(std::string(key)), Value{});
    od::value fv;
    if (auto e = field.value().get(fv)) return e;
    if (auto e = read_value(fv, fields.back().second, depth)) return e;
  }
  // The reader words the refusal ("duplicate key in object at byte N").
  if (detail::find_duplicate_key(fields) != fields.size()) return simdjson::INCORRECT_TYPE;
  out = make_map(std::move(fields));
  return simdjson::SUCCESS;
}

// `depth`: containers already open around this value (the root is at 0).
error_code read_value(od::value v, Value& out, size_t depth) {
  od::json_type type{};
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case od::json_type::array: return read_array(v, out, depth + 1);
    case od::json_type::object: return read_object(v, out, depth + 1);
    case od::json_type::number: return number_from_text(v.raw_json_token(), out);  // and the whitespace after it
    case od::json_type::string: return read_string(v, out);
    case od::json_type::boolean: return read_bool(v, out);
    case od::json_type::null: {
      bool is_null = false;
      if (auto e = v.is_null().get(is_null)) return e;
      if (!is_null) return simdjson::N_ATOM_ERROR;
      out = make_null();
      return simdjson::SUCCESS;
    }
  }
  return simdjson::TAPE_ERROR;
}

// The whole document; a scalar root is read from the document itself (On Demand has no value
// for it).
error_code read_document(od::document& doc, const char* input_end, Value& out) {
  od::json_type type{};
  if (auto e = doc.type().get(type)) return e;
  if (type == od::json_type::array || type == od::json_type::object) {
    od::value root;
    if (auto e = doc.get_value().get(root)) return e;
    if (auto e = read_value(root, out, 0)) return e;
  } else if (type == od::json_type::number) {
    // A scalar document's number is not consumed by simdjson: read it to the end of the input.
    std::string_view token;
    if (auto e = doc.raw_json_token().get(token)) return e;
    return number_from_text(std::string_view(token.data(), size_t(input_end - token.data())), out);
  } else if (type == od::json_type::string) {
    if (auto e = read_string(doc, out)) return e;
  } else {
    // true, false or null as the whole document: 3.0.1 takes "null!" for null there (inside an
    // array it refuses it; found by fuzz_tree). The reader reads these few bytes.
    return simdjson::SCALAR_DOCUMENT_AS_VALUE;
  }
  // Anything after the value (other than whitespace) is trailing content: the reader says so.
  const char* at = nullptr;
  if (!doc.current_location().get(at)) return simdjson::TRAILING_CONTENT;
  return simdjson::SUCCESS;
}

}  // namespace

Result<Value> decode_json_tree_simdjson(std::string_view bytes) {
  // simdjson skips or refuses these differently from PHP; the reader reads them as PHP does.
  if (bytes.starts_with("\xEF\xBB\xBF")) return Error{Errc::parse_error, "simdjson: a byte-order mark"};
  thread_local od::parser parser;
  const std::string_view padded = simdjson_padded(bytes);
  od::document doc;
  Value root;
  error_code e = parser.iterate(padded.data(), bytes.size(), padded.size()).get(doc);
  if (!e) e = read_document(doc, padded.data() + bytes.size(), root);
  if (e) return Error{Errc::parse_error, std::string("simdjson: ") + simdjson::error_message(e)};
  return root;
}

Result<Value> decode_json_tree(std::string_view bytes) {
  Result<Value> fast = decode_json_tree_simdjson(bytes);
  if (fast) return fast;
  return decode_json_tree_reader(bytes);
}

}  // namespace hitcost::corpus
