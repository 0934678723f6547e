#include "codecs/zstd_dictionary.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "codecs/compressor.h"
#include "codecs/prng.h"
#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "tests/support/small_records.h"

// The registry is process-wide and keeps what it is given: these tests register their own
// dictionaries under scopes of their own and never one for every form (scope ""), so that the
// "no dictionary" cases stay true whatever ran before them in this executable.
namespace hitcost {
namespace {

// Every fifth record trains; the others are measured (never the training set).
struct Split {
  std::vector<std::string_view> train;
  std::vector<std::string_view> test;
};
Split split(const std::vector<std::string>& records) {
  Split s;
  for (size_t i = 0; i < records.size(); ++i) (i % 5 == 0 ? s.train : s.test).push_back(records[i]);
  return s;
}

TEST(ZstdDictionary, SmallJsonStoresAtLeastTwiceSmallerThanZstdWithoutOneDictionaryCounted) {
  const auto records = test::small_json_records(3000, 7);
  const Split parts = split(records);
  size_t train_bytes = 0;
  for (auto s : parts.train) train_bytes += s.size();
  auto dict = train_zstd_dictionary(parts.train, default_dictionary_capacity(train_bytes));
  ASSERT_TRUE(dict.ok()) << dict.error().message;
  auto id = register_zstd_dictionary(*dict, "struct:json");
  ASSERT_TRUE(id.ok()) << id.error().message;

  size_t plain = 0, without = 0, with = 0, round_trips = 0;
  for (std::string_view v : parts.test) {
    ASSERT_GE(v.size(), 100u);
    ASSERT_LE(v.size(), 1000u);
    std::string a, b, back;
    ASSERT_TRUE(compress(CompressorId::zstd, 3, v, a).ok());
    ASSERT_TRUE(zstd_compress_with_dictionary(*id, 3, v, b).ok());
    EXPECT_EQ(ZSTD_getDictID_fromFrame(b.data(), b.size()), *id);  // the frame names its dictionary
    // The ordinary zstd reader finds the dictionary by the frame's id.
    ASSERT_TRUE(decompress_exact(CompressorId::zstd, b, v.size(), back).ok());
    ASSERT_EQ(back, v);
    ++round_trips;
    plain += v.size();
    without += a.size();
    with += b.size();
  }
  EXPECT_EQ(round_trips, parts.test.size());
  ASSERT_EQ(round_trips, 2400u);
  // The dictionary is stored once beside the values: counted.
  const double ratio = static_cast<double>(without) / static_cast<double>(with + dict->size());
  std::printf("plain %zu B, zstd:3 %zu B, zstd-dict:3 %zu B + dictionary %zu B: %.2fx smaller\n", plain, without, with,
              dict->size(), ratio);
  EXPECT_GE(ratio, 2.0);
}

TEST(ZstdDictionary, AFrameWhoseDictionaryIsNotLoadedIsRefusedNamingIt) {
  const auto records = test::small_json_records(400, 11);
  std::vector<std::string_view> samples(records.begin(), records.end());
  auto dict = train_zstd_dictionary(samples, 8192);
  ASSERT_TRUE(dict.ok()) << dict.error().message;
  const unsigned id = ZSTD_getDictID_fromDict(dict->data(), dict->size());
  ASSERT_NE(id, 0u);
  for (const auto& d : zstd_dictionaries()) ASSERT_NE(d.id, id) << "trained dictionaries collide";
  // Written by libzstd itself with a dictionary this process never loaded.
  std::string frame(ZSTD_compressBound(records[0].size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  size_t n = ZSTD_compress_usingDict(cctx, frame.data(), frame.size(), records[0].data(), records[0].size(),
                                     dict->data(), dict->size(), 3);
  ZSTD_freeCCtx(cctx);
  ASSERT_FALSE(ZSTD_isError(n));
  frame.resize(n);
  std::string back;
  Status s = decompress_exact(CompressorId::zstd, frame, records[0].size(), back);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::decompress_failed);
  EXPECT_NE(s.error().message.find("dictionary " + std::to_string(id)), std::string::npos) << s.error().message;
  // Loaded, the same frame reads.
  ASSERT_TRUE(register_zstd_dictionary(*dict, "struct:php").ok());
  ASSERT_TRUE(decompress_exact(CompressorId::zstd, frame, records[0].size(), back).ok());
  EXPECT_EQ(back, records[0]);
}

TEST(ZstdDictionary, WhatIsNotADictionaryIsRefused) {
  const auto records = test::small_json_records(400, 13);
  std::vector<std::string_view> samples(records.begin(), records.end());
  auto dict = train_zstd_dictionary(samples, 4096);
  ASSERT_TRUE(dict.ok());
  size_t refused = 0;
  for (const std::string& bad : {std::string(), std::string("hello world, no magic"), records[0], dict->substr(0, 7)}) {
    auto id = register_zstd_dictionary(bad, "html");
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().code, Errc::invalid_argument);
    ++refused;
  }
  EXPECT_EQ(refused, 4u);
  // The same id with other content: a frame could not tell them apart.
  ASSERT_TRUE(register_zstd_dictionary(*dict, "html").ok());
  std::string other = *dict;
  other.back() = static_cast<char>(other.back() ^ 0x55);
  auto clash = register_zstd_dictionary(other, "html");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("already loaded"), std::string::npos) << clash.error().message;
  // An unknown scope.
  auto scope = register_zstd_dictionary(*dict, "struct:yaml");
  ASSERT_FALSE(scope.ok());
  EXPECT_NE(scope.error().message.find("unknown scope"), std::string::npos);
  // Training with nothing to learn from.
  EXPECT_FALSE(train_zstd_dictionary({}, 4096).ok());
  EXPECT_FALSE(train_zstd_dictionary({"ab", "cd"}, 4096).ok());
}

TEST(ZstdDictionary, FilesLoadAndTheOptionNamesAScopeAndAFile) {
  const auto records = test::small_json_records(400, 17);
  std::vector<std::string_view> samples(records.begin(), records.end());
  auto dict = train_zstd_dictionary(samples, 4096);
  ASSERT_TRUE(dict.ok());
  const std::string path = testing::TempDir() + "/zstd_dictionary_test.dict";
  { std::ofstream(path, std::ios::binary) << *dict; }
  auto opt = parse_dictionary_option("struct:msgpack=" + path);
  ASSERT_TRUE(opt.ok()) << opt.error().message;
  EXPECT_EQ(opt->scope, "struct:msgpack");
  EXPECT_EQ(opt->path, path);
  auto every = parse_dictionary_option(path);
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->scope, "");
  auto eq_in_path = parse_dictionary_option("/tmp/a=b.dict");  // '=' after a '/' is the file's
  ASSERT_TRUE(eq_in_path.ok());
  EXPECT_EQ(eq_in_path->path, "/tmp/a=b.dict");
  EXPECT_FALSE(parse_dictionary_option("struct:yaml=" + path).ok());
  EXPECT_FALSE(parse_dictionary_option("html=").ok());

