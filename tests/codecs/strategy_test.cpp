#include "codecs/strategy.h"

#include <gtest/gtest.h>

#include <string>

namespace hitcost {
namespace {

TEST(Strategy, ParsesTheGrammarAndNameRoundTrips) {
  struct Case {
    const char* text;
    Representation rep;
    SerializerId ser;
    CompressorId comp;
    int level;
  };
  const Case cases[] = {
      {"html", Representation::html, SerializerId::none, CompressorId::none, 0},
      {"html+zlib", Representation::html, SerializerId::none, CompressorId::zlib, 0},
      {"struct:json", Representation::structured, SerializerId::json, CompressorId::none, 0},
      {"struct:msgpack+zlib", Representation::structured, SerializerId::msgpack, CompressorId::zlib, 0},
      {"struct:php+zlib:9", Representation::structured, SerializerId::php, CompressorId::zlib, 9},
      {"struct:json+zstd:3", Representation::structured, SerializerId::json, CompressorId::zstd, 3},
      {"html+lz4", Representation::html, SerializerId::none, CompressorId::lz4, 0},
      {"struct:msgpack+lz4:9", Representation::structured, SerializerId::msgpack, CompressorId::lz4, 9},
      {"struct:igbinary+fastlz", Representation::structured, SerializerId::igbinary, CompressorId::fastlz, 0},
      {"html+fastlz:2", Representation::html, SerializerId::none, CompressorId::fastlz, 2},
  };
  for (const Case& c : cases) {
    auto st = parse_strategy(c.text, FlagScheme::native);
    ASSERT_TRUE(st.ok()) << c.text << ": " << st.error().message;
    EXPECT_EQ(st->rep, c.rep) << c.text;
    EXPECT_EQ(st->serializer, c.ser) << c.text;
    EXPECT_EQ(st->compressor, c.comp) << c.text;
    EXPECT_EQ(st->level, c.level) << c.text;
    EXPECT_EQ(st->scheme, FlagScheme::native);
    EXPECT_EQ(st->name(), c.text);
    auto again = parse_strategy(st->name(), FlagScheme::native);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->name(), st->name());
  }
  auto none = parse_strategy("struct:php+none", FlagScheme::php_memcache);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->name(), "struct:php");
}

TEST(Strategy, RejectsBadTextWithAClearMessage) {
  const char* bad[] = {"",
                       "HTML",
                       "html+",
                       "html+zlib:",
                       "html+zlib:0",
                       "html+zlib:10",
                       "html+zlib:-1",
                       "html+zlib:x",
                       "html+zlib:9x",
                       "html+gzip",
                       "struct:",
                       "struct:xml",
                       "struct:json+",
                       "struct:json+zstd:0",
                       "struct:json+zstd:23",
                       "struct:json+lz4:13",
                       "json",
                       "html+none:1",
                       "struct:json+zlib+zstd",
                       " html",
                       "html ",
                       "html+fastlz:3",
                       "html+fastlz:0",
                       "struct:igbin",
                       "php-default+zlib"};
  for (const char* t : bad) {
    auto st = parse_strategy(t, FlagScheme::native);
    ASSERT_FALSE(st.ok()) << "accepted '" << t << "'";
    EXPECT_EQ(st.error().code, Errc::invalid_argument);
    EXPECT_NE(st.error().message.find("strategy"), std::string::npos) << st.error().message;
  }
  auto e = parse_strategy("struct:xml", FlagScheme::native);
  EXPECT_NE(e.error().message.find("unknown serializer 'xml'"), std::string::npos) << e.error().message;
  e = parse_strategy("html+zlib:10", FlagScheme::native);
  EXPECT_NE(e.error().message.find("1..9"), std::string::npos) << e.error().message;
}

