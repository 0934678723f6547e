// The inflate libraries (codecs/inflate.h) held against zlib, the reference: the same bytes on
// every intact stream, a failure wherever zlib fails, zlib's error kind where the stream is
// intact and only its size or its end is wrong.
#include "codecs/inflate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codecs/compressor.h"
#include "codecs/decoders.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"

namespace hitcost {
namespace {

// Inputs of every shape a value takes: empty, one byte, a small and a big page (over 64 KB, so
// several deflate blocks and full-window distances), JSON text and incompressible bytes.
std::vector<std::string> inputs() {
  std::string noise;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    noise.push_back(static_cast<char>(x));
  }
  return {std::string(),
          std::string("x"),
          render_page(generate_page({1, 5, 1, 1.0})),
          render_page(generate_page({2, 300, 1, 1.0})),
          encode_page(SerializerId::json, generate_page({3, 50, 1, 1.0})),
          noise};
}

std::string zlib_stream(const std::string& in, int level) {
  std::string packed;
  EXPECT_TRUE(compress(CompressorId::zlib, level, in, packed).ok());
  return packed;
}

TEST(Inflate, EveryLibraryGivesZlibsBytesAtEveryLevel) {
  size_t checked = 0;
  for (const std::string& in : inputs()) {
    for (int level = 1; level <= 9; ++level) {
      const std::string packed = zlib_stream(in, level);
      for (const InflateRow& lib : kInflateLibraries) {
        std::string out = "stale bytes from an earlier value";  // reused buffers must not leak
        Status s = lib.exact(packed, in.size(), out);
        ASSERT_TRUE(s.ok()) << lib.name << " level " << level << " size " << in.size() << ": " << s.error().message;
        EXPECT_EQ(out, in) << lib.name << " level " << level << " size " << in.size();
        std::string grown;
        s = lib.grow(packed, grown, kMaxInflatedBytes);
        ASSERT_TRUE(s.ok()) << lib.name << " (unknown size): " << s.error().message;
        EXPECT_EQ(grown, in) << lib.name << " (unknown size)";
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, inputs().size() * 9 * std::size(kInflateLibraries));
}

// Damage: every prefix (a cut value) and three byte changes at every position. Where zlib
// fails, every library fails; where zlib succeeds (a change it cannot see), the same bytes.
TEST(Inflate, EveryLibraryFailsWhereZlibFails) {
  const std::string in = render_page(generate_page({4, 8, 1, 1.0}));
  const std::string packed = zlib_stream(in, 6);
  size_t zlib_failures = 0, checked = 0;
  auto compare = [&](const std::string& bad, const char* what, size_t at) {
    std::string want;
    const bool zlib_ok = zlib_inflate_exact(bad, in.size(), want).ok();
    zlib_failures += !zlib_ok;
    for (const InflateRow& lib : kInflateLibraries) {
      std::string out;
      Status s = lib.exact(bad, in.size(), out);
      ASSERT_EQ(s.ok(), zlib_ok) << lib.name << " " << what << " at " << at;
      if (s.ok()) {
        EXPECT_EQ(out, want) << lib.name << " " << what << " at " << at;
      }
      ++checked;
    }
  };
  for (size_t n = 0; n < packed.size(); ++n) compare(packed.substr(0, n), "prefix", n);
  for (size_t i = 0; i < packed.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xFF}) {
      std::string bad = packed;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      compare(bad, "byte change", i);
    }
  }
  EXPECT_EQ(checked, packed.size() * 4 * std::size(kInflateLibraries));
  EXPECT_GT(zlib_failures, packed.size());  // the checksum catches nearly every change
}

// An intact stream under a wrong length prefix, or with bytes after it: zlib's kind of error.
TEST(Inflate, OnAnIntactStreamTheErrorKindIsZlibs) {
  size_t checked = 0;
  for (const std::string& in : inputs()) {
    if (in.empty()) continue;
    const std::string packed = zlib_stream(in, 6);
    struct Case {
      std::string bytes;
      size_t expected;
      const char* what;
    };
    const Case cases[] = {
        {packed, in.size() - 1, "prefix one short"},         {packed, in.size() + 1, "prefix one long"},
        {packed, in.size() * 2 + 10, "prefix far too long"}, {packed, 0, "prefix zero"},
        {packed + "x", in.size(), "one trailing byte"},      {packed + packed, in.size(), "a second stream after it"}};
    for (const Case& c : cases) {
      std::string out;
      Status ref = zlib_inflate_exact(c.bytes, c.expected, out);
      ASSERT_FALSE(ref.ok()) << c.what;
      for (const InflateRow& lib : kInflateLibraries) {
        Status s = lib.exact(c.bytes, c.expected, out);
        ASSERT_FALSE(s.ok()) << lib.name << " " << c.what;
        EXPECT_EQ(s.error().code, ref.error().code)
            << lib.name << " " << c.what << ": " << s.error().message << " / zlib: " << ref.error().message;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, (inputs().size() - 1) * 6 * std::size(kInflateLibraries));
}

// php-memcache's values carry no size: the buffer doubles from twice the input, up to the cap.
TEST(Inflate, UnknownSizeGrowsToAnySizeAndStopsAtTheCap) {
  const std::string in(1 << 20, 'a');  // 1 MiB of one byte: ~1000x, many doublings from 2x input
  const std::string packed = zlib_stream(in, 9);
  ASSERT_LT(packed.size() * 100, in.size());
  size_t checked = 0;
  for (const InflateRow& lib : kInflateLibraries) {
    std::string out;
    ASSERT_TRUE(lib.grow(packed, out, kMaxInflatedBytes).ok()) << lib.name;
    EXPECT_EQ(out, in) << lib.name;
    Status capped = lib.grow(packed, out, in.size() / 2);
    ASSERT_FALSE(capped.ok()) << lib.name;
    EXPECT_EQ(capped.error().code, Errc::too_large) << lib.name << ": " << capped.error().message;
    Status exactly = lib.grow(packed, out, in.size());  // a value exactly at the cap fits
    EXPECT_TRUE(exactly.ok()) << lib.name << ": " << (exactly.ok() ? "" : exactly.error().message);
    Status trailing = lib.grow(packed + "zz", out, kMaxInflatedBytes);
    ASSERT_FALSE(trailing.ok()) << lib.name;
    EXPECT_EQ(trailing.error().code, Errc::decompress_failed) << lib.name;
    ++checked;
  }
  EXPECT_EQ(checked, std::size(kInflateLibraries));
}

TEST(Inflate, NamesParseBackToTheirRowsAndUnknownOnesAreRefused) {
  size_t checked = 0;
  for (const InflateRow& lib : kInflateLibraries) {
    ASSERT_NE(find_inflate(lib.name), nullptr);
    EXPECT_EQ(find_inflate(lib.name)->id, lib.id);
    EXPECT_STREQ(to_string(lib.id), lib.name);
    auto parsed = parse_inflate(lib.name);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, lib.id);
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
  // Every enum value has its own row (a lookup of a value without one would give the first row).
  for (InflateLibrary id : {InflateLibrary::zlib, InflateLibrary::libdeflate, InflateLibrary::isal})
    EXPECT_EQ(inflate_row(id).id, id) << static_cast<int>(id);
  for (JsonDecoder id : {JsonDecoder::simdjson, JsonDecoder::hitcost, JsonDecoder::nlohmann})
    EXPECT_EQ(json_decoder_row(id).id, id) << static_cast<int>(id);
  EXPECT_EQ(json_decoder_names(), "simdjson, hitcost, nlohmann");
  EXPECT_EQ(inflate_names(), "zlib, libdeflate, isal");
  auto bad = parse_inflate("gzip");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_argument);
  EXPECT_NE(bad.error().message.find("libdeflate"), std::string::npos) << bad.error().message;
  EXPECT_EQ(kDefaultInflate, InflateLibrary::libdeflate);  // the fastest measured (README: How close to the floor)
}

}  // namespace
}  // namespace hitcost
