// --redact: every string replaced byte class for byte class, deterministically from a keyed
// hash; numbers, bools and int keys kept; map keys stay distinct string keys; the redacted
// tree still encodes (and reads back) under the JSON and MessagePack tree codecs.
#include "corpus/redact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

constexpr uint64_t kSecret = 0x5eC2e7'0000'1234ull;

// Length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), 0 for an ill-formed byte.
size_t sequence_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return n;
}

// Checks that `red` is a class-preserving replacement of `orig`; returns the bytes checked.
size_t expect_same_classes(std::string_view orig, std::string_view red) {
  EXPECT_EQ(orig.size(), red.size()) << orig;
  if (orig.size() != red.size()) return 0;
  size_t checked = 0;
  for (size_t i = 0; i < orig.size();) {
    const auto o = static_cast<unsigned char>(orig[i]);
    const auto r = static_cast<unsigned char>(red[i]);
    if (o >= 'a' && o <= 'z') {
      EXPECT_TRUE(r >= 'a' && r <= 'z') << "byte " << i << " of " << orig;
    } else if (o >= 'A' && o <= 'Z') {
      EXPECT_TRUE(r >= 'A' && r <= 'Z') << "byte " << i << " of " << orig;
    } else if (o >= '0' && o <= '9') {
      EXPECT_TRUE(r >= '0' && r <= '9') << "byte " << i << " of " << orig;
    } else if (o < 0x80) {
      EXPECT_EQ(r, o) << "byte " << i << " of " << orig << ": punctuation, space and controls stay";
    } else if (const size_t n = sequence_length(orig, i); n != 0) {
      EXPECT_EQ(sequence_length(red, i), n) << "byte " << i << " of " << orig;
      checked += n;
      i += n;
      continue;
    } else {
      EXPECT_TRUE(r >= 0x80 && r <= 0xBF) << "byte " << i << ": an ill-formed byte stays ill-formed";
    }
    ++checked;
    ++i;
  }
  return checked;
}

// Walks two trees of the same shape: strings by class, everything else equal.
void expect_redacted(const Value& orig, const Value& red, size_t& bytes, size_t& kept) {
  ASSERT_EQ(orig.kind, red.kind);
  switch (orig.kind) {
    case Value::Kind::string: bytes += expect_same_classes(orig.s, red.s); break;
    case Value::Kind::list:
      ASSERT_EQ(orig.items.size(), red.items.size());
      for (size_t k = 0; k < orig.items.size(); ++k) expect_redacted(orig.items[k], red.items[k], bytes, kept);
      break;
    case Value::Kind::map:
      ASSERT_EQ(orig.fields.size(), red.fields.size());
      for (size_t k = 0; k < orig.fields.size(); ++k) {
        const MapKey& ok = orig.fields[k].first;
        const MapKey& rk = red.fields[k].first;
        ASSERT_EQ(ok.is_int, rk.is_int);
        if (ok.is_int) {
          EXPECT_EQ(ok.i, rk.i);
          ++kept;
        } else {
          bytes += expect_same_classes(ok.s, rk.s);
          EXPECT_FALSE(is_canonical_int(rk.s)) << rk.s;
        }
        expect_redacted(orig.fields[k].second, red.fields[k].second, bytes, kept);
      }
      break;
    default: EXPECT_TRUE(orig == red) << "numbers, bools and nulls stay"; ++kept;
  }
}

Value sample_tree() {
  auto s = [](const char* text) { return make_string(text); };
  return make_map({
      {make_key("user"), make_map({{make_key("name"), s("Ann Smith")},
                                   {make_key("email"), s("ann.smith+tag@example.com")},
                                   {make_key("id"), make_int(42)},
                                   {make_key("score"), make_real(-0.0)},
                                   {make_key("ratio"), make_real(0.1)},
                                   {make_key("active"), make_bool(true)},
                                   {make_key("none"), make_null()}})},
      {make_key("city"), s("Zürich — 東京 😀 Ωmega")},
      {make_key("café"), s("naïve")},
      {make_key("tags"), make_list({s("red"), s("Blue"), s("red"), s(""), s("42"), s("...")})},
      {make_key("controls"), make_string(std::string("a\0b\n\t\x7f", 6))},
      {make_int_key(7), s("seven")},
      {make_int_key(-3), s("minus three")},
      {make_key("07"), s("zero seven")},
      {make_key("-0"), s("minus zero")},
      {make_key("long"), make_string(std::string(70000, 'x') + "Tail123")},
  });
}

