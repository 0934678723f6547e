// The codec tables (codecs/codec_table.h) walked row by row: every name parses back to its
// row, every serializer x compressor stores and reads back a page, the PHP schemes accept
// exactly the rows that have flags for them, and the wire values of the rows stay put.
#include "codecs/codec_table.h"

#include <gtest/gtest.h>

#include <string>

#include "codecs/compressor.h"
#include "codecs/flag_scheme.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "tests/codecs/test_pages.h"

namespace hitcost {
namespace {

constexpr size_t kSerializerRows = std::size(kSerializerCodecs);
constexpr size_t kCompressorRows = std::size(kCompressorCodecs);

// Compression forced: every value below is stored compressed, whatever its size.
Strategy forced(Strategy st) {
  st.rule.threshold_bytes = 0;
  st.rule.min_savings = 0;
  st.rule.factor = 0;
  return st;
}

// Stores `page` under `st` and reads it back the way a hit does; the page read, or why not.
Result<Page> store_and_read(const Strategy& st, const Page& page) {
  EncodedValue v = encode_value(st, page, render_page(page));
  std::string scratch;
  auto u = unwrap_value(v.bytes, v.flags, st.scheme, scratch);
  if (!u) return u.error();
  if (u->compressor != st.compressor) return Error{Errc::inconsistent_flags, "stored with another compressor"};
  if (u->serializer != st.serializer) return Error{Errc::inconsistent_flags, "read back as another serializer"};
  return decode_page(u->serializer, u->payload);
}

TEST(CodecTable, EverySerializerNameParsesBackToItsRow) {
  size_t checked = 0;
  for (const SerializerCodec& row : kSerializerCodecs) {
    EXPECT_EQ(find_serializer(row.name), &row) << row.name;
    EXPECT_EQ(find_serializer(row.id), &row) << row.name;
    EXPECT_STREQ(to_string(row.id), row.name);
    const std::string text = std::string("struct:") + row.name;
    auto st = parse_strategy(text, FlagScheme::native);
    ASSERT_TRUE(st.ok()) << text << ": " << st.error().message;
    EXPECT_EQ(st->rep, Representation::structured);
    EXPECT_EQ(st->serializer, row.id);
    EXPECT_EQ(st->name(), text);  // to_string round-trips through the grammar
    ++checked;
  }
  EXPECT_EQ(checked, kSerializerRows);
  EXPECT_STREQ(to_string(SerializerId::none), "none");
  EXPECT_EQ(find_serializer(SerializerId::none), nullptr);
  EXPECT_EQ(find_serializer("none"), nullptr);
}

TEST(CodecTable, EveryCompressorNameAndLevelRangeParsesBackToItsRow) {
  size_t checked = 0;
  for (const CompressorCodec& row : kCompressorCodecs) {
    EXPECT_EQ(find_compressor(row.name), &row) << row.name;
    EXPECT_EQ(find_compressor(row.id), &row) << row.name;
    EXPECT_STREQ(to_string(row.id), row.name);
    const std::string text = std::string("html+") + row.name;
    auto st = parse_strategy(text, FlagScheme::native);
    ASSERT_TRUE(st.ok()) << text << ": " << st.error().message;
    EXPECT_EQ(st->compressor, row.id);
    EXPECT_EQ(st->level, 0);
    EXPECT_EQ(st->name(), text);
    for (int level : {row.levels.min, row.levels.max}) {
      const std::string leveled = text + ":" + std::to_string(level);
      auto l = parse_strategy(leveled, FlagScheme::native);
      ASSERT_TRUE(l.ok()) << leveled << ": " << l.error().message;
      EXPECT_EQ(l->level, level);
      EXPECT_EQ(l->name(), leveled);
    }
    for (int level : {row.levels.min - 1, row.levels.max + 1}) {
      EXPECT_FALSE(parse_strategy(text + ":" + std::to_string(level), FlagScheme::native).ok()) << text << level;
    }
    EXPECT_EQ(level_range(row.id).max, row.levels.max);
    ++checked;
  }
  EXPECT_EQ(checked, kCompressorRows);
  EXPECT_STREQ(to_string(CompressorId::none), "none");
  EXPECT_EQ(find_compressor(CompressorId::none), nullptr);
}

TEST(CodecTable, EverySerializerTimesEveryCompressorRoundTripsAPage) {
  const Page pages[] = {testing::tricky_page(), generate_page({9, 50, 4, 1.0})};
  size_t combinations = 0;
  for (const SerializerCodec& ser : kSerializerCodecs) {
    for (const CompressorCodec& comp : kCompressorCodecs) {
      const std::string text = std::string("struct:") + ser.name + "+" + comp.name;
      auto st = parse_strategy(text, FlagScheme::native);
      ASSERT_TRUE(st.ok()) << text << ": " << st.error().message;
      for (const Page& page : pages) {
        auto back = store_and_read(forced(*st), page);
        ASSERT_TRUE(back.ok()) << text << ": " << back.error().message;
        EXPECT_EQ(*back, page) << text;
      }
      ++combinations;
    }
  }
  EXPECT_EQ(combinations, kSerializerRows * kCompressorRows);

  // The baseline rows: html under every compressor, every serializer stored plain.
  size_t baselines = 0;
  std::string scratch;
  for (const CompressorCodec& comp : kCompressorCodecs) {
    auto st = parse_strategy(std::string("html+") + comp.name, FlagScheme::native);
    ASSERT_TRUE(st.ok());
    const std::string html = render_page(pages[1]);
    EncodedValue v = encode_value(forced(*st), pages[1], html);
    auto u = unwrap_value(v.bytes, v.flags, FlagScheme::native, scratch);
    ASSERT_TRUE(u.ok()) << comp.name << ": " << u.error().message;
    EXPECT_EQ(u->compressor, comp.id);
    EXPECT_EQ(u->payload, html) << comp.name;
    ++baselines;
  }
  for (const SerializerCodec& ser : kSerializerCodecs) {
    auto st = parse_strategy(std::string("struct:") + ser.name, FlagScheme::native);
    ASSERT_TRUE(st.ok());
    auto back = store_and_read(*st, pages[1]);
    ASSERT_TRUE(back.ok()) << ser.name << ": " << back.error().message;
    EXPECT_EQ(*back, pages[1]) << ser.name;
    ++baselines;
  }
  EXPECT_EQ(baselines, kSerializerRows + kCompressorRows);
}

// A PHP scheme stores a serializer x compressor exactly when both rows have a value for
// it, under the flags the rows give; every other pair is refused at parse time.
TEST(CodecTable, PhpSchemesStoreExactlyThePairsTheirRowsCanSay) {
  const Page page = generate_page({3, 50, 2, 1.0});
  for (FlagScheme scheme : {FlagScheme::php_memcache, FlagScheme::php_memcached}) {
    const bool mc = scheme == FlagScheme::php_memcache;
    size_t accepted = 0, refused = 0;
    for (const SerializerCodec& ser : kSerializerCodecs) {
      const uint32_t ser_bits = mc ? ser.php_memcache_flag : ser.php_memcached_type;
      for (const CompressorCodec& comp : kCompressorCodecs) {
        const uint32_t comp_bits = mc ? comp.php_memcache_flag : flags::kMdCompressed | comp.php_memcached_method;
        const bool sayable = ser_bits != 0 && (mc ? comp.php_memcache_flag : comp.php_memcached_method) != 0;
        const std::string text = std::string("struct:") + ser.name + "+" + comp.name;
        auto st = parse_strategy(text, scheme);
        ASSERT_EQ(st.ok(), sayable) << to_string(scheme) << " " << text;
        if (!st) {
          EXPECT_NE(st.error().message.find("--flags"), std::string::npos) << st.error().message;
          ++refused;
          continue;
        }
        EXPECT_EQ(encode_value(forced(*st), page, "").flags, ser_bits | comp_bits) << to_string(scheme) << " " << text;
        auto back = store_and_read(forced(*st), page);
        ASSERT_TRUE(back.ok()) << to_string(scheme) << " " << text << ": " << back.error().message;
        EXPECT_EQ(*back, page);
        ++accepted;
      }
    }
    EXPECT_EQ(accepted + refused, kSerializerRows * kCompressorRows) << to_string(scheme);
    EXPECT_GT(accepted, 0u) << to_string(scheme);
    EXPECT_GT(refused, 0u) << to_string(scheme);  // neither PHP extension reads lz4
  }
}

// The rows are wire format (names typed by users and printed in reports, ids in native
// flags, PHP flag values): the rows that exist keep these values. New rows may follow.
TEST(CodecTable, ExistingRowsKeepTheirWireValues) {
  struct SerializerWire {
    const char* name;
    unsigned id;
    uint32_t php_memcache_flag, php_memcached_type;
  };
  const SerializerWire serializers[] = {{"json", 1, 0x00010000, 6},
                                        {"msgpack", 2, 0x00020000, 7},
                                        {"php", 3, 0x0001, 4},
                                        {"igbinary", 5, 0, 5}};
  for (const SerializerWire& w : serializers) {
    const SerializerCodec* row = find_serializer(w.name);
    ASSERT_NE(row, nullptr) << w.name;
    EXPECT_EQ(static_cast<unsigned>(row->id), w.id) << w.name;
    EXPECT_EQ(row->php_memcache_flag, w.php_memcache_flag) << w.name;
    EXPECT_EQ(row->php_memcached_type, w.php_memcached_type) << w.name;
  }
  // 4 was struct:simdjson (JSON's bytes, always flagged 1): retired, never reused.
  EXPECT_EQ(find_serializer("simdjson"), nullptr);
  EXPECT_EQ(find_serializer(static_cast<SerializerId>(4)), nullptr);
  struct CompressorWire {
    const char* name;
    unsigned id;
    uint32_t php_memcache_flag, php_memcached_method;
    LevelRange levels;
  };
  const CompressorWire compressors[] = {{"zlib", 1, 0x0002, 0x20, {1, 9, 6}},
                                        {"zstd", 2, 0, 0x80, {1, 19, 3}},
                                        {"lz4", 3, 0, 0, {1, 12, 1}},
                                        {"fastlz", 4, 0, 0x40, {1, 2, 0}}};
  for (const CompressorWire& w : compressors) {
    const CompressorCodec* row = find_compressor(w.name);
    ASSERT_NE(row, nullptr) << w.name;
    EXPECT_EQ(static_cast<unsigned>(row->id), w.id) << w.name;
    EXPECT_EQ(row->php_memcache_flag, w.php_memcache_flag) << w.name;
    EXPECT_EQ(row->php_memcached_method, w.php_memcached_method) << w.name;
    EXPECT_EQ(row->levels.min, w.levels.min) << w.name;
    EXPECT_EQ(row->levels.max, w.levels.max) << w.name;
    EXPECT_EQ(row->levels.default_level, w.levels.default_level) << w.name;
  }
}

}  // namespace
}  // namespace hitcost
