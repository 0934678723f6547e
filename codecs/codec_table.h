#pragma once
// Every serializer and every compressor hitcost knows, one row each (lzbench's comp_desc[]):
// the word the strategy grammar uses for it, its stable id, the bits that stand for it in
// the PHP flag schemes, and its functions. Strategy parsing and to_string, value_codec,
// compressor.cpp, the flag schemes, the benchmarks, the fuzzers and the tests all iterate
// these two tables, so a new codec is one row here plus its functions. A new serializer that
// also needs its tree codec, a row of kTreeCodecs in
// corpus/tree_codec.cpp (hitcost-corpus and the server's /value route read values through it;
// tests/corpus/tree_codec_table_test.cpp fails until the row is there).
// A row is a format, not a library: where several libraries read the same bytes (JSON, zlib),
// which one runs is the reader's choice, listed in codecs/decoders.h and codecs/inflate.h.
// Representation::html and the id `none` are the baseline (no serializer, no compressor)
// and have no row.
//
// Rows are wire format: a name is what users type and what reports print; an id is written
// into the native flags word; a php_* value is written into the flags PHP reads
// (FORMATS.md). Never renumber or rename a row; append new ones.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "codecs/fastlz.h"
#include "codecs/igbinary_serializer.h"
#include "codecs/json_serializer.h"
#include "codecs/msgpack_serializer.h"
#include "codecs/page.h"
#include "codecs/php_serializer.h"
#include "core/result.h"

