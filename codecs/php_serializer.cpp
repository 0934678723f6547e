#include "codecs/php_serializer.h"

#include <charconv>
#include <cstdint>
#include <cstring>

#include "codecs/page_fields.h"
#include "codecs/text_append.h"

namespace hitcost {
namespace {

void put_key(std::string& out, std::string_view k) {
  out += "s:";
  append_uint(out, k.size());
  out += ":\"";
  out += k;
  out += "\";";
}

void put_str(std::string& out, std::string_view s) {
  out += "s:";
  append_uint(out, s.size());
  out += ":\"";
  out += s;
  out += "\";";
}

void put_int(std::string& out, int64_t v) {
  out += "i:";
  append_int(out, v);
  out += ';';
}

// Reads one serialize() value of a known expected type. Every read checks the bounds
// first; the first failure is kept in `error` and all later reads fail fast.
class Reader {
 public:
  explicit Reader(std::string_view t) : p_(t.data()), end_(t.data() + t.size()) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }

  bool fail(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }

  bool lit(std::string_view s) {
    if (failed()) return false;
    if (remaining() < s.size() || std::memcmp(p_, s.data(), s.size()) != 0) return fail("unexpected bytes");
    p_ += s.size();
    return true;
  }

  // Digits with an optional sign, up to `stop`.
  bool integer(int64_t& out, char stop) {
    if (failed()) return false;
    const char* b = p_;
    if (b < end_ && *b == '+') ++b;  // PHP's unserialize accepts a leading '+'
    auto r = std::from_chars(b, end_, out);
    if (r.ec != std::errc() || r.ptr == end_ || *r.ptr != stop) return fail("bad integer");
    p_ = r.ptr + 1;
    return true;
  }

  // An unsigned count or length, up to `stop`.
  bool count(uint64_t& out, char stop) {
    if (failed()) return false;
    auto r = std::from_chars(p_, end_, out);
    if (r.ec != std::errc() || r.ptr == end_ || *r.ptr != stop) return fail("bad length or count");
    p_ = r.ptr + 1;
    return true;
  }

  // s:N:"<N bytes>";  — N is checked against the remaining bytes before copying.
  bool string(std::string& out) {
    uint64_t n = 0;
    if (!lit("s:") || !count(n, ':') || !lit("\"")) return fail("expected a string");
    if (n > remaining() || remaining() - n < 2) return fail("string length exceeds the data");
    out.assign(p_, n);
    p_ += n;
    return lit("\";");
  }

  bool string_view(std::string_view& out) {
    uint64_t n = 0;
    if (!lit("s:") || !count(n, ':') || !lit("\"")) return fail("expected a string key");
    if (n > remaining() || remaining() - n < 2) return fail("string length exceeds the data");
    out = std::string_view(p_, n);
    p_ += n;
    return lit("\";");
  }

  bool int_value(int64_t& out) { return lit("i:") && integer(out, ';'); }

  // d:<float>; or i:<int>; (a PHP app may store a whole price as an integer).
  bool price(double& out) {
    if (failed()) return false;
    if (remaining() >= 2 && p_[0] == 'i') {
      int64_t i = 0;
      if (!int_value(i)) return false;
      out = static_cast<double>(i);
      return true;
    }
    if (!lit("d:")) return fail("expected a double");
    const char* b = p_;
    if (b < end_ && *b == '+') ++b;
    auto r = std::from_chars(b, end_, out);
    if (r.ec != std::errc() || r.ptr == end_ || *r.ptr != ';') return fail("bad double");
    if (!valid_price(out)) return fail("price is not finite");
    p_ = r.ptr + 1;
    return true;
  }

  // a:N:{  — N must be plausible: each element needs at least `min_bytes` bytes.
  bool array_open(uint64_t& n, size_t min_bytes) {
    if (!lit("a:") || !count(n, ':') || !lit("{")) return fail("expected an array");
    if (n > remaining() / min_bytes) return fail("array count exceeds the data");
    return true;
  }

  bool list_key(uint64_t index) {
    int64_t k = -1;
    if (!lit("i:") || !integer(k, ';')) return fail("expected a list index");
    if (k < 0 || static_cast<uint64_t>(k) != index) return fail("list keys are not 0..N-1 in order");
    return true;
  }

