#pragma once
// JSON form of a page: {"id":1,"title":"..","rows":[{"id":..,"title":..,"author":..,
// "tags":[..],"price":12.34,"created":..,"excerpt":..,"url":..},...]}
// One hand-written encoder serves every JSON decoder (codecs/decoders.h: json_format.h's reader
// here, simdjson, nlohmann): the stored bytes are the same whichever one reads them.
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Appends the JSON text of `page` to `out`. Strings are UTF-8 passed through, with quote, backslash
// and control characters escaped; prices use the shortest round-trip form and always
// carry a fraction or exponent ("5.0", not "5") so PHP's json_decode gives a float.
void encode_json(const Page& page, std::string& out);

// Decodes straight into the page with codecs/json_format.h's reader (the one the tree codec
// uses; no DOM in between). Integers are accepted for price (PHP's json_encode writes 5.0 as
// 5); a repeated key's last value counts; a leading UTF-8 BOM is skipped. Errors: parse_error.
// Into `page`, reusing what it holds (codecs/value_codec.h decode_page_into).
Status decode_json(std::string_view text, Page& page);

}  // namespace hitcost
