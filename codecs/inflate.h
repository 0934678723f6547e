#pragma once
// The libraries that inflate a zlib stream (RFC 1950: what both PHP extensions write for
// zlib), one row each. They read the very same bytes; only the speed differs, so which one
// runs is a choice of the reader (hitcost-server --inflate, codecs/decoders.h), never of the
// stored value. Rows:
//   zlib        the reference (what PHP's own gzuncompress and the extensions use)
//   libdeflate  whole-buffer inflate (Debian libdeflate 1.14): one call, no streaming state
//   isal        Intel ISA-L's igzip (Debian libisal 2.30): SIMD Huffman decoding
//
// The contract every row keeps, tested against zlib (tests/codecs/inflate_test.cpp, the fuzz
// target fuzz_decompress): on an intact stream the same bytes, or the same error kind, as zlib;
// wherever zlib fails, a failure (a corrupt stream may be caught at another point, so the kind
// can differ: bad_length where zlib says decompress_failed or the reverse). Errors:
//   exact: bad_length when the stream inflates to another size than `expected`;
//          decompress_failed for a corrupt or truncated stream, a bad checksum or trailing bytes.
//   grow:  decompress_failed as above; too_large past `cap`.
// Thread-safe: each row keeps its decoder state per thread (made once, reset per value).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost {

// Stable ids (reports, /stats, sweep axes name them by `name`).
enum class InflateLibrary : uint8_t { zlib = 0, libdeflate = 1, isal = 2 };

struct InflateRow {
  InflateLibrary id;
  const char* name;
  // Inflates `in` into `out`, resized to exactly `expected` bytes (its capacity reused).
  Status (*exact)(std::string_view in, size_t expected, std::string& out);
  // Without a known size (php-memcache writes no length prefix): the output buffer starts at
  // twice the input and doubles, as php-memcache's reader does (part of the real cost).
  Status (*grow)(std::string_view in, std::string& out, size_t cap);
};

Status zlib_inflate_exact(std::string_view in, size_t expected, std::string& out);
Status zlib_inflate_grow(std::string_view in, std::string& out, size_t cap);
Status libdeflate_inflate_exact(std::string_view in, size_t expected, std::string& out);
Status libdeflate_inflate_grow(std::string_view in, std::string& out, size_t cap);
Status isal_inflate_exact(std::string_view in, size_t expected, std::string& out);
Status isal_inflate_grow(std::string_view in, std::string& out, size_t cap);

inline constexpr InflateRow kInflateLibraries[] = {
    {InflateLibrary::zlib, "zlib", zlib_inflate_exact, zlib_inflate_grow},
    {InflateLibrary::libdeflate, "libdeflate", libdeflate_inflate_exact, libdeflate_inflate_grow},
    {InflateLibrary::isal, "isal", isal_inflate_exact, isal_inflate_grow},
};

// What a reader uses unless told otherwise: the fastest row on the hosts measured
// (bench: inflate/<library>/..., hitcost-bench --calibrate; README "How close to the floor").
inline constexpr InflateLibrary kDefaultInflate = InflateLibrary::libdeflate;

// The row of a library (every id has one) or of a name (nullptr when unknown).
const InflateRow& inflate_row(InflateLibrary id) noexcept;
const InflateRow* find_inflate(std::string_view name) noexcept;
const char* to_string(InflateLibrary id) noexcept;
// "zlib, libdeflate, isal": for help texts and the 400 of a bad name.
std::string inflate_names();

}  // namespace hitcost
