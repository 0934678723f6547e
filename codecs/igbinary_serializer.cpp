#include "codecs/igbinary_serializer.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "codecs/igbinary_format.h"
#include "codecs/page_fields.h"

namespace hitcost {
namespace {

using namespace igbinary;  // the type bytes and the header: codecs/igbinary_format.h

// ---- encoder ----

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void header() { out_.append(kHeader, 4); }

  // Writes the smallest of three widths: type8/16/32 followed by `v` big-endian.
  void sized(uint8_t type8, uint64_t v) {
    if (v <= 0xff) {
      byte(type8);
      byte(v);
    } else if (v <= 0xffff) {
      byte(type8 + 1);
      be(v, 2);
    } else {
      byte(type8 + 2);
      be(v, 4);
    }
  }

  void integer(int64_t v) {
    bool neg = v < 0;
    uint64_t m = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (m > 0xffffffffu) {
      byte(neg ? kNeg64 : kPos64);
      be(m, 8);
      return;
    }
    // 06/07, 08/09, 0a/0b: sign alternates within each width.
    int width = m <= 0xff ? 0 : (m <= 0xffff ? 1 : 2);
    byte(static_cast<uint8_t>(kPos8 + 2 * width + (neg ? 1 : 0)));
    be(m, 1 << width);
  }

  void dbl(double d) {
    byte(kDouble);
    be(std::bit_cast<uint64_t>(d), 8);
  }

  // A string value or key: empty, first sighting (gets the next id) or back-reference.
  void string(std::string_view s) {
    if (s.empty()) {
      byte(kEmptyString);
      return;
    }
    auto [it, fresh] = ids_.try_emplace(s, static_cast<uint32_t>(ids_.size()));
    if (!fresh) {
      sized(kStringId8, it->second);
      return;
    }
    sized(kString8, s.size());
    out_ += s;
  }

  // Opens an array of `n` elements; false when it was written as a reference to the
  // shared empty array (nothing follows then).
  bool array(size_t n) {
    if (n == 0 && first_empty_) {
      sized(kArrayRef8, *first_empty_);
      return false;
    }
    if (n == 0) first_empty_ = next_array_id_;
    ++next_array_id_;
    sized(kArray8, n);
    return true;
  }

  void reserve_strings(size_t n) { ids_.reserve(n); }

 private:
  void byte(uint64_t b) { out_.push_back(static_cast<char>(static_cast<uint8_t>(b))); }
  void be(uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) byte(v >> (8 * i));
  }

  std::string& out_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  uint32_t next_array_id_ = 0;
  std::optional<uint32_t> first_empty_;
};

// ---- decoder ----

// What an array id stands for, so that a later reference to it can be resolved.
struct ArrayOrigin {
  enum Kind : uint8_t { page_array, rows_array, row_array, tags_array } kind;
  uint32_t row = 0;       // the row it belongs to (row, tags)
  bool complete = false;  // fully read: a reference may copy it
  bool empty = false;
};

class Reader {
 public:
  explicit Reader(std::string_view in)
      : p_(reinterpret_cast<const uint8_t*>(in.data())), end_(p_ + in.size()), begin_(p_) {}

  bool failed() const { return !error_.empty(); }
  std::string error() const { return error_ + " at byte " + std::to_string(at_ - begin_); }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  bool fail(const char* what) {
    if (error_.empty()) {
      error_ = what;
      at_ = p_;
    }
    return false;
  }

  bool header() {
    if (remaining() < 4 || std::memcmp(p_, kHeader, 4) != 0) return fail("not an igbinary version 2 header");
    p_ += 4;
    return true;
  }

  bool peek(uint8_t& t) {
    if (failed()) return false;
    if (p_ == end_) return fail("value past the end of the data");
    t = *p_;
    return true;
  }

  bool type(uint8_t& t) {
    if (!peek(t)) return false;
    ++p_;
    return true;
  }

  bool be(uint64_t& v, int bytes) {
    if (failed()) return false;
    if (remaining() < static_cast<size_t>(bytes)) return fail("number past the end of the data");
    v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | *p_++;
    return true;
  }

  // Width of a 8/16/32-bit sized form starting at `type8`, or 0 when `t` is not one.
  static int width_of(uint8_t t, uint8_t type8) { return t == type8 ? 1 : t == type8 + 1 ? 2 : t == type8 + 2 ? 4 : 0; }

