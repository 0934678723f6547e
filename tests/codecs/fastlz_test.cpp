// FastLZ against the format itself: hand-written blocks for every instruction form
// (so the decoder is checked against the description, not against our own encoder),
// the level php-memcached picks by size, and round trips at the distance and length
// limits. Interop with PHP's own FastLZ is in php_interop_test.cpp.
#include "codecs/fastlz.h"

#include <gtest/gtest.h>

#include <string>

#include "codecs/compressor.h"
#include "codecs/page_generator.h"
#include "codecs/prng.h"
#include "codecs/renderer.h"

namespace hitcost {
namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}

std::string decode(const std::string& block, size_t expected) {
  std::string out;
  Status s = fastlz_decompress(block, expected, out);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return out;
}

Errc decode_error(const std::string& block, size_t expected) {
  std::string out;
  Status s = fastlz_decompress(block, expected, out);
  EXPECT_FALSE(s.ok()) << "accepted a bad block";
  return s.ok() ? Errc::not_found : s.error().code;
}

// `data` as literal runs of at most 32 bytes: a block with no match in it.
std::string literals(const std::string& data) {
  std::string block;
  for (size_t i = 0; i < data.size(); i += 32) {
    const std::string run = data.substr(i, 32);
    block += static_cast<char>(run.size() - 1) + run;
  }
  return block;
}