 private:
  const char* p_;
  const char* end_;
  std::string error_;
};

// Smallest encodings, used to bound counts: "i:0;s:0:\"\";" is 11 bytes per tag; a row
// is far larger than 40 bytes.
constexpr size_t kMinTagBytes = 11;
constexpr size_t kMinRowBytes = 40;

bool read_row(Reader& in, Row& r) {
  uint64_t n = 0;
  if (!in.array_open(n, 8)) return false;
  if (n != 8) return in.fail("a row must have 8 keys");
  uint32_t seen = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key;
    if (!in.string_view(key)) return false;
    RowKey k = row_key(key);
    if (k == RowKey::unknown) return in.fail("unexpected row key");
    if (!mark_seen(seen, static_cast<uint8_t>(k))) return in.fail("duplicate row key");
    bool ok = false;
    switch (k) {
      case RowKey::id: ok = in.int_value(r.id); break;
      case RowKey::created: ok = in.int_value(r.created); break;
      case RowKey::title: ok = in.string(r.title); break;
      case RowKey::author: ok = in.string(r.author); break;
      case RowKey::excerpt: ok = in.string(r.excerpt); break;
      case RowKey::url: ok = in.string(r.url); break;
      case RowKey::price: ok = in.price(r.price); break;
      case RowKey::tags: {
        uint64_t nt = 0;
        ok = in.array_open(nt, kMinTagBytes);
        r.tags.clear();
        if (ok) r.tags.reserve(nt);  // nt is the unchecked text when array_open failed
        for (uint64_t t = 0; ok && t < nt; ++t) {
          r.tags.emplace_back();
          ok = in.list_key(t) && in.string(r.tags.back());
        }
        ok = ok && in.lit("}");
        break;
      }
      case RowKey::unknown: break;
    }
    if (!ok) return in.fail("bad row value");
  }
  return in.lit("}");
}

}  // namespace

void encode_php(const Page& page, std::string& out) {
  out += "a:3:{";
  put_key(out, "id");
  put_int(out, page.id);
  put_key(out, "title");
  put_str(out, page.title);
  put_key(out, "rows");
  out += "a:";
  append_uint(out, page.rows.size());
  out += ":{";
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const Row& r = page.rows[i];
    put_int(out, static_cast<int64_t>(i));
    out += "a:8:{";
    put_key(out, "id");
    put_int(out, r.id);
    put_key(out, "title");
    put_str(out, r.title);
    put_key(out, "author");
    put_str(out, r.author);
    put_key(out, "tags");
    out += "a:";
    append_uint(out, r.tags.size());
    out += ":{";
    for (size_t t = 0; t < r.tags.size(); ++t) {
      put_int(out, static_cast<int64_t>(t));
      put_str(out, r.tags[t]);
    }
    out += '}';
    put_key(out, "price");
    out += "d:";
    append_double_shortest(out, r.price);
    out += ';';
    put_key(out, "created");
    put_int(out, r.created);
    put_key(out, "excerpt");
    put_str(out, r.excerpt);
    put_key(out, "url");
    put_str(out, r.url);
    out += '}';
  }
  out += "}}";
}

Result<Page> decode_php(std::string_view text) {
  Reader in(text);
  Page page;
  uint64_t n = 0;
  auto fail = [&] { return Error{Errc::parse_error, "php serialize: " + in.error()}; };
  if (!in.array_open(n, 4)) return fail();
  if (n != 3) return Error{Errc::parse_error, "php serialize: a page must have 3 keys"};
  uint32_t seen = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view key;
    if (!in.string_view(key)) return fail();
    PageKey k = page_key(key);
    if (k == PageKey::unknown)
      in.fail("unexpected page key");
    else if (!mark_seen(seen, static_cast<uint8_t>(k)))
      in.fail("duplicate page key");
    if (in.failed()) return fail();
    switch (k) {
      case PageKey::id: in.int_value(page.id); break;
      case PageKey::title: in.string(page.title); break;
      case PageKey::rows: {
        uint64_t nr = 0;
        if (!in.array_open(nr, kMinRowBytes)) break;
        page.rows.reserve(nr);
        for (uint64_t r = 0; r < nr && !in.failed(); ++r) {
          page.rows.emplace_back();
          if (in.list_key(r)) read_row(in, page.rows.back());
        }
        in.lit("}");
        break;
      }
      case PageKey::unknown: break;
    }
    if (in.failed()) return fail();
  }
  if (!in.lit("}")) return fail();
  if (!in.at_end()) return Error{Errc::parse_error, "php serialize: trailing bytes after the page"};
  return page;
}

}  // namespace hitcost