namespace hitcost {

// Stable ids: they appear in the native flags word (4 bits each); never renumber. 4 is retired: it
// was struct:simdjson, which wrote JSON's bytes under json's id (1); simdjson is now one of JSON's
// decoders (codecs/decoders.h), and a native value with serializer id 4 is refused as unknown.
enum class SerializerId : uint8_t { none = 0, json = 1, msgpack = 2, php = 3, igbinary = 5 };
enum class CompressorId : uint8_t { none = 0, zlib = 1, zstd = 2, lz4 = 3, fastlz = 4 };

// Valid `level` ranges (0 always means the compressor's default).
struct LevelRange {
  int min, max, default_level;
};

struct SerializerCodec {
  SerializerId id;
  const char* name;
  uint32_t php_memcache_flag;                          // its bit under php-memcache; 0: that scheme cannot say it
  uint32_t php_memcached_type;                         // its type (bits 0-3) under php-memcached; 0: cannot say it
  void (*encode)(const Page& page, std::string& out);  // appends to out
  // The reference decoder, into `page` (reusing what it holds); errors: parse_error.
  Status (*decode)(std::string_view bytes, Page& page);
};

struct CompressorCodec {
  CompressorId id;
  const char* name;
  LevelRange levels;
  uint32_t php_memcache_flag;     // its bit under php-memcache; 0: that scheme cannot say it
  uint32_t php_memcached_method;  // its method bit under php-memcached (with 0x10); 0: cannot
  // Appends the compressed form of `in` to `out`; level is within `levels` (compress()
  // in compressor.h turns 0 into levels.default_level first).
  Status (*compress)(int level, std::string_view in, std::string& out);
  // Decompresses into `out`, resized to exactly `expected` bytes (decompress_exact()
  // applies the size cap first). Errors: bad_length, decompress_failed.
  Status (*decompress)(std::string_view in, size_t expected, std::string& out);
};

// The rows' functions that have no header of their own (compressor.cpp). Callers use
// compress()/decompress_exact() from compressor.h, which add the default level and the cap.
Status zlib_compress(int level, std::string_view in, std::string& out);
Status zlib_decompress(std::string_view in, size_t expected, std::string& out);
Status zstd_compress(int level, std::string_view in, std::string& out);
Status zstd_decompress(std::string_view in, size_t expected, std::string& out);
Status lz4_compress(int level, std::string_view in, std::string& out);
Status lz4_decompress(std::string_view in, size_t expected, std::string& out);

// In id order. The flag values are PHP's (FORMATS.md): php-memcache 0x0001 serialize(),
// 0x0002 zlib, 0x00010000/0x00020000 hitcost's user flags for JSON/msgpack strings;
// php-memcached types 4 serialize, 5 igbinary, 6 JSON, 7 msgpack and methods 0x20 zlib,
// 0x40 FastLZ, 0x80 zstd (extension >= 3.3.0).
// clang-format off: the rows are a table
inline constexpr SerializerCodec kSerializerCodecs[] = {
    // id                   name        memcache    memcached  functions
    {SerializerId::json, "json", 0x00010000, 6, encode_json, decode_json},
    {SerializerId::msgpack, "msgpack", 0x00020000, 7, encode_msgpack, decode_msgpack},
    {SerializerId::php, "php", 0x00000001, 4, encode_php, decode_php},
    {SerializerId::igbinary, "igbinary", 0, 5, encode_igbinary, decode_igbinary},
};

inline constexpr CompressorCodec kCompressorCodecs[] = {
    // id                 name      levels {min, max, default}  memcache memcached functions
    {CompressorId::zlib, "zlib", {1, 9, 6}, 0x0002, 0x20, zlib_compress, zlib_decompress},
    {CompressorId::zstd, "zstd", {1, 19, 3}, 0, 0x80, zstd_compress, zstd_decompress},         // 20-22: ultra mode, not
                                                                                               // offered
    {CompressorId::lz4, "lz4", {1, 12, 1}, 0, 0, lz4_compress, lz4_decompress},                // 1 fast, 2..12 LZ4HC
    {CompressorId::fastlz, "fastlz", {1, 2, 0}, 0, 0x40, fastlz_compress, fastlz_decompress},  // 0: by size, as PHP
};
// clang-format on

// The row of an id or a name; nullptr for none, an unknown id or an unknown name.
constexpr const SerializerCodec* find_serializer(SerializerId id) noexcept {
  for (const SerializerCodec& c : kSerializerCodecs) {
    if (c.id == id) return &c;
  }
  return nullptr;
}
constexpr const SerializerCodec* find_serializer(std::string_view name) noexcept {
  for (const SerializerCodec& c : kSerializerCodecs) {
    if (name == c.name) return &c;
  }
  return nullptr;
}
constexpr const CompressorCodec* find_compressor(CompressorId id) noexcept {
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (c.id == id) return &c;
  }
  return nullptr;
}
constexpr const CompressorCodec* find_compressor(std::string_view name) noexcept {
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// "none" for none, "unknown" for an id without a row.
constexpr const char* to_string(SerializerId id) noexcept {
  if (id == SerializerId::none) return "none";
  const SerializerCodec* c = find_serializer(id);
  return c ? c->name : "unknown";
}
constexpr const char* to_string(CompressorId id) noexcept {
  if (id == CompressorId::none) return "none";
  const CompressorCodec* c = find_compressor(id);
  return c ? c->name : "unknown";
}

// The ids of the rows, in table order (none excluded), for code that only needs the ids.
inline constexpr auto kSerializers = [] {
  std::array<SerializerId, std::size(kSerializerCodecs)> ids{};
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = kSerializerCodecs[i].id;
  return ids;
}();
inline constexpr auto kCompressors = [] {
  std::array<CompressorId, std::size(kCompressorCodecs)> ids{};
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = kCompressorCodecs[i].id;
  return ids;
}();

namespace codec_table_checks {
// Ids ascend (so they are unique and none has no row) and fit the native word's 4 bits;
// names are unique and never a word the grammar already uses.
// The checks compare rows by index, never by address: GCC does not treat the address of a
// global as a constant under -fsanitize=address, so pointer tests would fail the ASan build.
template <class Rows>
constexpr bool ids_and_names_ok(const Rows& rows) {
  unsigned previous = 0;
  for (size_t i = 0; i < std::size(rows); ++i) {
    auto id = static_cast<unsigned>(rows[i].id);
    if (id <= previous || id > 15) return false;
    previous = id;
    std::string_view name = rows[i].name;
    if (name.empty() || name == "none" || name == "html" || name.find_first_of("+:") != name.npos) return false;
    for (size_t j = 0; j < std::size(rows); ++j) {
      if (j != i && name == rows[j].name) return false;
    }
  }
  return true;
}
// Two rows never share a PHP flag value (a reader could not tell them apart).
template <class Rows, class Field>
constexpr bool flags_distinct(const Rows& rows, Field field) {
  for (size_t i = 0; i < std::size(rows); ++i) {
    for (size_t j = 0; j < std::size(rows); ++j) {
      if (i != j && rows[i].*field != 0 && rows[i].*field == rows[j].*field) return false;
    }
  }
  return true;
}
static_assert(ids_and_names_ok(kSerializerCodecs));
static_assert(ids_and_names_ok(kCompressorCodecs));
static_assert(flags_distinct(kSerializerCodecs, &SerializerCodec::php_memcache_flag));
static_assert(flags_distinct(kSerializerCodecs, &SerializerCodec::php_memcached_type));
static_assert(flags_distinct(kCompressorCodecs, &CompressorCodec::php_memcache_flag));
static_assert(flags_distinct(kCompressorCodecs, &CompressorCodec::php_memcached_method));
}  // namespace codec_table_checks

}  // namespace hitcost
