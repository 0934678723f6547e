#include "codecs/value_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "codecs/compressor.h"
#include "codecs/flag_scheme.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "tests/codecs/test_pages.h"

namespace hitcost {
namespace {

// Every representation and compressor of the codec tables (each compressor at its
// default, lowest and highest level) that `s` can store.
std::vector<std::string> strategies_for(FlagScheme s) {
  std::vector<std::string> reps = {"html"}, comps = {""}, out;
  for (const SerializerCodec& c : kSerializerCodecs) reps.push_back(std::string("struct:") + c.name);
  for (const CompressorCodec& c : kCompressorCodecs) {
    for (std::string level : {std::string(), ":" + std::to_string(c.levels.min), ":" + std::to_string(c.levels.max)}) {
      comps.push_back("+" + std::string(c.name) + level);
    }
  }
  for (const std::string& rep : reps) {
    for (const auto& c : comps) {
      if (parse_strategy(rep + c, s).ok()) out.push_back(rep + c);
    }
  }
  return out;
}

TEST(ValueCodec, StrategiesForCoverTheTablesUnderNative) {
  // native can say every row: (html + each serializer) x (plain + 3 levels of each compressor).
  EXPECT_EQ(strategies_for(FlagScheme::native).size(),
            (std::size(kSerializerCodecs) + 1) * (3 * std::size(kCompressorCodecs) + 1));
  for (FlagScheme s : kFlagSchemes) EXPECT_GT(strategies_for(s).size(), std::size(kSerializerCodecs)) << to_string(s);
}

Strategy must_parse(const std::string& text, FlagScheme s) {
  auto st = parse_strategy(text, s);
  EXPECT_TRUE(st.ok()) << text << ": " << (st.ok() ? "" : st.error().message);
  return st.ok() ? *st : Strategy{};
}

// The full hit path; returns the HTML a hit would serve.
Result<std::string> hit(const Strategy& st, const EncodedValue& v) {
  std::string scratch;
  auto u = unwrap_value(v.bytes, v.flags, st.scheme, scratch);
  if (!u) return u.error();
  if (u->rep == Representation::html) return std::string(u->payload);
  auto page = decode_page(u->serializer, u->payload);
  if (!page) return page.error();
  return render_page(*page);
}

// A strategy's level reaches the compressor: zlib:1 stores more bytes than zlib:9, zstd:1 more
// than zstd:19, for the same page (the flags do not carry the level, so only the size shows it).
TEST(ValueCodec, TheStrategysLevelReachesTheCompressor) {
  const Page page = generate_page({7, 200, 2, 1.0});
  const std::string html = render_page(page);
  size_t checked = 0;
  for (const auto& [low, high] : {std::pair{"html+zlib:1", "html+zlib:9"}, std::pair{"html+zstd:1", "html+zstd:19"},
                                  std::pair{"struct:json+zlib:1", "struct:json+zlib:9"}}) {
    const EncodedValue a = encode_value(must_parse(low, FlagScheme::native), page, html);
    const EncodedValue b = encode_value(must_parse(high, FlagScheme::native), page, html);
    EXPECT_EQ(a.flags, b.flags) << low;
    EXPECT_GT(a.bytes.size(), b.bytes.size()) << low << " vs " << high;
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

TEST(ValueCodec, EverySchemeAndStrategyRoundTrips) {
  for (FlagScheme scheme : kFlagSchemes) {
    for (const auto& text : strategies_for(scheme)) {
      for (bool forced : {false, true}) {
        for (uint32_t rows : {0u, 5u, 50u, 150u}) {
          Strategy st = must_parse(text, scheme);
          if (forced) st.rule.threshold_bytes = 0;
          Page page = rows == 5 ? testing::tricky_page() : generate_page({rows + 1, rows, 2, 1.0});
          std::string html = render_page(page);
          EncodedValue v = encode_value(st, page, html);
          std::string scratch;
          auto u = unwrap_value(v.bytes, v.flags, scheme, scratch);
          ASSERT_TRUE(u.ok()) << to_string(scheme) << " " << text << ": " << u.error().message;
          EXPECT_EQ(u->rep, st.rep);
          if (st.rep == Representation::html) {
            EXPECT_EQ(u->payload, html);
          } else {
            EXPECT_EQ(u->serializer, st.serializer);
            auto p = decode_page(u->serializer, u->payload);
            ASSERT_TRUE(p.ok()) << p.error().message;
            EXPECT_EQ(*p, page) << to_string(scheme) << " " << text;
          }
          auto served = hit(st, v);
          ASSERT_TRUE(served.ok());
          EXPECT_EQ(*served, html);
          // Compressed exactly when the rule says so.
          std::string plain = st.rep == Representation::html ? html : encode_page(st.serializer, page);
          if (st.compressor == CompressorId::none || plain.size() < st.rule.threshold_bytes) {
            EXPECT_EQ(u->compressor, CompressorId::none) << text;
            EXPECT_EQ(v.bytes, plain);
          }
          if (forced && st.compressor != CompressorId::none && rows >= 50) {
            EXPECT_EQ(u->compressor, st.compressor) << to_string(scheme) << " " << text;
            EXPECT_LT(v.bytes.size(), plain.size());
          }
        }
      }
    }
  }
}

uint32_t flags_of(const char* text, FlagScheme s, uint32_t rows = 200) {
  Strategy st = must_parse(text, s);
  st.rule.threshold_bytes = 0;
  Page p = generate_page({1, rows, 1, 1.0});
  return encode_value(st, p, render_page(p)).flags;
}

TEST(ValueCodec, PhpMemcachedFlagsMatchTheExtension) {
  auto s = FlagScheme::php_memcached;
  EXPECT_EQ(flags_of("html", s), 0x00u);
  EXPECT_EQ(flags_of("html+zlib", s), 0x30u);
  EXPECT_EQ(flags_of("struct:php", s), 0x04u);
  EXPECT_EQ(flags_of("struct:php+zlib", s), 0x34u);
  EXPECT_EQ(flags_of("struct:json+zlib", s), 0x36u);
  EXPECT_EQ(flags_of("struct:json", s), 0x06u);
  EXPECT_EQ(flags_of("struct:msgpack+zlib", s), 0x37u);
  EXPECT_EQ(flags_of("struct:msgpack+zstd", s), 0x97u);
  EXPECT_EQ(flags_of("struct:php+fastlz", s), 0x54u);  // what a stock Debian install writes
  EXPECT_EQ(flags_of("html+fastlz", s), 0x50u);
  EXPECT_EQ(flags_of("struct:igbinary", s), 0x05u);
  EXPECT_EQ(flags_of("struct:igbinary+fastlz:2", s), 0x55u);
  EXPECT_EQ(flags_of("struct:igbinary+zlib", s), 0x35u);
}

TEST(ValueCodec, PhpDefaultPresetIsWhatStockPhpWrites) {
  Strategy st = must_parse("php-default", FlagScheme::php_memcached);
  Page big = generate_page({1, 50, 1, 1.0}), small = generate_page({2, 1, 1, 1.0});
  ASSERT_GE(encode_page(SerializerId::php, big).size(), 2000u);
  ASSERT_LT(encode_page(SerializerId::php, small).size(), 2000u);
  EXPECT_EQ(encode_value(st, big, "").flags, 0x54u);
  EXPECT_EQ(encode_value(st, small, "").flags, 0x04u);  // below compression_threshold
}

TEST(ValueCodec, PhpMemcachedReadsFastlzByItsOwnRules) {
  const auto s = FlagScheme::php_memcached;
  std::string scratch;
  auto both = unwrap_value(std::string("\x01\0\0\0\0x", 6), 0x74, s, scratch);  // zlib + FastLZ bits
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->compressor, CompressorId::fastlz);  // FastLZ wins, as in the extension
  EXPECT_EQ(std::string(both->payload), "x");
  auto zstd = unwrap_value("", 0xd4, s, scratch);
  ASSERT_FALSE(zstd.ok());
  EXPECT_EQ(zstd.error().code, Errc::inconsistent_flags);
  auto bare = unwrap_value("", 0x44, s, scratch);  // FastLZ bit without the compressed bit
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().code, Errc::inconsistent_flags);
}

TEST(ValueCodec, PhpMemcacheFlagsMatchTheExtension) {
  auto s = FlagScheme::php_memcache;
  EXPECT_EQ(flags_of("html", s), 0x0u);
  EXPECT_EQ(flags_of("html+zlib", s), 0x2u);
  EXPECT_EQ(flags_of("struct:php", s), 0x1u);
  EXPECT_EQ(flags_of("struct:php+zlib", s), 0x3u);
  EXPECT_EQ(flags_of("struct:json", s), 0x10000u);
  EXPECT_EQ(flags_of("struct:json+zlib", s), 0x10002u);
  EXPECT_EQ(flags_of("struct:msgpack+zlib", s), 0x20002u);
}

TEST(ValueCodec, NativeFlagsLayout) {
  auto s = FlagScheme::native;
  EXPECT_EQ(flags_of("html", s), 0x68100000u);
  EXPECT_EQ(flags_of("struct:json+zlib", s), 0x68100111u);
  EXPECT_EQ(flags_of("struct:msgpack+lz4", s), 0x68100321u);
  EXPECT_EQ(flags_of("struct:igbinary+fastlz", s), 0x68100451u);
  EXPECT_EQ(flags_of("struct:php+zstd", s), 0x68100231u);
}

TEST(ValueCodec, PrefixIsLittleEndianOriginalLengthExceptPhpMemcache) {
  Page p = generate_page({1, 50, 1, 1.0});
  for (FlagScheme s : kFlagSchemes) {
    Strategy st = must_parse("struct:php+zlib", s);
    EncodedValue v = encode_value(st, p, "");
    std::string plain = encode_page(SerializerId::php, p);
    if (s == FlagScheme::php_memcache) {
      EXPECT_EQ(static_cast<unsigned char>(v.bytes[0]), 0x78);  // bare zlib stream
    } else {
      uint32_t n = static_cast<unsigned char>(v.bytes[0]) | static_cast<unsigned char>(v.bytes[1]) << 8 |
                   static_cast<unsigned char>(v.bytes[2]) << 16 |
                   static_cast<uint32_t>(static_cast<unsigned char>(v.bytes[3])) << 24;
      EXPECT_EQ(n, plain.size());
      EXPECT_EQ(static_cast<unsigned char>(v.bytes[4]), 0x78);
    }
  }
}

TEST(ValueCodec, RuleBoundaryPhpMemcachedThreshold) {
  // Threshold is inclusive: len >= threshold is tried, len < threshold is stored plain.
  Strategy st = must_parse("html+zlib", FlagScheme::php_memcached);
  std::string html(4000, 'a');
  st.rule.threshold_bytes = 4000;
  EXPECT_EQ(encode_value(st, Page{}, html).flags, 0x30u);
  st.rule.threshold_bytes = 4001;
  EncodedValue plain = encode_value(st, Page{}, html);
  EXPECT_EQ(plain.flags, 0x00u);
  EXPECT_EQ(plain.bytes, html);
}

TEST(ValueCodec, RuleIncompressibleValueStaysPlainWithFlagCleared) {
  Page p = generate_page({1, 5, 1, 1.0});
  std::string random;
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < 30000; ++i) {  // xorshift bytes: incompressible
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    random += static_cast<char>(x);
  }
  for (FlagScheme s : kFlagSchemes) {
    Strategy st = must_parse("html+zlib", s);
    st.rule.threshold_bytes = 0;
    EncodedValue v = encode_value(st, p, random);
    std::string scratch;
    auto u = unwrap_value(v.bytes, v.flags, s, scratch);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->compressor, CompressorId::none) << to_string(s);
    EXPECT_EQ(v.bytes, random);
  }
}

