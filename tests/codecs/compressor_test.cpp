#include "codecs/compressor.h"

#include <gtest/gtest.h>

#include <string>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"

namespace hitcost {
namespace {

const auto& kAll = kCompressors;

// Streams that carry a checksum: a flipped bit must fail, never return other bytes.
// (lz4 blocks and FastLZ blocks have none; the page decoder then sees the bytes.)
bool checksummed(CompressorId c) { return c == CompressorId::zlib || c == CompressorId::zstd; }

std::string sample_text(uint32_t rows) { return render_page(generate_page({1, rows, 1, 1.0})); }

TEST(Compressors, RoundTripAtEveryLevelAndSize) {
  for (CompressorId c : kAll) {
    LevelRange lr = level_range(c);
    for (const std::string& in : {std::string(), std::string("x"), sample_text(5), sample_text(200)}) {
      for (int level : {0, lr.min, lr.max}) {
        std::string packed, back;
        ASSERT_TRUE(compress(c, level, in, packed).ok()) << to_string(c);
        Status s = decompress_exact(c, packed, in.size(), back);
        ASSERT_TRUE(s.ok()) << to_string(c) << " level " << level << ": " << s.error().message;
        EXPECT_EQ(back, in);
      }
    }
  }
}

// The level reaches the compressor: on the same 200-row page the lowest level writes more bytes
// than the highest (a compressor that dropped the level would write the same bytes at both).
TEST(Compressors, TheHighestLevelWritesFewerBytesThanTheLowest) {
  const std::string in = sample_text(200);
  size_t checked = 0;
  for (CompressorId c : {CompressorId::zlib, CompressorId::zstd}) {
    const LevelRange lr = level_range(c);
    std::string low, high;
    ASSERT_TRUE(compress(c, lr.min, in, low).ok()) << to_string(c);
    ASSERT_TRUE(compress(c, lr.max, in, high).ok()) << to_string(c);
    EXPECT_GT(low.size(), high.size()) << to_string(c) << ":" << lr.min << " vs :" << lr.max;
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

TEST(Compressors, ZlibWritesAStandardZlibStream) {
  std::string packed;
  ASSERT_TRUE(compress(CompressorId::zlib, 0, sample_text(5), packed).ok());
  ASSERT_GE(packed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x78);
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x9c);  // level 6, like PHP
}

TEST(Compressors, CompressAppendsToExistingBytes) {
  std::string packed = "HEAD";
  ASSERT_TRUE(compress(CompressorId::zstd, 0, "hello hello hello", packed).ok());
  std::string back;
  ASSERT_TRUE(decompress_exact(CompressorId::zstd, std::string_view(packed).substr(4), 17, back).ok());
  EXPECT_EQ(back, "hello hello hello");
}

TEST(Compressors, WrongExpectedLengthIsBadLength) {
  std::string in = sample_text(5), packed, out;
  for (CompressorId c : kAll) {
    packed.clear();
    ASSERT_TRUE(compress(c, 0, in, packed).ok());
    for (size_t wrong : {in.size() - 1, in.size() + 1, size_t{0}, in.size() * 2}) {
      Status s = decompress_exact(c, packed, wrong, out);
      ASSERT_FALSE(s.ok()) << to_string(c) << " accepted length " << wrong;
      // lz4 and FastLZ cannot tell "longer than promised" from corrupt: both are acceptable.
      if (!checksummed(c)) {
        EXPECT_TRUE(s.error().code == Errc::bad_length || s.error().code == Errc::decompress_failed);
      } else {
        EXPECT_EQ(s.error().code, Errc::bad_length) << to_string(c) << " " << s.error().message;
      }
    }
    Status huge = decompress_exact(c, packed, kMaxInflatedBytes + 1, out);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error().code, Errc::bad_length);
  }
}

TEST(Compressors, TruncatedOrCorruptDataIsDecompressFailed) {
  std::string in = sample_text(20), out;
  for (CompressorId c : kAll) {
    std::string packed;
    ASSERT_TRUE(compress(c, 0, in, packed).ok());
    for (size_t n : {size_t{0}, size_t{1}, packed.size() / 2, packed.size() - 1}) {
      Status s = decompress_exact(c, std::string_view(packed).substr(0, n), in.size(), out);
      ASSERT_FALSE(s.ok()) << to_string(c) << " accepted a truncation to " << n;
      EXPECT_TRUE(s.error().code == Errc::decompress_failed || s.error().code == Errc::bad_length)
          << to_string(c) << ": " << to_string(s.error().code);
    }
    // Flip bits across the stream: zlib (adler32) and zstd (frame checksum) must fail
    // rather than return different bytes; lz4 and FastLZ blocks have no checksum and may
    // return different bytes of the right length (the page decoder then sees them). No crash.
    for (size_t i = 0; i < packed.size(); i += 7) {
      std::string bad = packed;
      bad[i] = static_cast<char>(bad[i] ^ 0x55);
      Status s = decompress_exact(c, bad, in.size(), out);
      if (checksummed(c)) {
        EXPECT_FALSE(s.ok() && out != in) << to_string(c) << " silently changed at byte " << i;
      }
    }
    Status trailing = decompress_exact(c, packed + "junk", in.size(), out);
    if (c == CompressorId::zlib) {
      ASSERT_FALSE(trailing.ok());
      EXPECT_EQ(trailing.error().code, Errc::decompress_failed);
    } else {
      EXPECT_FALSE(trailing.ok()) << to_string(c) << " accepted trailing bytes";
    }
  }
}

TEST(Compressors, ZlibChecksumCatchesEveryFlippedPayloadByte) {
  std::string in = sample_text(20), packed, out;
  ASSERT_TRUE(compress(CompressorId::zlib, 0, in, packed).ok());
  for (size_t i = 2; i < packed.size(); ++i) {
    std::string bad = packed;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(decompress_exact(CompressorId::zlib, bad, in.size(), out).ok()) << "byte " << i;
  }
}

TEST(Compressors, InflateUnknownSizeGrowsAndCaps) {
  std::string in = sample_text(300), packed, out;  // ratio ~5x: needs several doublings
  ASSERT_TRUE(compress(CompressorId::zlib, 9, in, packed).ok());
  ASSERT_TRUE(inflate_unknown_size(packed, out).ok());
  EXPECT_EQ(out, in);
  Status capped = inflate_unknown_size(packed, out, in.size() / 2);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.error().code, Errc::too_large);
  // A zlib bomb: 64 MiB + 1 of zeros deflates to ~64 KiB and must stop at the cap.
  std::string zeros(kMaxInflatedBytes + 1, '\0'), bomb;
  ASSERT_TRUE(compress(CompressorId::zlib, 9, zeros, bomb).ok());
  zeros.clear();
  zeros.shrink_to_fit();
  Status s = inflate_unknown_size(bomb, out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::too_large);
  Status trunc = inflate_unknown_size(std::string_view(packed).substr(0, packed.size() - 3), out);
  ASSERT_FALSE(trunc.ok());
  EXPECT_EQ(trunc.error().code, Errc::decompress_failed);
  Status garbage = inflate_unknown_size("not zlib at all", out);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().code, Errc::decompress_failed);
}

TEST(Compressors, LevelRanges) {
  EXPECT_EQ(level_range(CompressorId::zlib).min, 1);
  EXPECT_EQ(level_range(CompressorId::zlib).max, 9);
  EXPECT_EQ(level_range(CompressorId::zstd).max, 19);
  EXPECT_EQ(level_range(CompressorId::lz4).max, 12);
}

}  // namespace
}  // namespace hitcost
