#pragma once
// simdjson (On Demand API) decoder for the JSON form written by encode_json().
// simdjson reads up to SIMDJSON_PADDING (64) bytes past the end of its input, so the
// payload is first copied into a padded per-thread buffer (codecs/simdjson_input.h: zeros
// after the text, always): that copy is part of the honest cost and is included in every
// benchmark of this decoder.
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Accepts what the other JSON decoders accept (codecs/decoders.h): a leading UTF-8 BOM is skipped,
// a repeated key's last value counts. Thread-safe (one parser and buffer per thread).
// Errors: parse_error.
Status decode_simdjson(std::string_view text, Page& page);  // into `page`, reusing what it holds

}  // namespace hitcost