TEST(ValueCodec, RuleDefaultsPhpMemcacheVsMemcached) {
  // A 5-row page's HTML (~3.4 KB) is above php-memcached's 2000 B but below 20000 B.
  Page p = generate_page({1, 5, 1, 1.0});
  std::string html = render_page(p);
  ASSERT_GT(html.size(), 2000u);
  ASSERT_LT(html.size(), 20000u);
  EXPECT_EQ(encode_value(must_parse("html+zlib", FlagScheme::php_memcache), p, html).flags, 0x0u);
  EXPECT_EQ(encode_value(must_parse("html+zlib", FlagScheme::php_memcached), p, html).flags, 0x30u);
  Page big = generate_page({1, 50, 1, 1.0});
  std::string big_html = render_page(big);
  EXPECT_EQ(encode_value(must_parse("html+zlib", FlagScheme::php_memcache), big, big_html).flags, 0x2u);
}

TEST(ValueCodec, NoCompressorNeverCompresses) {
  for (FlagScheme s : kFlagSchemes) {
    Strategy st = must_parse("struct:json", s);
    st.rule.threshold_bytes = 0;
    st.rule.min_savings = 0;
    st.rule.factor = 0;
    Page p = generate_page({1, 50, 1, 1.0});
    EXPECT_EQ(encode_value(st, p, "").bytes, encode_page(SerializerId::json, p));
  }
}