  // A string value or key into `out` (a view of the input: no copy).
  bool string(std::string_view& out) {
    uint8_t t = 0;
    if (!type(t)) return false;
    if (t == kEmptyString) {
      out = {};
      return true;
    }
    uint64_t v = 0;
    if (int w = width_of(t, kString8)) {
      if (!be(v, w)) return false;
      if (v > remaining()) return fail("string length exceeds the data");
      out = std::string_view(reinterpret_cast<const char*>(p_), v);
      p_ += v;
      strings_.push_back(out);
      return true;
    }
    if (int w = width_of(t, kStringId8)) {
      if (!be(v, w)) return false;
      if (v >= strings_.size()) return fail("string back-reference to an id not yet seen");
      out = strings_[v];
      return true;
    }
    return fail("expected a string");
  }

  bool string(std::string& out) {
    std::string_view v;
    if (!string(v)) return false;
    out.assign(v);
    return true;
  }

  bool integer(int64_t& out) {
    uint8_t t = 0;
    if (!type(t)) return false;
    uint64_t m = 0;
    bool neg = false;
    switch (t) {
      case kPos8:
      case kNeg8:
        if (!be(m, 1)) return false;
        neg = t == kNeg8;
        break;
      case kPos16:
      case kNeg16:
        if (!be(m, 2)) return false;
        neg = t == kNeg16;
        break;
      case kPos32:
      case kNeg32:
        if (!be(m, 4)) return false;
        neg = t == kNeg32;
        break;
      case kPos64:
      case kNeg64:
        if (!be(m, 8)) return false;
        neg = t == kNeg64;
        break;
      default: return fail("expected an integer");
    }
    if (neg) {
      if (m > uint64_t{1} << 63) return fail("negative integer out of range");
      out = static_cast<int64_t>(uint64_t{0} - m);
    } else {
      if (m > static_cast<uint64_t>(INT64_MAX)) return fail("integer out of range");
      out = static_cast<int64_t>(m);
    }
    return true;
  }

  bool price(double& out) {
    uint8_t t = 0;
    if (!peek(t)) return false;
    if (t != kDouble) {
      int64_t i = 0;
      if (!integer(i)) return fail("expected a double");
      out = static_cast<double>(i);
      return true;
    }
    ++p_;
    uint64_t bits = 0;
    if (!be(bits, 8)) return false;
    out = std::bit_cast<double>(bits);
    if (!valid_price(out)) return fail("price is not finite");
    return true;
  }

  // Either an array header (registered under the next id; n = its count) or, when
  // `ref` is given, a reference to an earlier array (*ref = its id).
  bool array_or_ref(uint64_t& n, std::optional<uint32_t>* ref, ArrayOrigin origin, size_t min_bytes) {
    uint8_t t = 0;
    if (!type(t)) return false;
    uint64_t v = 0;
    if (int w = width_of(t, kArrayRef8)) {
      if (!ref) return fail("array reference where an array must be new");
      if (!be(v, w)) return false;
      if (v >= arrays_.size()) return fail("array reference to an id not yet seen");
      if (!arrays_[v].complete) return fail("array reference to an array still being read");
      *ref = static_cast<uint32_t>(v);
      return true;
    }
    int w = width_of(t, kArray8);
    if (!w) return fail("expected an array");
    if (!be(n, w)) return false;
    if (n > remaining() / min_bytes) return fail("array count exceeds the data");
    origin.empty = n == 0;
    arrays_.push_back(origin);
    return true;
  }

  uint32_t last_array_id() const { return static_cast<uint32_t>(arrays_.size() - 1); }
  void complete(uint32_t id) { arrays_[id].complete = true; }
  const ArrayOrigin& array(uint32_t id) const { return arrays_[id]; }

  bool list_key(uint64_t index) {
    int64_t k = -1;
    if (!integer(k)) return fail("expected a list index");
    if (k < 0 || static_cast<uint64_t>(k) != index) return fail("list keys are not 0..N-1 in order");
    return true;
  }