// struct:simdjson stored JSON's bytes; simdjson is now the server's JSON decoder, not a strategy.
TEST(Strategy, StructSimdjsonIsRefusedNamingTheJsonDecoderOption) {
  size_t checked = 0;
  for (FlagScheme scheme : kFlagSchemes) {
    for (const char* text : {"struct:simdjson", "struct:simdjson+zlib"}) {
      auto st = parse_strategy(text, scheme);
      ASSERT_FALSE(st.ok()) << text;
      EXPECT_EQ(st.error().code, Errc::invalid_argument);
      EXPECT_NE(st.error().message.find("struct:json"), std::string::npos) << st.error().message;
      EXPECT_NE(st.error().message.find("--json-decoder"), std::string::npos) << st.error().message;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * std::size(kFlagSchemes));
}

TEST(Strategy, SchemesRejectCompressorsTheirPhpReaderCannotRead) {
  for (const char* t : {"html+lz4", "struct:json+lz4"}) {
    auto a = parse_strategy(t, FlagScheme::php_memcached);
    ASSERT_FALSE(a.ok()) << t;
    EXPECT_NE(a.error().message.find("use --flags native"), std::string::npos) << a.error().message;
    auto b = parse_strategy(t, FlagScheme::php_memcache);
    ASSERT_FALSE(b.ok()) << t;
    EXPECT_NE(b.error().message.find("use --flags native"), std::string::npos) << b.error().message;
  }
  EXPECT_FALSE(parse_strategy("struct:php+zstd", FlagScheme::php_memcache).ok());
  EXPECT_TRUE(parse_strategy("struct:php+zstd", FlagScheme::php_memcached).ok());  // PHP >= 3.3.0 only
  EXPECT_TRUE(parse_strategy("struct:msgpack+zlib:1", FlagScheme::php_memcache).ok());
  // pecl memcache has neither FastLZ nor an igbinary flag.
  EXPECT_FALSE(parse_strategy("struct:php+fastlz", FlagScheme::php_memcache).ok());
  auto ig = parse_strategy("struct:igbinary", FlagScheme::php_memcache);
  ASSERT_FALSE(ig.ok());
  EXPECT_NE(ig.error().message.find("igbinary"), std::string::npos) << ig.error().message;
  EXPECT_TRUE(parse_strategy("struct:igbinary+fastlz", FlagScheme::php_memcached).ok());
}

TEST(Strategy, PresetsAreWhatStockPhpWritesAndKeepTheirScheme) {
  auto d = parse_strategy("php-default", FlagScheme::php_memcached);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->name(), "struct:php+fastlz");
  EXPECT_EQ(d->level, 0);  // by size, as the extension picks
  EXPECT_EQ(d->rule.threshold_bytes, 2000u);
  EXPECT_DOUBLE_EQ(d->rule.factor, 1.3);
  auto m = parse_strategy("php-memcache-default", FlagScheme::php_memcache);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name(), "struct:php+zlib");
  EXPECT_EQ(m->rule.threshold_bytes, 20000u);
  EXPECT_DOUBLE_EQ(m->rule.min_savings, 0.20);
  // Under another scheme a preset is refused with the flag that makes it work.
  auto wrong = parse_strategy("php-default", FlagScheme::native);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("--flags php-memcached"), std::string::npos) << wrong.error().message;
  EXPECT_FALSE(parse_strategy("php-memcache-default", FlagScheme::php_memcached).ok());
  EXPECT_EQ(std::size(kStrategyPresets), 2u);
}

TEST(Strategy, RuleDefaultsComeFromTheScheme) {
  auto a = parse_strategy("html+zlib", FlagScheme::php_memcache);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->rule.threshold_bytes, 20000u);
  EXPECT_DOUBLE_EQ(a->rule.min_savings, 0.20);
  for (FlagScheme s : {FlagScheme::php_memcached, FlagScheme::native}) {
    auto b = parse_strategy("html+zlib", s);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->rule.threshold_bytes, 2000u);
    EXPECT_DOUBLE_EQ(b->rule.factor, 1.3);
  }
}

TEST(CompressionRule, PhpMemcacheKeepsAtTwentyPercentSaving) {
  CompressionRule r = CompressionRule::defaults_for(FlagScheme::php_memcache);
  EXPECT_TRUE(r.keep(1000, 800));  // exactly 20 % saved: kept (<= len * 0.8)
  EXPECT_FALSE(r.keep(1000, 801));
  EXPECT_TRUE(r.keep(1000, 100));
  EXPECT_FALSE(r.keep(1000, 1000));
}

TEST(CompressionRule, PhpMemcachedKeepsAboveFactor) {
  CompressionRule r = CompressionRule::defaults_for(FlagScheme::php_memcached);
  EXPECT_FALSE(r.keep(1300, 1000));  // len must be > compressed * 1.3
  EXPECT_TRUE(r.keep(1301, 1000));
  EXPECT_FALSE(r.keep(1000, 1000));
  EXPECT_EQ(CompressionRule::defaults_for(FlagScheme::native).threshold_bytes, 2000u);
}

TEST(CompressionRule, BothUnusedMeansAlwaysKeep) {
  CompressionRule r;
  r.min_savings = 0;
  r.factor = 0;
  EXPECT_TRUE(r.keep(10, 20));
}

TEST(FlagSchemeNames, RoundTrip) {
  for (FlagScheme s : kFlagSchemes) {
    auto p = parse_flag_scheme(to_string(s));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, s);
  }
  auto bad = parse_flag_scheme("memcache");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_argument);
  EXPECT_STREQ(to_string(SerializerId::json), "json");
  EXPECT_STREQ(to_string(CompressorId::lz4), "lz4");
  EXPECT_STREQ(to_string(CompressorId::fastlz), "fastlz");
  EXPECT_STREQ(to_string(SerializerId::igbinary), "igbinary");
}

}  // namespace
}  // namespace hitcost
