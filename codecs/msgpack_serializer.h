#pragma once
// MessagePack form of a page (codecs/msgpack_format.h): map {"id","title","rows"}; rows an array of
// 8-entry maps; tags an array of str; price float64; ids and created the smallest int.
// php-msgpack's msgpack_unpack turns it into the same associative array as the JSON form.
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Appends the msgpack bytes of `page` to `out`.
void encode_msgpack(const Page& page, std::string& out);

// Decodes straight into the page with codecs/msgpack_format.h's Reader (the one the tree
// codec uses); str and bin are both accepted for strings (older writers use raw/bin), ints
// for price. Counts are checked against the bytes left and nesting is the page shape's, so
// hostile input cannot make it allocate more than the payload describes.
// Errors: parse_error, "msgpack: <what> at byte <offset>".
// Into `page`, reusing what it holds (codecs/value_codec.h decode_page_into).
Status decode_msgpack(std::string_view bytes, Page& page);

}  // namespace hitcost
