#include "codecs/msgpack_serializer.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <msgpack.hpp>

#include "codecs/page_fields.h"

namespace hitcost {
namespace {

// msgpack::packer needs only write(); append straight into the caller's string.
struct StringSink {
  std::string& s;
  void write(const char* p, size_t n) { s.append(p, n); }
};

void pack_str(msgpack::packer<StringSink>& pk, std::string_view s) {
  pk.pack_str(static_cast<uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}

// float64 (0xcb + 8 bytes big-endian) always. msgpack-cxx 4's pack_double writes a
// whole-number double (5.0) as an integer, which PHP's msgpack_unpack then returns as int:
// a price must stay a float for every reader.
void pack_float64(StringSink& sink, double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  char buf[9];
  buf[0] = static_cast<char>(0xcb);
  for (int i = 0; i < 8; ++i) buf[1 + i] = static_cast<char>(bits >> (56 - 8 * i));
  sink.write(buf, sizeof buf);
}

Error fail(std::string what) { return Error{Errc::parse_error, "msgpack: " + std::move(what)}; }

// Built by appending: GCC 12 warns falsely (-Wrestrict, bug 105329) on "lit" + string + "lit".
Error wrong_type(const char* where, std::string_view key) {
  std::string m = where;
  m += " key '";
  m.append(key);
  m += "' has the wrong type";
  return fail(std::move(m));
}

using Obj = msgpack::object;
namespace T = msgpack::type;

bool as_string(const Obj& o, std::string& out) {
  if (o.type == T::STR) {
    out.assign(o.via.str.ptr, o.via.str.size);
    return true;
  }
  if (o.type == T::BIN) {
    out.assign(o.via.bin.ptr, o.via.bin.size);
    return true;
  }
  return false;
}

bool as_key(const Obj& o, std::string_view& out) {
  if (o.type != T::STR) return false;
  out = std::string_view(o.via.str.ptr, o.via.str.size);
  return true;
}

bool as_int(const Obj& o, int64_t& out) {
  if (o.type == T::POSITIVE_INTEGER) {
    if (o.via.u64 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    out = static_cast<int64_t>(o.via.u64);
    return true;
  }
  if (o.type == T::NEGATIVE_INTEGER) {
    out = o.via.i64;
    return true;
  }
  return false;
}

bool as_price(const Obj& o, double& out) {
  int64_t i = 0;
  if (o.type == T::FLOAT64 || o.type == T::FLOAT32) {
    out = o.via.f64;
  } else if (as_int(o, i)) {
    out = static_cast<double>(i);
  } else {
    return false;
  }
  return valid_price(out);
}

Result<Row> to_row(const Obj& o) {
  if (o.type != T::MAP) return fail("row is not a map");
  Row r;
  uint32_t seen = 0;
  for (uint32_t i = 0; i < o.via.map.size; ++i) {
    const auto& kv = o.via.map.ptr[i];
    std::string_view key;
    if (!as_key(kv.key, key)) return fail("row key is not a string");
    RowKey k = row_key(key);
    if (k == RowKey::unknown) return fail("unexpected row key");
    if (!mark_seen(seen, static_cast<uint8_t>(k))) return fail("duplicate row key");
    const Obj& v = kv.val;
    bool ok = true;
    switch (k) {
      case RowKey::id: ok = as_int(v, r.id); break;
      case RowKey::created: ok = as_int(v, r.created); break;
      case RowKey::title: ok = as_string(v, r.title); break;
      case RowKey::author: ok = as_string(v, r.author); break;
      case RowKey::excerpt: ok = as_string(v, r.excerpt); break;
      case RowKey::url: ok = as_string(v, r.url); break;
      case RowKey::price: ok = as_price(v, r.price); break;
      case RowKey::tags:
        ok = v.type == T::ARRAY;
        if (ok) {
          r.tags.resize(v.via.array.size);
          for (uint32_t t = 0; ok && t < v.via.array.size; ++t) ok = as_string(v.via.array.ptr[t], r.tags[t]);
        }
        break;
      case RowKey::unknown: break;
    }
    if (!ok) return wrong_type("row", key);
  }
  if (seen != kAllRowKeys) return fail("row is missing a key");
  return r;
}

}  // namespace

void encode_msgpack(const Page& page, std::string& out) {
  StringSink sink{out};
  msgpack::packer<StringSink> pk(sink);
  pk.pack_map(3);
  pack_str(pk, "id");
  pk.pack_int64(page.id);
  pack_str(pk, "title");
  pack_str(pk, page.title);
  pack_str(pk, "rows");
  pk.pack_array(static_cast<uint32_t>(page.rows.size()));
  for (const Row& r : page.rows) {
    pk.pack_map(8);
    pack_str(pk, "id");
    pk.pack_int64(r.id);
    pack_str(pk, "title");
    pack_str(pk, r.title);
    pack_str(pk, "author");
    pack_str(pk, r.author);
    pack_str(pk, "tags");
    pk.pack_array(static_cast<uint32_t>(r.tags.size()));
    for (const auto& t : r.tags) pack_str(pk, t);
    pack_str(pk, "price");
    pack_float64(sink, r.price);
    pack_str(pk, "created");
    pk.pack_int64(r.created);
    pack_str(pk, "excerpt");
    pack_str(pk, r.excerpt);
    pack_str(pk, "url");
    pack_str(pk, r.url);
  }
}

Result<Page> decode_msgpack(std::string_view bytes) {
  try {
    size_t off = 0;
    // Each element takes at least one byte, so no count can exceed the payload size;
    // the page shape nests 4 deep (page map > rows array > row map > tags array).
    size_t n = bytes.size();
    msgpack::unpack_limit limit(n, n, n, n, n, 4);
    // Reference strings in place: they are copied once, into the Page.
    auto reference = [](T::object_type, std::size_t, void*) { return true; };
    msgpack::object_handle oh = msgpack::unpack(bytes.data(), n, off, reference, nullptr, limit);
    if (off != n) return fail("trailing bytes after the page");
    const Obj& o = oh.get();
    if (o.type != T::MAP) return fail("page is not a map");
    Page page;
    uint32_t seen = 0;
    for (uint32_t i = 0; i < o.via.map.size; ++i) {
      const auto& kv = o.via.map.ptr[i];
      std::string_view key;
      if (!as_key(kv.key, key)) return fail("page key is not a string");
      PageKey k = page_key(key);
      if (k == PageKey::unknown) return fail("unexpected page key");
      if (!mark_seen(seen, static_cast<uint8_t>(k))) return fail("duplicate page key");
      const Obj& v = kv.val;
      bool ok = true;
      switch (k) {
        case PageKey::id: ok = as_int(v, page.id); break;
        case PageKey::title: ok = as_string(v, page.title); break;
        case PageKey::rows:
          ok = v.type == T::ARRAY;
          if (!ok) break;
          page.rows.reserve(v.via.array.size);
          for (uint32_t r = 0; r < v.via.array.size; ++r) {
            auto row = to_row(v.via.array.ptr[r]);
            if (!row) return row.error();
            page.rows.push_back(std::move(*row));
          }
          break;
        case PageKey::unknown: break;
      }
      if (!ok) return wrong_type("page", key);
    }
    if (seen != kAllPageKeys) return fail("page is missing a key");
    return page;
  } catch (const std::exception& e) {  // unpack_error, insufficient_bytes, size overflow...
    return fail(e.what());
  }
}

}  // namespace hitcost
