#pragma once
// Compressors behind one signature, one row each in codec_table.h. Output formats:
//   zlib: a standard zlib stream (RFC 1950, "78 9c" at level 6) — what both PHP
//         extensions write and read; not raw deflate, not gzip.
//   zstd: one zstd frame (with content size).  lz4: one LZ4 block (no frame header),
//         so its reader must know the original size (the flag schemes store it).
//   fastlz: one FastLZ block (codecs/fastlz.h), php-memcached's default; like lz4 it
//         needs the original size from the flag scheme's length prefix.
// Thread-safe: no shared state (zstd/zlib contexts are per call).
#include <cstddef>
#include <string>
#include <string_view>

#include "codecs/codec_table.h"
#include "codecs/inflate.h"
#include "core/result.h"

namespace hitcost {

// Largest inflated value hitcost accepts (bytes). Length prefixes above it are rejected
// before any allocation; php-memcache's prefix-less zlib stops growing here.
inline constexpr size_t kMaxInflatedBytes = size_t{64} << 20;

// The row's level range (codec_table.h); {0, 0, 0} for none.
LevelRange level_range(CompressorId id) noexcept;

// Appends the compressed form of `in` to `out`. `id` must not be none.
Status compress(CompressorId id, int level, std::string_view in, std::string& out);

// Decompresses into `out` (resized to exactly `expected` bytes, reusing its capacity).
// Errors: bad_length when the data inflates to a different size than `expected`
// (or `expected` > kMaxInflatedBytes); decompress_failed for truncated/corrupt data or
// trailing bytes after the stream. A zlib stream is inflated by `library` (codecs/inflate.h:
// the same bytes whichever runs; the fastest this host has by default).
Status decompress_exact(CompressorId id, std::string_view in, size_t expected, std::string& out,
                        InflateLibrary library = kDefaultInflate);

// zlib without a known size (php-memcache): inflates in a loop, doubling the output
// buffer, like the PHP extension does. Errors: decompress_failed; too_large past `cap`.
Status inflate_unknown_size(std::string_view in, std::string& out, size_t cap = kMaxInflatedBytes,
                            InflateLibrary library = kDefaultInflate);

}  // namespace hitcost
