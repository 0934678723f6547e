#pragma once
// PHP serialize() text of a page, as PHP itself writes the equivalent array:
//   a:3:{s:2:"id";i:7;s:5:"title";s:N:"...";s:4:"rows";a:N:{i:0;a:8:{s:2:"id";i:..;
//   s:5:"title";s:..;s:6:"author";s:..;s:4:"tags";a:K:{i:0;s:..;}s:5:"price";d:12.34;
//   s:7:"created";i:..;s:7:"excerpt";s:..;s:3:"url";s:..;}...}}
// Strings are byte strings (length in bytes, no escaping); doubles use the shortest
// round-trip form like PHP 8's serialize_precision=-1 ("d:12.34;", "d:5;").
#include <string>
#include <string_view>

#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

// Appends the serialize() text of `page` to `out`.
void encode_php(const Page& page, std::string& out);

// Strict, bounds-checked decoder for the page shape: every length and count is checked
// against the bytes that remain before anything is allocated; list arrays must have keys
// i:0..i:N-1 in order; integers are accepted for price. Errors: parse_error.
// Into `page`, reusing what it holds (codecs/value_codec.h decode_page_into).
Status decode_php(std::string_view text, Page& page);

}  // namespace hitcost