std::string noise(size_t n, uint64_t seed) {
  SplitMix64 r(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(r.next() & 0xff);
  return s;
}

TEST(Fastlz, DecodesHandWrittenLevel1Instructions) {
  // literal "abc", then L=1 (3 bytes) at distance 0x000 + 2 + 1 = 3.
  EXPECT_EQ(decode(bytes({0x02, 'a', 'b', 'c', 0x20, 0x02}), 6), "abcabc");
  // literal "a", then an overlapping match: L=6 (8 bytes) at distance 1: a run.
  EXPECT_EQ(decode(bytes({0x00, 'a', 0xc0, 0x00}), 9), std::string(9, 'a'));
  // L=7: one length byte, length = 20 + 9, at distance 1.
  EXPECT_EQ(decode(bytes({0x00, 'z', 0xe0, 20, 0x00}), 30), std::string(30, 'z'));
  // Level 1 has no far form: high bits 31 + low 255 is distance 8192.
  std::string lit = noise(8192, 1), block = literals(lit);
  block += bytes({0x3f, 0xff});  // L=1 (3 bytes) at distance (31 << 8) + 255 + 1
  EXPECT_TRUE(decode(block, 8195) == lit + lit.substr(0, 3));
}

TEST(Fastlz, DecodesHandWrittenLevel2Instructions) {
  // Level 2 marks the first byte (bit 5); L=7 adds length bytes while they are 255.
  EXPECT_EQ(decode(bytes({0x20, 'a', 0xe0, 255, 10, 0x00}), 1 + 9 + 255 + 10), std::string(275, 'a'));
  // The far form: (31, 255) then a 16-bit big-endian distance + 8191 + 1 = 9000 back.
  std::string lit = noise(9000, 2), block = literals(lit);
  block[0] = static_cast<char>(block[0] | 0x20);
  const size_t beyond = 9000 - 1 - 8191;
  block += bytes({0x3f, 0xff, static_cast<int>(beyond >> 8), static_cast<int>(beyond & 255)});
  EXPECT_TRUE(decode(block, 9003) == lit + lit.substr(0, 3));
}

TEST(Fastlz, BadBlocksAreTypedErrorsNeverOverruns) {
  EXPECT_EQ(decode_error(bytes({0x40, 'a'}), 1), Errc::decompress_failed);                       // level 3
  EXPECT_EQ(decode_error(bytes({0x05, 'a', 'b'}), 6), Errc::decompress_failed);                  // literal past input
  EXPECT_EQ(decode_error(bytes({0x00, 'a', 0x20, 0x05}), 4), Errc::decompress_failed);           // before the start
  EXPECT_EQ(decode_error(bytes({0x00, 'a', 0x20}), 4), Errc::decompress_failed);                 // distance missing
  EXPECT_EQ(decode_error(bytes({0x00, 'a', 0xe0}), 11), Errc::decompress_failed);                // length missing
  EXPECT_EQ(decode_error(bytes({0x20, 'a', 0x3f, 0xff, 0x00}), 4), Errc::decompress_failed);     // far cut short
  EXPECT_EQ(decode_error(bytes({0x00, 'a', 0xc0, 0x00}), 5), Errc::bad_length);                  // writes past prefix
  EXPECT_EQ(decode_error(bytes({0x01, 'a', 'b'}), 3), Errc::bad_length);                         // decodes short
  EXPECT_EQ(decode_error(bytes({0x20, 'a', 0xe0, 255, 255, 255, 255}), 100), Errc::bad_length);  // length chain
  EXPECT_EQ(decode_error("", 1), Errc::bad_length);
  EXPECT_EQ(decode("", 0), "");
}

TEST(Fastlz, LevelFollowsPhpMemcachedBySize) {
  const std::string small = render_page(generate_page({1, 50, 1, 1.0}));
  std::string big = render_page(generate_page({2, 400, 1, 1.0}));
  ASSERT_LT(small.size(), kFastlzLevel2FromBytes);
  ASSERT_GE(big.size(), kFastlzLevel2FromBytes);
  std::string a, b, forced;
  ASSERT_TRUE(compress(CompressorId::fastlz, 0, small, a).ok());
  ASSERT_TRUE(compress(CompressorId::fastlz, 0, big, b).ok());
  ASSERT_TRUE(compress(CompressorId::fastlz, 2, small, forced).ok());
  EXPECT_EQ(static_cast<unsigned char>(a[0]) >> 5, 0) << "level 1 below 64 KiB";
  EXPECT_EQ(static_cast<unsigned char>(b[0]) >> 5, 1) << "level 2 from 64 KiB";
  EXPECT_EQ(static_cast<unsigned char>(forced[0]) >> 5, 1) << "fastlz:2 forces level 2";
  // php-memcached keeps a value compressed only when it shrinks by more than 1.3x.
  EXPECT_GT(static_cast<double>(small.size()), 1.3 * static_cast<double>(a.size()));
  EXPECT_GT(static_cast<double>(big.size()), 1.3 * static_cast<double>(b.size()));
  EXPECT_FALSE(fastlz_compress(3, small, a).ok());
}

TEST(Fastlz, RoundTripsAtTheLengthAndDistanceLimits) {
  int checked = 0;
  const std::string unique = noise(80000, 3);
  for (int level : {1, 2}) {
    // Runs longer than level 1's 264-byte match; matches at the near limits and beyond
    // level 2's far limit (73727); incompressible bytes.
    std::vector<std::string> inputs = {std::string(1 << 20, '\0'), std::string(265, 'q'), std::string(266, 'q'),
                                       std::string(267, 'q'), unique};
    for (size_t gap : {8189u, 8190u, 8191u, 8192u, 8193u, 73725u, 73727u, 73728u}) {
      const std::string piece = unique.substr(0, 600);
      inputs.push_back(piece + unique.substr(1000, gap - piece.size()) + piece);
    }
    for (const std::string& in : inputs) {
      std::string packed, back;
      ASSERT_TRUE(fastlz_compress(level, in, packed).ok());
      ASSERT_TRUE(fastlz_decompress(packed, in.size(), back).ok()) << "level " << level << " size " << in.size();
      ASSERT_TRUE(back == in) << "level " << level << " size " << in.size();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * 13);
  // Level 2 reaches 20000 bytes back with its far form; level 1 (8192 at most) cannot.
  const std::string piece = unique.substr(0, 2000);
  const std::string far = piece + unique.substr(5000, 18000) + piece;
  std::string l1, l2;
  ASSERT_TRUE(fastlz_compress(1, far, l1).ok());
  ASSERT_TRUE(fastlz_compress(2, far, l2).ok());
  EXPECT_LT(l2.size() + 1500, l1.size()) << "level 2 did not use a far match";
}

}  // namespace
}  // namespace hitcost