// The reader's libraries change nothing but the speed: every inflate library and JSON decoder
// gives the same page for every strategy whose bytes they read.
TEST(ValueCodec, EveryLibraryReadsEveryStrategyToTheSamePage) {
  const Page page = generate_page({9, 50, 3, 1.0});
  const std::string html = render_page(page);
  size_t checked = 0;
  for (const char* text : {"html+zlib", "struct:json", "struct:json+zlib", "struct:php+zlib", "struct:msgpack+zlib"}) {
    for (FlagScheme scheme : {FlagScheme::php_memcache, FlagScheme::php_memcached, FlagScheme::native}) {
      auto st = parse_strategy(text, scheme);
      ASSERT_TRUE(st.ok()) << text << " " << to_string(scheme);
      st->rule.threshold_bytes = 0;
      const EncodedValue v = encode_value(*st, page, html);
      for (const InflateRow& lib : kInflateLibraries) {
        for (const JsonDecoderRow& json : kJsonDecoders) {
          const Decoders d{lib.id, json.id};
          std::string scratch;
          auto u = unwrap_value(v.bytes, v.flags, scheme, scratch, d);
          ASSERT_TRUE(u.ok()) << text << " " << lib.name << ": " << u.error().message;
          if (u->rep == Representation::html) {
            EXPECT_EQ(u->payload, html) << text << " " << lib.name;
          } else {
            auto p = decode_page(u->serializer, u->payload, d);
            ASSERT_TRUE(p.ok()) << text << " " << lib.name << " " << json.name << ": " << p.error().message;
            EXPECT_EQ(*p, page) << text << " " << lib.name << " " << json.name;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 5u * 3u * std::size(kInflateLibraries) * std::size(kJsonDecoders));
}

TEST(ValueCodec, ImpossibleStrategyGetsPoisonFlagsEveryReaderRejects) {
  Strategy st;
  st.rep = Representation::structured;
  st.serializer = SerializerId::none;
  EncodedValue v = encode_value(st, Page{}, "");
  EXPECT_EQ(v.flags, 0xFFFFFFFFu);
  for (FlagScheme s : kFlagSchemes) {
    std::string scratch;
    EXPECT_FALSE(unwrap_value("x", v.flags, s, scratch).ok());
  }
}

Errc unwrap_error(std::string_view bytes, uint32_t flags, FlagScheme s) {
  std::string scratch;
  auto u = unwrap_value(bytes, flags, s, scratch);
  EXPECT_FALSE(u.ok()) << to_string(s) << " flags " << std::hex << flags << " accepted";
  return u.ok() ? Errc::not_found : u.error().code;
}

TEST(FlagErrors, PhpMemcachedUnknownAndInconsistent) {
  auto s = FlagScheme::php_memcached;
  EXPECT_EQ(unwrap_error("x", 1, s), Errc::unknown_flags);  // long
  EXPECT_EQ(unwrap_error("x", 2, s), Errc::unknown_flags);  // double
  EXPECT_EQ(unwrap_error("x", 3, s), Errc::unknown_flags);  // bool
  EXPECT_EQ(unwrap_error("x", 8, s), Errc::unknown_flags);
  EXPECT_EQ(unwrap_error("x", 15, s), Errc::unknown_flags);
  EXPECT_EQ(unwrap_error("x", 0x100, s), Errc::unknown_flags);      // internal bit 8
  EXPECT_EQ(unwrap_error("x", 0x50, s), Errc::bad_length);          // FastLZ: no room for its length prefix
  EXPECT_EQ(unwrap_error("x", 0x10, s), Errc::inconsistent_flags);  // compressed, no method
  EXPECT_EQ(unwrap_error("x", 0x20, s), Errc::inconsistent_flags);  // method, not compressed
  EXPECT_EQ(unwrap_error("x", 0xB0, s), Errc::inconsistent_flags);  // zlib and zstd
  std::string scratch;
  auto user = unwrap_value("<p>", 0xABCD0000u, s, scratch);  // user flags are the app's
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->rep, Representation::html);
}

TEST(FlagErrors, PhpMemcacheUnknownAndInconsistent) {
  auto s = FlagScheme::php_memcache;
  EXPECT_EQ(unwrap_error("1", 0x100, s), Errc::unknown_flags);         // bool
  EXPECT_EQ(unwrap_error("1", 0x300, s), Errc::unknown_flags);         // long
  EXPECT_EQ(unwrap_error("1", 0x700, s), Errc::unknown_flags);         // double
  EXPECT_EQ(unwrap_error("x", 0x4, s), Errc::unknown_flags);           // reserved bit 2
  EXPECT_EQ(unwrap_error("x", 0x8000, s), Errc::unknown_flags);        // reserved bit 15
  EXPECT_EQ(unwrap_error("x", 0x40000, s), Errc::unknown_flags);       // unknown user bit
  EXPECT_EQ(unwrap_error("x", 0x10001, s), Errc::inconsistent_flags);  // serialized + json
  EXPECT_EQ(unwrap_error("x", 0x30000, s), Errc::inconsistent_flags);  // json + msgpack
  EXPECT_EQ(unwrap_error("x", 0x10300, s), Errc::inconsistent_flags);  // long + json
}

TEST(FlagErrors, NativeRejectsUnknownVersionsAndIds) {
  auto s = FlagScheme::native;
  EXPECT_EQ(unwrap_error("x", 0, s), Errc::unknown_flags);                // no magic
  EXPECT_EQ(unwrap_error("x", 0x30, s), Errc::unknown_flags);             // a php-memcached value
  EXPECT_EQ(unwrap_error("x", 0x68200000, s), Errc::unknown_flags);       // version 2
  EXPECT_EQ(unwrap_error("x", 0x68000000, s), Errc::unknown_flags);       // version 0
  EXPECT_EQ(unwrap_error("x", 0x68101000, s), Errc::unknown_flags);       // reserved bit
  EXPECT_EQ(unwrap_error("x", 0x68100500, s), Errc::unknown_flags);       // compressor 5
  EXPECT_EQ(unwrap_error("x", 0x68100061, s), Errc::unknown_flags);       // serializer 6
  EXPECT_EQ(unwrap_error("x", 0x68100002, s), Errc::unknown_flags);       // representation 2
  EXPECT_EQ(unwrap_error("x", 0x68100010, s), Errc::inconsistent_flags);  // html + json
  EXPECT_EQ(unwrap_error("x", 0x68100001, s), Errc::inconsistent_flags);  // struct, no serializer
  EXPECT_EQ(unwrap_error("{}", 0x68100041, s), Errc::unknown_flags);     // serializer 4: retired (was simdjson)
}

TEST(LengthPrefix, WrongBigEndianHugeAndMissing) {
  Page p = generate_page({1, 50, 1, 1.0});
  for (FlagScheme s : {FlagScheme::php_memcached, FlagScheme::native}) {
    for (const char* text : {"struct:json+zlib", "struct:json+zstd", "struct:json+lz4"}) {
      if (s == FlagScheme::php_memcached && std::string(text).ends_with("lz4")) continue;
      Strategy st = must_parse(text, s);
      EncodedValue v = encode_value(st, p, "");
      ASSERT_NE(v.flags & (s == FlagScheme::native ? 0xF00u : 0x10u), 0u) << text;
      auto with_prefix = [&](uint32_t n) {
        std::string b = v.bytes;
        for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(n >> (8 * i));
        return b;
      };
      uint32_t len = static_cast<unsigned char>(v.bytes[0]) | static_cast<unsigned char>(v.bytes[1]) << 8 |
                     static_cast<unsigned char>(v.bytes[2]) << 16;
      bool lz4 = std::string(text).ends_with("lz4");
      Errc minus = unwrap_error(with_prefix(len - 1), v.flags, s);
      Errc plus = unwrap_error(with_prefix(len + 1), v.flags, s);
      if (lz4) {  // lz4 cannot tell "longer than promised" from corrupt
        EXPECT_TRUE(minus == Errc::bad_length || minus == Errc::decompress_failed);
      } else {
        EXPECT_EQ(minus, Errc::bad_length) << text;
      }
      EXPECT_EQ(plus, Errc::bad_length) << text;
      uint32_t big_endian = __builtin_bswap32(len);  // ~500 MB: over the 64 MiB cap
      EXPECT_EQ(unwrap_error(with_prefix(big_endian), v.flags, s), Errc::bad_length) << text;
      EXPECT_EQ(unwrap_error(with_prefix(0xFFFFFFFFu), v.flags, s), Errc::bad_length) << text;
      Errc zero = unwrap_error(with_prefix(0), v.flags, s);
      if (!lz4) {
        EXPECT_EQ(zero, Errc::bad_length) << text;
      }
      EXPECT_EQ(unwrap_error(std::string_view(v.bytes).substr(0, 3), v.flags, s), Errc::bad_length);
      EXPECT_EQ(unwrap_error(std::string_view(v.bytes).substr(0, 4), v.flags, s), Errc::decompress_failed) << text;
    }
  }
}

TEST(CompressedData, TruncatedAndBitFlippedAreTypedErrors) {
  Page p = generate_page({1, 50, 1, 1.0});
  for (FlagScheme s : kFlagSchemes) {
    for (const char* text : {"struct:msgpack+zlib", "struct:msgpack+zstd", "html+lz4"}) {
      auto st = parse_strategy(text, s);
      if (!st) continue;
      st->rule.threshold_bytes = 0;
      EncodedValue v = encode_value(*st, p, render_page(p));
      for (size_t cut : {v.bytes.size() - 1, v.bytes.size() / 2, size_t{6}}) {
        Errc e = unwrap_error(std::string_view(v.bytes).substr(0, cut), v.flags, s);
        EXPECT_TRUE(e == Errc::decompress_failed || e == Errc::bad_length) << text << " " << to_string(e);
      }
      for (size_t i = 4; i < v.bytes.size(); i += 97) {
        std::string bad = v.bytes;
        bad[i] = static_cast<char>(bad[i] ^ 0x10);
        std::string scratch;
        auto u = unwrap_value(bad, v.flags, s, scratch);
        if (!u) continue;  // typed error: fine
        // Only lz4 (no checksum) may get through; then the decoder or renderer must cope.
        EXPECT_STREQ(to_string(u->compressor), "lz4") << to_string(s) << " " << text << " byte " << i;
      }
    }
  }
}

// The form (rep, serializer bytes, compressor) of what `st` stores for `page`.
Unwrapped form_of(const Strategy& st, const Page& page) {
  std::string html = render_page(page), scratch;
  EncodedValue v = encode_value(st, page, html);
  auto u = unwrap_value(v.bytes, v.flags, st.scheme, scratch);
  EXPECT_TRUE(u.ok()) << st.name();
  Unwrapped f = u.ok() ? *u : Unwrapped{};
  f.payload = {};
  return f;
}

bool same_form(const Unwrapped& a, const Unwrapped& b) {
  return a.rep == b.rep && a.serializer == b.serializer && a.compressor == b.compressor;
}

// A hit is what it says it is (server/hit_steps.h): strategy_writes(T, F) must hold exactly for
// the forms T's own encoder produces — plain under the threshold, compressed above it — checked
// against what encode_value wrote, for every pair of strategies of every scheme.
TEST(ValueCodec, StrategyWritesExactlyTheFormsItsEncoderProduces) {
  const Page small = generate_page({1, 1, 2, 1.0});  // under every default threshold: stored plain
  const Page big = generate_page({2, 150, 2, 1.0});  // compresses well (forced: threshold 0)
  size_t pairs = 0, written = 0, expected_pairs = 0;
  for (FlagScheme scheme : kFlagSchemes) {
    const std::vector<std::string> texts = strategies_for(scheme);
    expected_pairs += texts.size() * texts.size() * 2;
    std::vector<std::pair<Strategy, std::vector<Unwrapped>>> all;
    for (const std::string& text : texts) {
      Strategy st = must_parse(text, scheme);
      Strategy forced = st;
      forced.rule.threshold_bytes = 0;
      all.push_back({st, {form_of(st, small), form_of(forced, big)}});
      EXPECT_EQ(all.back().second[0].compressor, CompressorId::none) << text << " stored the small page compressed";
      if (st.compressor != CompressorId::none) {
        EXPECT_EQ(all.back().second[1].compressor, st.compressor) << text << " did not compress the big page";
      }
    }
    for (const auto& [asked, asked_forms] : all) {
      for (const auto& [writer, forms] : all) {
        for (const Unwrapped& f : forms) {
          const bool produces =
              std::any_of(asked_forms.begin(), asked_forms.end(), [&](const Unwrapped& g) { return same_form(f, g); });
          EXPECT_EQ(strategy_writes(asked, f), produces)
              << to_string(scheme) << ": asked " << asked.name() << ", stored by " << writer.name() << " as "
              << stored_form_name(f);
          written += produces ? 1 : 0;
          ++pairs;
          // The name of a form is a strategy that writes it.
          auto named = parse_strategy(stored_form_name(f), scheme);
          ASSERT_TRUE(named.ok()) << stored_form_name(f);
          EXPECT_TRUE(strategy_writes(*named, f)) << stored_form_name(f);
        }
      }
    }
  }
  EXPECT_EQ(pairs, expected_pairs);
  EXPECT_GT(written, 0u);
  EXPECT_LT(written, pairs);
}

TEST(ValueCodec, StoredFormNamesAreCanonicalStrategyNames) {
  Unwrapped f;
  EXPECT_EQ(stored_form_name(f), "html");
  f.compressor = CompressorId::zstd;
  EXPECT_EQ(stored_form_name(f), "html+zstd");
  f.rep = Representation::structured;
  f.serializer = SerializerId::json;
  f.compressor = CompressorId::zlib;
  EXPECT_EQ(stored_form_name(f), "struct:json+zlib");
  f.compressor = CompressorId::none;
  EXPECT_EQ(stored_form_name(f), "struct:json");
  // struct:json+zstd would write a plain JSON value (under its threshold), not a zlib one.
  Strategy zstd = must_parse("struct:json+zstd", FlagScheme::php_memcached);
  EXPECT_TRUE(strategy_writes(zstd, f));
  f.compressor = CompressorId::zlib;
  EXPECT_FALSE(strategy_writes(zstd, f));
}

}  // namespace
}  // namespace hitcost
