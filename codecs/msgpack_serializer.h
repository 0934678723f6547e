#pragma once
// MessagePack form of a page (msgpack-cxx): map {"id","title","rows"}; rows an array of
// 8-entry maps; tags an array of str; price float64; ids and created the smallest int.
// php-msgpack's msgpack_unpack turns it into the same associative array as the JSON form.
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Appends the msgpack bytes of `page` to `out`.
void encode_msgpack(const Page& page, std::string& out);

// Decodes; str and bin are both accepted for strings (older writers use raw/bin), ints
// for price. Counts are limited by the payload size and nesting by the page shape, so
// hostile input cannot make the unpacker allocate more than ~24x the payload.
// Errors: parse_error (msgpack-cxx exceptions are caught here).
Result<Page> decode_msgpack(std::string_view bytes);

}  // namespace hitcost
