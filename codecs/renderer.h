#pragma once
// HTML renderer: what the `html` strategies store and every struct hit rebuilds.
#include <string>
#include <string_view>

#include "codecs/page.h"

namespace hitcost {

// Appends the HTML for `page` to `out` (callers reuse `out` to avoid reallocations).
void render_page(const Page& page, std::string& out);
inline std::string render_page(const Page& page) {
  std::string s;
  render_page(page, s);
  return s;
}

// Escapes & < > " ' ; passes every other byte (UTF-8) through.
void append_html_escaped(std::string_view text, std::string& out);

}  // namespace hitcost