  void reserve_strings(size_t n) { strings_.reserve(n); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
  const uint8_t* at_ = nullptr;
  std::string error_;
  std::vector<std::string_view> strings_;
  std::vector<ArrayOrigin> arrays_;
};

// Smallest encodings, used to bound counts before reserving: a tag is key 06 xx + a
// 1-byte value; a row at least key 06 xx + a reference 01 xx to an earlier row.
constexpr size_t kMinTagBytes = 3;
constexpr size_t kMinRowBytes = 4;

bool read_tags(Reader& in, Page& page, uint32_t row) {
  uint64_t n = 0;
  std::optional<uint32_t> ref;
  std::vector<std::string>& tags = page.rows[row].tags;
  if (!in.array_or_ref(n, &ref, {ArrayOrigin::tags_array, row}, kMinTagBytes)) return false;
  if (ref) {
    const ArrayOrigin& a = in.array(*ref);
    if (a.empty)
      tags.clear();
    else if (a.kind == ArrayOrigin::tags_array)
      tags = page.rows[a.row].tags;
    else
      return in.fail("tags refer to an array that is not a tag list");
    return true;
  }
  uint32_t id = in.last_array_id();
  tags.clear();
  tags.reserve(n);
  for (uint64_t t = 0; t < n; ++t) {
    tags.emplace_back();
    if (!in.list_key(t) || !in.string(tags.back())) return false;
  }
  in.complete(id);
  return true;
}

bool read_row(Reader& in, Page& page, uint32_t row) {
  uint64_t n = 0;
  std::optional<uint32_t> ref;
  if (!in.array_or_ref(n, &ref, {ArrayOrigin::row_array, row}, 2)) return false;
  if (ref) {
    const ArrayOrigin& a = in.array(*ref);
    if (a.kind != ArrayOrigin::row_array) return in.fail("a row refers to an array that is not a row");
    page.rows[row] = page.rows[a.row];
    return true;
  }
  uint32_t id = in.last_array_id();
  if (n != 8) return in.fail("a row must have 8 keys");
  uint32_t seen = 0;
  Row& r = page.rows[row];
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key;
    if (!in.string(key)) return false;
    RowKey k = row_key(key);
    if (k == RowKey::unknown) return in.fail("unexpected row key");
    if (!mark_seen(seen, static_cast<uint8_t>(k))) return in.fail("duplicate row key");
    bool ok = false;
    switch (k) {
      case RowKey::id: ok = in.integer(r.id); break;
      case RowKey::created: ok = in.integer(r.created); break;
      case RowKey::title: ok = in.string(r.title); break;
      case RowKey::author: ok = in.string(r.author); break;
      case RowKey::excerpt: ok = in.string(r.excerpt); break;
      case RowKey::url: ok = in.string(r.url); break;
      case RowKey::price: ok = in.price(r.price); break;
      case RowKey::tags: ok = read_tags(in, page, row); break;
      case RowKey::unknown: break;
    }
    if (!ok) return false;
  }
  in.complete(id);
  return true;
}

bool read_rows(Reader& in, Page& page) {
  uint64_t n = 0;
  if (!in.array_or_ref(n, nullptr, {ArrayOrigin::rows_array}, kMinRowBytes)) return false;
  uint32_t id = in.last_array_id();
  page.rows.resize(n);
  for (uint64_t r = 0; r < n; ++r) {
    if (!in.list_key(r) || !read_row(in, page, static_cast<uint32_t>(r))) return false;
  }
  in.complete(id);
  return true;
}

}  // namespace

void encode_igbinary(const Page& page, std::string& out) {
  Writer w(out);
  w.reserve_strings(16 + page.rows.size() * 8);
  w.header();
  w.array(3);
  w.string("id");
  w.integer(page.id);
  w.string("title");
  w.string(page.title);
  w.string("rows");
  if (!w.array(page.rows.size())) return;
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const Row& r = page.rows[i];
    w.integer(static_cast<int64_t>(i));
    w.array(8);
    w.string("id");
    w.integer(r.id);
    w.string("title");
    w.string(r.title);
    w.string("author");
    w.string(r.author);
    w.string("tags");
    if (w.array(r.tags.size())) {
      for (size_t t = 0; t < r.tags.size(); ++t) {
        w.integer(static_cast<int64_t>(t));
        w.string(r.tags[t]);
      }
    }
    w.string("price");
    w.dbl(r.price);
    w.string("created");
    w.integer(r.created);
    w.string("excerpt");
    w.string(r.excerpt);
    w.string("url");
    w.string(r.url);
  }
}

Result<Page> decode_igbinary(std::string_view bytes) {
  Reader in(bytes);
  Page page;
  auto fail = [&] { return Error{Errc::parse_error, "igbinary: " + in.error()}; };
  if (!in.header()) return fail();
  in.reserve_strings(64);
  uint64_t n = 0;
  if (!in.array_or_ref(n, nullptr, {ArrayOrigin::page_array}, 2)) return fail();
  if (n != 3) {
    in.fail("a page must have 3 keys");
    return fail();
  }
  uint32_t seen = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key;
    if (!in.string(key)) return fail();
    PageKey k = page_key(key);
    if (k == PageKey::unknown)
      in.fail("unexpected page key");
    else if (!mark_seen(seen, static_cast<uint8_t>(k)))
      in.fail("duplicate page key");
    switch (k) {
      case PageKey::id: in.integer(page.id); break;
      case PageKey::title: in.string(page.title); break;
      case PageKey::rows: read_rows(in, page); break;
      case PageKey::unknown: break;
    }
    if (in.failed()) return fail();
  }
  if (!in.at_end()) {
    in.fail("trailing bytes after the page");
    return fail();
  }
  return page;
}

}  // namespace hitcost
