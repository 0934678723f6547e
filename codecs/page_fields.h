#pragma once
// The page shape every serializer shares, as seen by a decoder:
//   page object {"id", "title", "rows"}; row object {"id", "title", "author", "tags",
//   "price", "created", "excerpt", "url"}. Keys may come in any order (a PHP app may
//   build its arrays differently) but each must appear exactly once; unknown keys are a
//   parse_error, so a decoded page is always exactly a Page.
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "codecs/page.h"

namespace hitcost {

enum class PageKey : uint8_t { id, title, rows, unknown };
enum class RowKey : uint8_t { id, title, author, tags, price, created, excerpt, url, unknown };

inline constexpr uint32_t kAllPageKeys = (1u << 3) - 1;
inline constexpr uint32_t kAllRowKeys = (1u << 8) - 1;

inline PageKey page_key(std::string_view k) noexcept {
  if (k == "id") return PageKey::id;
  if (k == "title") return PageKey::title;
  if (k == "rows") return PageKey::rows;
  return PageKey::unknown;
}

inline RowKey row_key(std::string_view k) noexcept {
  switch (k.size()) {
    case 2: return k == "id" ? RowKey::id : RowKey::unknown;
    case 3: return k == "url" ? RowKey::url : RowKey::unknown;
    case 4: return k == "tags" ? RowKey::tags : RowKey::unknown;
    case 5: return k == "title" ? RowKey::title : (k == "price" ? RowKey::price : RowKey::unknown);
    case 6: return k == "author" ? RowKey::author : RowKey::unknown;
    case 7: return k == "created" ? RowKey::created : (k == "excerpt" ? RowKey::excerpt : RowKey::unknown);
    default: return RowKey::unknown;
  }
}

// Marks key `bit` seen in `mask`; false when it was already seen (a duplicate key).
inline bool mark_seen(uint32_t& mask, uint8_t bit) noexcept {
  uint32_t b = 1u << bit;
  if (mask & b) return false;
  mask |= b;
  return true;
}

// Reads the value of row key `k` into its field of `r` with the decoder's readers, one per
// type a row holds (each false on a value of another type or on malformed input): `Fields` has static bool integer(In&,
// int64_t&), text(In&, std::string&), price(In&, double&) and tags(In&, std::vector<std::string>&). Which key holds
// which type is said here once for every decoder. False for RowKey::unknown.
template <class Fields, class In>
bool read_row_field(In& in, RowKey k, Row& r) {
  switch (k) {
    case RowKey::id: return Fields::integer(in, r.id);
    case RowKey::created: return Fields::integer(in, r.created);
    case RowKey::title: return Fields::text(in, r.title);
    case RowKey::author: return Fields::text(in, r.author);
    case RowKey::excerpt: return Fields::text(in, r.excerpt);
    case RowKey::url: return Fields::text(in, r.url);
    case RowKey::price: return Fields::price(in, r.price);
    case RowKey::tags: return Fields::tags(in, r.tags);
    case RowKey::unknown: break;
  }
  return false;
}

// The same for page key `k` into `page`, with Fields::rows(In&, std::vector<Row>&) for the
// rows as well.
template <class Fields, class In>
bool read_page_field(In& in, PageKey k, Page& page) {
  switch (k) {
    case PageKey::id: return Fields::integer(in, page.id);
    case PageKey::title: return Fields::text(in, page.title);
    case PageKey::rows: return Fields::rows(in, page.rows);
    case PageKey::unknown: break;
  }
  return false;
}

// Decoding into a page that held an earlier one reuses its rows and strings, so that their
// buffers are kept and a warm decode allocates nothing (decode_page_into, codecs/value_codec.h):
// next_slot gives the next element to fill — one left from before, or a new one — and
// trim_slots drops those the new value does not have. Every decoder writes every field of a
// slot it fills (a row must have all its keys), so nothing of the earlier page survives.
template <class T>
T& next_slot(std::vector<T>& v, size_t& used) {
  if (used == v.size()) v.emplace_back();
  return v[used++];
}
template <class T>
void trim_slots(std::vector<T>& v, size_t used) {
  v.resize(used);
}

// Prices must be finite: NaN/inf can be written by msgpack or PHP but are not prices,
// and the renderer must never see them.
inline bool valid_price(double d) noexcept { return std::isfinite(d); }

}  // namespace hitcost
