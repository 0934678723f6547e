#pragma once
// igbinary (format version 2) of a page, as php-igbinary 3.2 writes the equivalent PHP
// array (FORMATS.md). Written here from the format's description.
//   header 00 00 00 02; numbers big-endian; arrays 14/15/16 + 8/16/32-bit count, then
//   key/value pairs; integers 06/07 08/09 0a/0b 20/21 (sign by type, magnitude after);
//   doubles 0c + IEEE 754 big-endian; strings 0d (empty) or 11/12/13 + length + bytes.
// Encoder, byte-exact with PHP's igbinary_serialize() of the page's array as PHP holds it
// after unserialize() or json_decode(): every non-empty string (keys included) gets an id
// in stream order when first written and is written again as a back-reference 0e/0f/10
// + id (igbinary.compact_strings=1, the default); arrays get ids in pre-order (the page
// is 0), and since PHP shares one immutable empty array, every empty array after the first
// is written as a reference 01/02/03 + the first one's id.
// Decoder: strict and bounds-checked for the page shape (keys in any order, each once),
// resolves string back-references and references to earlier complete rows or tag lists;
// an integer price is accepted like the other decoders. Rejects trailing bytes.
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Appends the igbinary form of `page` to `out`.
void encode_igbinary(const Page& page, std::string& out);

// Errors: parse_error (what and where), never a partial page.
// Into `page`, reusing what it holds (codecs/value_codec.h decode_page_into).
Status decode_igbinary(std::string_view bytes, Page& page);

}  // namespace hitcost
