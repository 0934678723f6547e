#pragma once
// nlohmann_json (Debian nlohmann-json3-dev) as a decoder of the JSON form encode_json() writes:
// the whole text into its DOM, then the DOM into the page. What a C++ shop that reaches for the
// most common JSON library pays; a row of codecs/decoders.h so that a sweep or the calibration
// shows it beside simdjson and hitcost's own reader.
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// The page shape's rules (codecs/page_fields.h): every key once, no unknown key; a repeated key's
// last value counts (the DOM keeps one). A leading UTF-8 BOM is skipped. Errors: parse_error.
// Thread-safe (no shared state).
Status decode_nlohmann(std::string_view text, Page& page);  // into `page`, reusing what it holds

}  // namespace hitcost
