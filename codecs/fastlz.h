#pragma once
// FastLZ block format (levels 1 and 2), written here from the format's description
// (FORMATS.md), as php-memcached 3.2.0 bundles it (its default compressor, flags 0x40).
//
// A block is a sequence of instructions; each starts with a control byte whose top 3 bits
// are a length code L and whose low 5 bits are the high bits of a distance:
//   L = 0      literal run: the next (ctrl & 31) + 1 bytes are copied as they are.
//   L = 1..6   match of L + 2 bytes at distance ((ctrl & 31) << 8) + next byte + 1.
//   L = 7      longer match: level 1 reads one more length byte (length = byte + 9);
//              level 2 keeps adding bytes while they are 255 (length = 9 + their sum).
//              The length bytes come before the low distance byte.
//   level 2 far form: low distance byte 255 with high bits 31, then a 16-bit big-endian
//              distance d16: distance = d16 + 8191 + 1 (up to 73727 bytes back).
// The first instruction is always a literal run; its top 3 bits carry the level - 1
// (level 2 sets bit 5 of the first byte). Matches may overlap their own output.
//
// The block carries no length: php-memcached stores a 4-byte original length before it,
// and the decoder here needs that length and checks every copy against it and the input.
// Thread-safe: no shared state.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost {

// php-memcached's rule: level 1 below 64 KiB of input, level 2 from there on.
inline constexpr size_t kFastlzLevel2FromBytes = 65536;

// Appends the FastLZ block of `in` to `out`. level 0 = by size (php-memcached's choice),
// 1 or 2 forced. Empty input appends nothing. Errors: invalid_argument for another level.
Status fastlz_compress(int level, std::string_view in, std::string& out);

// Decodes a whole block into `out` (resized to exactly `expected` bytes).
// Errors: decompress_failed for an unknown level, an instruction that runs past the
// input, or a match reaching before the start of the output; bad_length when the block
// writes more or fewer than `expected` bytes. Never reads or writes out of bounds.
Status fastlz_decompress(std::string_view in, size_t expected, std::string& out);

}  // namespace hitcost
