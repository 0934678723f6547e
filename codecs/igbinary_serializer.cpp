#include "codecs/igbinary_serializer.h"

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "codecs/igbinary_format.h"
#include "codecs/page_fields.h"
#include "codecs/page_writer.h"

namespace hitcost {
namespace {

using namespace igbinary;  // the type bytes, Cursor and Writer: codecs/igbinary_format.h

// ---- decoder ----

// What an array id stands for, so that a later reference to it can be resolved.
struct ArrayOrigin {
  enum Kind : uint8_t { page_array, rows_array, row_array, tags_array } kind;
  uint32_t row = 0;       // the row it belongs to (row, tags)
  bool complete = false;  // fully read: a reference may copy it
  bool empty = false;
};

// The page's reading state over the format's Cursor: the string ids and what each array id
// stands for, so that back-references resolve.
class Reader {
 public:
  // `strings`: the string table's storage, reused across decodes on a thread (cleared here).
  Reader(std::string_view in, std::vector<std::string_view>& strings) : in_(in, 0), strings_(strings) {
    strings_.clear();
  }

  bool failed() const { return !in_.error().message.empty(); }
  Error error() const { return in_.error(); }
  bool at_end() const { return in_.at_end(); }
  bool fail(const char* what) { return in_.fail(what); }

  bool header() {
    if (Status st = check_header(in_.input()); !st) return in_.fail_with(st.error());
    uint64_t skipped = 0;
    return in_.be(4, skipped);
  }

  // A string value or key into `out` (a view of the input: no copy).
  bool string(std::string_view& out) {
    const size_t at = in_.pos();
    uint8_t t = 0;
    if (!in_.type(t)) return false;
    if (t == kEmptyString) {
      out = {};
      return true;
    }
    uint64_t v = 0;
    if (Cursor::in_family(t, kString8)) {
      if (!in_.be(Cursor::width_of(t, kString8), v)) return false;
      if (v > in_.left()) return in_.fail_at(at, "string length exceeds the data");
      out = in_.take(v);
      strings_.push_back(out);
      return true;
    }
    if (Cursor::in_family(t, kStringId8)) {
      if (!in_.be(Cursor::width_of(t, kStringId8), v)) return false;
      if (v >= strings_.size()) return in_.fail_at(at, "string back-reference to an id not yet seen");
      out = strings_[v];
      return true;
    }
    return in_.fail_at(at, "expected a string");
  }

  bool string(std::string& out) {
    std::string_view v;
    if (!string(v)) return false;
    out.assign(v);
    return true;
  }

  bool integer(int64_t& out) {
    const size_t at = in_.pos();
    uint8_t t = 0;
    if (!in_.type(t)) return false;
    if (!Cursor::is_int_type(t)) return in_.fail_at(at, "expected an integer");
    return in_.int_body(t, at, out);
  }

  // A double, or an int (a PHP app may store a whole price as an integer).
  bool price(double& out) {
    uint8_t t = 0;
    if (!in_.peek(t)) return false;
    if (t != kDouble) {
      int64_t i = 0;
      if (!integer(i)) return false;
      out = static_cast<double>(i);
      return true;
    }
    in_.type(t);
    uint64_t bits = 0;
    if (!in_.be(8, bits)) return false;
    out = std::bit_cast<double>(bits);
    return valid_price(out) || in_.fail("price is not finite");
  }

  // Either an array header (registered under the next id; n = its count) or, when
  // `ref` is given, a reference to an earlier array (*ref = its id).
  bool array_or_ref(uint64_t& n, std::optional<uint32_t>* ref, ArrayOrigin origin, size_t min_bytes) {
    const size_t at = in_.pos();
    uint8_t t = 0;
    if (!in_.type(t)) return false;
    uint64_t v = 0;
    if (Cursor::in_family(t, kArrayRef8)) {
      if (!ref) return in_.fail_at(at, "array reference where an array must be new");
      if (!in_.be(Cursor::width_of(t, kArrayRef8), v)) return false;
      if (v >= arrays_.size()) return in_.fail_at(at, "array reference to an id not yet seen");
      if (!arrays_[v].complete) return in_.fail_at(at, "array reference to an array still being read");
      *ref = static_cast<uint32_t>(v);
      return true;
    }
    if (!Cursor::in_family(t, kArray8)) return in_.fail_at(at, "expected an array");
    if (!in_.be(Cursor::width_of(t, kArray8), n)) return false;
    if (n > in_.left() / min_bytes) return in_.fail_at(at, "array count exceeds the data");
    origin.empty = n == 0;
    arrays_.push_back(origin);
    return true;
  }

  uint32_t last_array_id() const { return static_cast<uint32_t>(arrays_.size() - 1); }
  void complete(uint32_t id) { arrays_[id].complete = true; }
  const ArrayOrigin& array(uint32_t id) const { return arrays_[id]; }

  bool list_key(uint64_t index) {
    int64_t k = -1;
    if (!integer(k)) return false;
    if (k < 0 || static_cast<uint64_t>(k) != index) return fail("list keys are not 0..N-1 in order");
    return true;
  }

 private:
  Cursor in_;
  std::vector<std::string_view>& strings_;
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
  tags.resize(n);  // an earlier page's tags are reused (page_fields.h next_slot)
  for (uint64_t t = 0; t < n; ++t) {
    if (!in.list_key(t) || !in.string(tags[t])) return false;
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

// The page's shape (codecs/page_writer.h) in igbinary: maps and lists are both arrays of
// counted pairs, a list's keys are its indexes; an empty list after the first is a reference
// to PHP's one shared empty array, with nothing after it.
struct IgbinaryOut {
  Writer& w;
  bool open_map(size_t n) { return w.array(n); }
  bool open_list(size_t n) { return w.array(n); }
  void index(size_t i) { w.integer(static_cast<int64_t>(i)); }
  void key(std::string_view k) { w.string(k); }
  void integer(int64_t v) { w.integer(v); }
  void text(std::string_view s) { w.string(s); }
  void price(double d) { w.dbl(d); }
  void close() {}
};

}  // namespace

void encode_igbinary(const Page& page, std::string& out) {
  Writer w(out);
  w.reserve_strings(16 + page.rows.size() * 8);
  w.header();
  IgbinaryOut writer{w};
  write_page(page, writer);
}

Status decode_igbinary(std::string_view bytes, Page& page) {
  thread_local std::vector<std::string_view> strings;
  Reader in(bytes, strings);
  auto fail = [&] { return Status(in.error()); };
  if (!in.header()) return fail();
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
  return ok_status();
}

}  // namespace hitcost