TEST(CorpusRedact, StringsKeepLengthAndClassPerByteOtherValuesStay) {
  const Value orig = sample_tree();
  const Value red = redact_value(orig, kSecret);
  size_t bytes = 0, kept = 0;
  expect_redacted(orig, red, bytes, kept);
  EXPECT_GT(bytes, 70'100u);
  EXPECT_EQ(kept, 7u);  // the 5 scalars in "user" and the 2 int keys
  EXPECT_FALSE(orig == red) << "strings were replaced";
  // The long string's letters actually changed (not all 'x' any more).
  const Value* long_value = nullptr;
  for (const auto& [k, v] : red.fields)
    if (!k.is_int && v.kind == Value::Kind::string && v.s.size() > 1000) long_value = &v;
  ASSERT_NE(long_value, nullptr);
  EXPECT_NE(long_value->s.find_first_not_of('x'), std::string::npos);
}

TEST(CorpusRedact, IllFormedUtf8StaysIllFormedAndWellFormedStaysWellFormed) {
  const std::string inputs[] = {"\xff\xfe",
                                "caf\xc3",
                                "\xc3\xa9\xff",
                                "\xe6\x97",
                                "\xed\xa0\x80",
                                "\xc0\xaf",
                                "ok \xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9"};
  size_t checked = 0;
  for (const std::string& in : inputs) {
    const Value red = redact_value(make_string(in), kSecret);
    ASSERT_EQ(red.kind, Value::Kind::string);
    checked += expect_same_classes(in, red.s) > 0;
    std::string json_in, json_red;
    const bool in_ok = encode_json_tree(make_string(in), json_in).ok();
    const bool red_ok = encode_json_tree(red, json_red).ok();
    EXPECT_EQ(in_ok, red_ok) << "JSON accepts the redacted string iff it accepts the original: " << in;
  }
  EXPECT_EQ(checked, std::size(inputs));
}

TEST(CorpusRedact, DeterministicPerSecretAndRepeatedStringsStayRepeated) {
  const Value orig = sample_tree();
  const Value a = redact_value(orig, kSecret);
  const Value b = redact_value(orig, kSecret);
  const Value other = redact_value(orig, kSecret + 1);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == other) << "another secret gives other strings";
  // "red" appears twice in tags: both replacements equal, and different from "Blue"'s.
  const Value* tags = nullptr;
  for (const auto& [k, v] : a.fields)
    if (v.kind == Value::Kind::list) tags = &v;
  ASSERT_NE(tags, nullptr);
  ASSERT_EQ(tags->items.size(), 6u);
  EXPECT_EQ(tags->items[0].s, tags->items[2].s);
  // The same string as a key and as a value gets the same replacement.
  const Value kv = redact_value(make_map({{make_key("token"), make_string("token")}}), kSecret);
  ASSERT_EQ(kv.kind, Value::Kind::map);
  EXPECT_EQ(kv.fields[0].first.s, kv.fields[0].second.s);
  // Per-string, different secrets differ for strings with letters (4 letters: 26^4 outcomes).
  size_t differing = 0;
  for (int k = 0; k < 100; ++k) {
    const Value s = make_string("word" + std::to_string(k));
    differing += !(redact_value(s, kSecret) == redact_value(s, kSecret ^ 0xFFFF));
  }
  EXPECT_EQ(differing, 100u);
}

TEST(CorpusRedact, DistinctKeysStayDistinctAndNeverBecomeIntKeys) {
  Fields fields;
  for (int k = 0; k < 1000; ++k) fields.emplace_back(make_key("k" + std::to_string(k)), make_int(k));
  // "0d": the only non-canonical replacements are "00".."09" themselves, all ten taken:
  // 64 random draws often cannot place the last ones, the in-order walk then does.
  for (int k = 0; k < 10; ++k) fields.emplace_back(make_key("0" + std::to_string(k)), make_int(k));
  fields.emplace_back(make_key("-0"), make_int(0));
  fields.emplace_back(make_key("-00"), make_int(0));
  // 19 digits beyond int64: string keys whose digits mostly redact into a canonical int64.
  for (int k = 0; k < 20; ++k)
    fields.emplace_back(make_key("9" + std::string(16, '9') + std::to_string(k + 10)), make_int(k));
  fields.emplace_back(make_int_key(5), make_int(5));
  fields.emplace_back(make_key("a"), make_int(1));
  fields.emplace_back(make_key("b"), make_int(2));
  const Value orig = make_map(std::move(fields));
  ASSERT_EQ(orig.kind, Value::Kind::map);
  const Value red = redact_value(orig, kSecret);
  ASSERT_EQ(red.kind, Value::Kind::map);
  ASSERT_EQ(red.fields.size(), orig.fields.size());
  std::set<std::string> seen;
  size_t string_keys = 0, bytes = 0, kept = 0;
  for (const auto& [k, v] : red.fields) {
    if (k.is_int) continue;
    EXPECT_FALSE(is_canonical_int(k.s)) << k.s;
    EXPECT_TRUE(seen.insert(k.s).second) << "duplicate redacted key " << k.s;
    ++string_keys;
  }
  EXPECT_EQ(string_keys, 1000u + 10 + 2 + 20 + 2);
  expect_redacted(orig, red, bytes, kept);
  EXPECT_EQ(kept, 1u + red.fields.size()) << "the int key and every int value";
  // The whole tree round-trips through msgpack (which would refuse duplicate keys).
  std::string mp;
  ASSERT_TRUE(encode_msgpack_tree(red, mp).ok());
  Result<Value> back = decode_msgpack_tree(mp);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == red);
}

