#pragma once
// The page as a PHP array, in the order and shape the serializers that write one write it
// (php serialize(), igbinary, MessagePack): the page map {id, title, rows}, rows a list of
// row maps {id, title, author, tags, price, created, excerpt, url}, tags a list of strings.
// The shape is said here once; each serializer gives the format (JSON, with its separators,
// writes its own).
//
// `Out` holds the format: open_map(n) and open_list(n) (false when nothing follows, as for
// igbinary's shared empty array), index(i) before each list element, key(name), integer(v),
// text(s), price(d), and close() after an opened container's last entry.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/page.h"

namespace hitcost {

// A key and its value: an int, a string, or (the page's one double) the price.
template <class Out>
void entry(Out& out, const char* key, int64_t v) {
  out.key(key);
  out.integer(v);
}
template <class Out>
void entry(Out& out, const char* key, const std::string& s) {
  out.key(key);
  out.text(s);
}
template <class Out>
void entry(Out& out, const char* key, double price) {
  out.key(key);
  out.price(price);
}

// A list: index(i) and the element, for each element.
template <class Out, class T, class WriteElement>
void write_list(const std::vector<T>& items, Out& out, WriteElement&& write_element) {
  if (!out.open_list(items.size())) return;
  for (size_t i = 0; i < items.size(); ++i) {
    out.index(i);
    write_element(items[i]);
  }
  out.close();
}

template <class Out>
void write_row(const Row& r, Out& out) {
  out.open_map(8);
  entry(out, "id", r.id);
  entry(out, "title", r.title);
  entry(out, "author", r.author);
  out.key("tags");
  write_list(r.tags, out, [&](const std::string& tag) { out.text(tag); });
  entry(out, "price", r.price);
  entry(out, "created", r.created);
  entry(out, "excerpt", r.excerpt);
  entry(out, "url", r.url);
  out.close();
}

template <class Out>
void write_page(const Page& page, Out& out) {
  out.open_map(3);
  entry(out, "id", page.id);
  entry(out, "title", page.title);
  out.key("rows");
  write_list(page.rows, out, [&](const Row& r) { write_row(r, out); });
  out.close();
}

}  // namespace hitcost
