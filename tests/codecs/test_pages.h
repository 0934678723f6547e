#pragma once
// Pages for codec tests beyond the generator: empty, escape-heavy, unicode, edge numbers.
#include <cstdint>
#include <limits>
#include <vector>

#include "codecs/page.h"
#include "codecs/page_generator.h"

namespace hitcost::testing {

inline Page empty_page() {
  Page p;
  p.id = 0;
  p.title = "";
  return p;
}

// Every character the encoders must escape or pass through untouched.
inline Page tricky_page() {
  Page p;
  p.id = -42;
  p.title = "Tricky <page> & \"quotes\" 'apostrophes' \\ back\\slash / slash";
  Row a;
  a.id = std::numeric_limits<int64_t>::max();
  a.title = "Ünïcödé — 日本語 😀 €";
  a.author = "O'Brien & <Sons>";
  a.tags = {"", "a\"b", "c\\d", "tab\there", "nl\nline", "cr\rret", "ctl\x01\x1f", "s:3:\"x\";"};
  a.price = 0.01;
  a.created = 0;
  a.excerpt = "a:999999999:{ } {\"json\":[1,2]} \xc3\xa9 end";
  a.url = "https://example.com/?a=1&b=<2>&c=\"3\"";
  Row b;
  b.id = std::numeric_limits<int64_t>::min();
  b.title = "";
  b.author = "";
  b.price = 5.0;       // whole number: "d:5;" / "5.0"
  b.created = -86400;  // 1969-12-31
  b.excerpt = std::string(300, 'x');
  b.url = "";
  Row c;
  c.id = 1;
  c.title = "big price";
  c.author = "x";
  c.tags = {"one"};
  c.price = 999999.99;
  c.created = 4102444800;  // 2100-01-01
  c.excerpt = "e";
  c.url = "u";
  p.rows = {a, b, c};
  return p;
}

inline std::vector<Page> sample_pages() {
  std::vector<Page> v = {empty_page(), tricky_page()};
  for (uint32_t rows : {0u, 1u, 5u, 50u, 500u}) v.push_back(generate_page({rows + 3, rows, 9, 1.0}));
  v.push_back(generate_page({77, 20, 3, 0.0}));
  v.push_back(generate_page({78, 20, 3, 0.5}));
  return v;
}

}  // namespace hitcost::testing