// Words, not whole strings, are the unit: a word repeated anywhere gets one replacement (so
// compression still finds the repetition), and distinct ASCII words of one pattern never merge
// (so igbinary's string table and every size stay as they were).
TEST(CorpusRedact, WordsAreReplacedConsistentlyAndDistinctWordsStayDistinct) {
  const Value a = redact_value(make_string("lorem ipsum lorem, ipsum-lorem"), kSecret);
  ASSERT_EQ(a.s.size(), 30u);
  EXPECT_EQ(a.s.substr(0, 5), a.s.substr(12, 5));
  EXPECT_EQ(a.s.substr(6, 5), a.s.substr(19, 5));
  EXPECT_EQ(a.s.substr(0, 5), a.s.substr(25, 5));
  EXPECT_NE(a.s.substr(0, 5), "lorem");
  // The same word in another value: the same replacement.
  EXPECT_EQ(redact_value(make_string("ipsum"), kSecret).s, a.s.substr(6, 5));
  // Every 1-, 2- and 3-digit number, and every 2-letter word: a permutation of its pattern.
  size_t checked = 0;
  for (const auto& [first, count] : {std::pair{0, 10}, std::pair{10, 90}, std::pair{100, 900}}) {
    std::set<std::string> seen;
    for (int n = first; n < first + count; ++n) {
      const std::string out = redact_value(make_string("row " + std::to_string(n)), kSecret).s;
      ASSERT_EQ(out.size(), 4 + std::to_string(n).size());
      EXPECT_EQ(out.substr(0, 4), redact_value(make_string("row "), kSecret).s.substr(0, 4));
      seen.insert(out);
      ++checked;
    }
    EXPECT_EQ(seen.size(), size_t(count)) << "numbers of " << std::to_string(first).size() << " digits merged";
  }
  std::set<std::string> words;
  for (char x = 'a'; x <= 'z'; ++x)
    for (char y = 'a'; y <= 'z'; ++y) words.insert(redact_value(make_string(std::string{x, y}), kSecret).s);
  EXPECT_EQ(words.size(), 26u * 26u);
  EXPECT_EQ(checked, 1000u);
}

TEST(CorpusRedact, RedactedTreeEncodesAndReadsBackUnderEveryTreeCodec) {
  const Value red = redact_value(sample_tree(), kSecret);
  struct Codec {
    const char* name;
    Status (*encode)(const Value&, std::string&);
    Result<Value> (*decode)(std::string_view);
  };
  const Codec codecs[] = {{"json", encode_json_tree, decode_json_tree},
                          {"msgpack", encode_msgpack_tree, decode_msgpack_tree}};
  size_t checked = 0;
  for (const Codec& c : codecs) {
    std::string bytes;
    Status st = c.encode(red, bytes);
    ASSERT_TRUE(st.ok()) << c.name << ": " << st.error().message;
    Result<Value> back = c.decode(bytes);
    ASSERT_TRUE(back.ok()) << c.name << ": " << back.error().message;
    EXPECT_TRUE(*back == red) << c.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

TEST(CorpusRedact, MemcachedKeysBecomeKeyedHexHashes) {
  const std::string a = redact_key("user:42:profile", kSecret);
  ASSERT_EQ(a.size(), 18u);
  EXPECT_EQ(a.substr(0, 2), "r:");
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef", 2), std::string::npos) << a;
  EXPECT_EQ(a, redact_key("user:42:profile", kSecret));
  EXPECT_NE(a, redact_key("user:42:profile", kSecret + 1));
  EXPECT_NE(a, redact_key("user:43:profile", kSecret));
  std::set<std::string> seen;
  for (int k = 0; k < 10000; ++k) seen.insert(redact_key("page:" + std::to_string(k), kSecret));
  EXPECT_EQ(seen.size(), 10000u) << "no two keys share a hash";
  // Not the value redaction of the same text (another derived key).
  EXPECT_NE(redact_key("abcdefghijklmnopqr", kSecret), redact_value(make_string("abcdefghijklmnopqr"), kSecret).s);
}

}  // namespace
}  // namespace hitcost::corpus
