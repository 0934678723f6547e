#pragma once
// The flags word of a stored value, per scheme. The flags alone say how to read a value;
// hitcost never guesses from the bytes. A string value with no serializer type and no
// hitcost user flag is a pre-rendered HTML page (Representation::html).
//
// The per-codec values below live in the rows of codec_table.h; they are listed here so the
// whole layout of each scheme reads in one place.
//
// php-memcache (pecl/memcache 4.0.5.2, FORMATS.md)
//   0x00000001  serialized: PHP serialize() text            -> struct:php
//   0x00000002  compressed: bare zlib stream, NO length prefix (read by inflating in a loop)
//   0x00000F00  scalar type: only 0x000 (string) is a page; bool/long/double -> unknown_flags
//   0x00010000  hitcost user flag: the string is JSON text   -> struct:json
//   0x00020000  hitcost user flag: the string is msgpack     -> struct:msgpack
//   PHP reads json/msgpack values as plain strings (then json_decode / msgpack_unpack);
//   Memcache::get($key, $flags) hands the flags to the app. Bits 2-7 and 12-15 are
//   reserved by the extension and any other user bit is unknown: both -> unknown_flags.
//   zstd, lz4, fastlz and igbinary cannot be expressed (parse_strategy rejects them).
//
// php-memcached (pecl/memcached 3.2.0)
//   bits 0-3    type: 0 string (html), 4 PHP serialize, 5 igbinary, 6 JSON (struct:json),
//               7 msgpack; 1/2/3 scalars -> unknown_flags
//   0x10        compressed, with its method: 0x40 FastLZ (the extension's default; when
//               0x20 is set too FastLZ wins, as in the extension), 0x20 zlib, 0x80 zstd.
//               zstd needs extension >= 3.3.0: Debian 12's 3.2.0 cannot read it.
//               A stock Debian install writes a big array as 0x54 (serialize + FastLZ).
//   payload of a compressed value: 4-byte little-endian original length, then the stream.
//   bits 8-15   unused internal bits -> unknown_flags.  bits 16-31: the application's
//               user flags; hitcost writes 0 and ignores them on read, like the extension.
//   lz4 cannot be expressed (parse_strategy rejects it).
//
// native (hitcost's own layout, version 1)
//   bits 24-31  magic 0x68 ('h')       — anything else -> unknown_flags
//   bits 20-23  version, 1             — anything else -> unknown_flags
//   bits 12-19  reserved, 0            — anything else -> unknown_flags
//   bits  8-11  CompressorId (0 none, 1 zlib, 2 zstd, 3 lz4, 4 fastlz)
//   bits  4-7   SerializerId (0 none for html, 1 json, 2 msgpack, 3 php, 5 igbinary;
//               4 is retired — struct:simdjson always wrote 1 — and refused as unknown)
//   bits  0-3   Representation (0 html, 1 structured); html must have serializer 0 and
//               structured must not: otherwise inconsistent_flags
//   payload of a compressed value: 4-byte little-endian original length, then the data.
//   e.g. html = 0x68100000, struct:json+zlib = 0x68100111, struct:msgpack+lz4 = 0x68100321
#include <cstdint>

#include "codecs/strategy.h"
#include "core/result.h"

namespace hitcost {

namespace flags {
// The scheme's own bits. Each codec's bits (serializer flag or type, compressor flag or
// method) are in its row of codec_table.h, which reading and writing both iterate.
// php-memcache
inline constexpr uint32_t kMcTypeMask = 0x0F00;  // an unserialized scalar's type; 0 = string
// php-memcached
inline constexpr uint32_t kMdTypeMask = 0x000F;
inline constexpr uint32_t kMdString = 0, kMdLong = 1, kMdDouble = 2, kMdBool = 3;
inline constexpr uint32_t kMdCompressed = 0x10;  // with one method bit from the compressor's row
inline constexpr uint32_t kMdUserMask = 0xFFFF0000;
// native
inline constexpr uint32_t kNativeMagic = 0x68;
inline constexpr uint32_t kNativeVersion = 1;
}  // namespace flags

// What a flags word says about its value.
struct FlagInfo {
  Representation rep = Representation::html;
  SerializerId serializer = SerializerId::none;  // json for JSON whatever decodes it
  CompressorId compressor = CompressorId::none;
  bool length_prefix = false;  // compressed payload starts with a 4-byte LE original length
};

// Flags for a value of this shape. `compressor` is none for a value stored plain.
// Errors (invalid_argument): a combination the scheme cannot express.
Result<uint32_t> make_flags(FlagScheme scheme, Representation rep, SerializerId serializer, CompressorId compressor);

// Reads a flags word. Errors: unknown_flags, inconsistent_flags (never a guess).
Result<FlagInfo> read_flags(FlagScheme scheme, uint32_t flags);

}  // namespace hitcost