  auto id = load_zstd_dictionary_file(opt->path, opt->scope);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(zstd_dictionary_for("struct:msgpack"), *id);
  bool listed = false;
  for (const auto& d : zstd_dictionaries())
    if (d.id == *id) listed = d.bytes == dict->size() && d.writes_for == std::vector<std::string>{"struct:msgpack"};
  EXPECT_TRUE(listed);

  auto missing = load_zstd_dictionary_file(path + ".missing", "html");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::io_error);
  EXPECT_NE(missing.error().message.find(".missing"), std::string::npos);
  std::remove(path.c_str());
}

TEST(ZstdDictionary, TheStrategyNamesItAndWritesZstdFlagsWithTheFrameNamingTheDictionary) {
  auto st = parse_strategy("struct:json+zstd-dict:9", FlagScheme::php_memcached);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(st->dictionary);
  EXPECT_EQ(st->compressor, CompressorId::zstd);
  EXPECT_EQ(st->level, 9);
  EXPECT_EQ(st->name(), "struct:json+zstd-dict:9");
  EXPECT_EQ(parse_strategy("html+zstd-dict", FlagScheme::native)->name(), "html+zstd-dict");
  EXPECT_FALSE(parse_strategy("struct:json+zlib-dict", FlagScheme::native).ok());
  EXPECT_FALSE(parse_strategy("struct:php+zstd-dict", FlagScheme::php_memcache).ok());  // no zstd flag there

  // Written with the struct:json dictionary the first test registered (or registered here).
  const auto records = test::small_json_records(600, 19);
  std::vector<std::string_view> samples(records.begin(), records.end());
  if (zstd_dictionary_for("struct:json") == 0) {
    auto dict = train_zstd_dictionary(samples, 8192);
    ASSERT_TRUE(dict.ok());
    ASSERT_TRUE(register_zstd_dictionary(*dict, "struct:json").ok());
  }
  // Parsed now that the form has a dictionary: the strategy holds its id.
  st = parse_strategy("struct:json+zstd-dict:9", FlagScheme::php_memcached);
  ASSERT_TRUE(st.ok());
  ASSERT_NE(st->dictionary_id, 0u);
  EXPECT_EQ(st->dictionary_id, zstd_dictionary_for("struct:json"));
  Strategy s = *st;
  s.rule.threshold_bytes = 0;
  EncodedValue ev = wrap_payload(s, records[1]);
  ASSERT_NE(ev.flags, kUnexpressibleFlags);
  std::string scratch;
  auto u = unwrap_value(ev.bytes, ev.flags, s.scheme, scratch);
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->compressor, CompressorId::zstd);  // zstd's flags: PHP-style readers see zstd
  EXPECT_EQ(u->payload, records[1]);
  EXPECT_TRUE(strategy_writes(s, *u));
  const std::string_view frame = std::string_view(ev.bytes).substr(4);  // after the length prefix
  EXPECT_EQ(ZSTD_getDictID_fromFrame(frame.data(), frame.size()), s.dictionary_id);
  // A plain string the strategy stores (as html) uses the strategy's dictionary too.
  Strategy as_html = s;
  as_html.rep = Representation::html;
  as_html.serializer = SerializerId::none;
  EncodedValue string_value = wrap_payload(as_html, records[2]);
  ASSERT_NE(string_value.flags, kUnexpressibleFlags);
  const std::string_view string_frame = std::string_view(string_value.bytes).substr(4);
  EXPECT_EQ(ZSTD_getDictID_fromFrame(string_frame.data(), string_frame.size()), s.dictionary_id);

  // A form without a dictionary cannot store what the strategy says: unstorable, never plain.
  auto igb = parse_strategy("struct:igbinary+zstd-dict", FlagScheme::php_memcached);
  ASSERT_TRUE(igb.ok());
  ASSERT_EQ(igb->dictionary_id, 0u) << "a test registered an every-form dictionary";
  EXPECT_EQ(wrap_payload(*igb, records[1]).flags, kUnexpressibleFlags);
  Status ready = zstd_dictionary_ready("struct:igbinary");
  ASSERT_FALSE(ready.ok());
  EXPECT_NE(ready.error().message.find("--zstd-dict struct:igbinary=FILE"), std::string::npos);
}

}  // namespace
}  // namespace hitcost
