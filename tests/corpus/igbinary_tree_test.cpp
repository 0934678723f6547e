// decode_igbinary_tree / encode_igbinary_tree against php-igbinary's igbinary_serialize():
// every array php-cli writes (tests/corpus/php_cases.cpp) reads into the same tree as its
// serialize() text does (two independent readers agreeing) and writes back to the same bytes,
// string table, integer widths and shared empty arrays included; bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "corpus/tree_codec.h"
#include "tests/corpus/php_cases.h"

namespace hitcost::corpus {
namespace {

using testing::cut_points;
using testing::kPhpCaseCount;
using testing::php_cases;
using testing::PhpCase;

std::string from_hex(std::string_view hex) {
  std::string out;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t k = 0; k + 1 < hex.size(); k += 2) out += static_cast<char>(nibble(hex[k]) * 16 + nibble(hex[k + 1]));
  return out;
}

size_t first_difference(const std::string& a, const std::string& b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
}

TEST(CorpusIgbinaryTree, ReencodesEveryPhpArrayByteForByte) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  size_t checked = 0, shared = 0;
  for (const PhpCase& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_GE(c.igb.size(), 5u);
    Result<Value> tree = decode_igbinary_tree(c.igb);
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    Result<Value> from_text = decode_php_tree(c.ser);
    ASSERT_TRUE(from_text.ok()) << from_text.error().message;
    EXPECT_TRUE(*tree == *from_text) << "igbinary and serialize() read differently";
    std::string again;
    ASSERT_TRUE(encode_igbinary_tree(*tree, again).ok());
    // A tree has no identity: the same non-empty array twice is written twice, as PHP
    // writes the copies unserialize() makes of it.
    const std::string& want = c.shares_arrays ? c.igb_fresh : c.igb;
    EXPECT_TRUE(again == want) << "first difference at byte " << first_difference(again, want) << " of " << want.size();
    if (c.shares_arrays) {
      EXPECT_NE(c.igb, c.igb_fresh);  // the reference path was exercised
      ++shared;
    } else {
      EXPECT_EQ(c.igb, c.igb_fresh);
    }
    ++checked;
  }
  EXPECT_EQ(checked, kPhpCaseCount);
  EXPECT_EQ(shared, 1u);
}

TEST(CorpusIgbinaryTree, DecodesToTheTreesPhpMeant) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  auto igb_of = [&](const char* name) -> std::string {
    for (const PhpCase& c : cases)
      if (c.name == name) return c.igb;
    return {};
  };
  const Value row = make_map({{make_key("id"), make_int(7)}, {make_key("name"), make_string("shared")}});
  const std::pair<const char*, Value> expected[] = {
      {"shared_rows", make_map({{make_key("a"), row}, {make_key("b"), row}, {make_key("c"), make_list({row})}})},
      {"empties",
       make_map({{make_key("a"), make_list({})},
                 {make_key("b"), make_map({{make_int_key(0), make_list({})}, {make_key("x"), make_list({})}})},
                 {make_key("c"), make_list({make_int(1), make_list({})})},
                 {make_key("d"), make_string("")}})},
      {"keys_as_values",
       make_map({{make_key("name"), make_string("id")},
                 {make_key("id"), make_string("name")},
                 {make_key("list"), make_list({make_string("name"), make_string("id"), make_string("name")})},
                 {make_key("sub"), make_map({{make_key("name"), make_string("name")},
                                             {make_key("id"), make_map({{make_key("id"), make_string("id")}})}})}})},
      {"scalar_int", make_int(42)},
      {"scalar_double", make_real(0.1)},
  };
  size_t checked = 0;
  for (const auto& [name, tree] : expected) {
    SCOPED_TRACE(name);
    Result<Value> got = decode_igbinary_tree(igb_of(name));
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(*got == tree);
    ++checked;
  }
  EXPECT_EQ(checked, 5u);

  Result<Value> bounds = decode_igbinary_tree(igb_of("int_bounds"));
  ASSERT_TRUE(bounds.ok()) << bounds.error().message;
  ASSERT_EQ(bounds->items.size(), 22u);
  const int64_t want[] = {INT64_MAX,    INT64_MIN,  0,          -1,          1,           255,         256,
                          -255,         -256,       -257,       65535,       65536,       -65535,      -65536,
                          -65537,       4294967295, 4294967296, -4294967295, -4294967296, -4294967297, INT64_MIN + 1,
                          INT64_MAX - 1};
  for (size_t k = 0; k < 22; ++k) EXPECT_EQ(bounds->items[k].i, want[k]) << k;

  Result<Value> repeated = decode_igbinary_tree(igb_of("repeated_strings"));
  ASSERT_TRUE(repeated.ok()) << repeated.error().message;
  ASSERT_EQ(repeated->kind, Value::Kind::map);
  ASSERT_EQ(repeated->fields.size(), 602u);
  EXPECT_EQ(repeated->fields[300].second.s, "k299");  // written as a 16-bit string id
  EXPECT_EQ(repeated->fields[601].second.s, std::string(70000, 'y'));
}

TEST(CorpusIgbinaryTree, WritesTheBytesIgbinaryWrites) {
  struct Case {
    Value tree;
    const char* hex;
  };
  const Case cases[] = {
      {make_int(0),
       "0000000206"
       "00"},
      {make_int(-1),
       "0000000207"
       "01"},
      {make_int(256),
       "0000000208"
       "0100"},
      {make_int(-65536),
       "000000020b"
       "00010000"},
      {make_int(4294967296),
       "0000000220"
       "0000000100000000"},
      {make_int(INT64_MIN),
       "0000000221"
       "8000000000000000"},
      {make_real(-0.0),
       "000000020c"
       "8000000000000000"},
      {make_string(""), "000000020d"},
      // Two empty arrays are PHP's one shared empty array: the second is a reference (01).
      {make_map({{make_key("a"), make_list({})}, {make_key("b"), make_list({})}}),
       "0000000214021101611400110162"
       "0101"},
      // Keys and values share one string table.
      {make_map({{make_key("a"), make_string("a")}, {make_key("b"), make_string("a")}}),
       "000000021402110161"
       "0e00"
       "110162"
       "0e00"},
  };
  size_t checked = 0;
  for (const Case& c : cases) {
    std::string out;
    ASSERT_TRUE(encode_igbinary_tree(c.tree, out).ok());
    EXPECT_EQ(out, from_hex(c.hex)) << c.hex;
    ++checked;
  }
  EXPECT_EQ(checked, 10u);
}

TEST(CorpusIgbinaryTree, EveryTruncationIsAParseError) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  size_t prefixes = 0, encodings = 0;
  for (const PhpCase& c : cases) {
    const std::string& bytes = c.igb;
    ++encodings;
    for (size_t n : cut_points(bytes.size())) {
      Result<Value> r = decode_igbinary_tree(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(r.ok()) << c.name << " cut at " << n;
      ASSERT_EQ(r.error().code, Errc::parse_error) << c.name << " cut at " << n;
      ++prefixes;
    }
  }
  EXPECT_EQ(encodings, kPhpCaseCount);
  std::printf("%zu truncations checked\n", prefixes);
  EXPECT_GE(prefixes, 10000u);
}

TEST(CorpusIgbinaryTree, RefusesObjectsReferencesAndMalformedBytes) {
  struct Bad {
    const char* hex;
    const char* reason;  // a part of the message
  };
  const Bad cases[] = {
      {"", "header"},
      {"000000", "header"},
      {"01020304", "header"},
      {"0000000100", "version 1 not supported"},
      // Real igbinary_serialize() output of objects (php 8.2, igbinary 3.2).
      {"000000021701531d0178", "PHP object (type 0x17)"},              // Serializable
      {"000000021708737464436c6173731400", "PHP object (type 0x17)"},  // stdClass
      {"00000002140206001701501401110161060106012201", "PHP object (type 0x17)"},
      {"000000022200", "PHP object (type 0x22)"},
      {"0000000227", "PHP enum (type 0x27)"},
      {"00000002140206002506010601250101", "PHP reference (type 0x25)"},  // [&$x, &$x]
      {"00000002ff", "unknown type byte 0xff"},
      {"0000000211056161", "string length 5 runs past the end"},
      {"0000000213ffffffff61", "string length 4294967295 runs past the end"},
      {"0000000216ffffffff", "array count 4294967295"},
      {"0000000208ff", "16-bit number runs past the end"},
      {"000000021402060100060100", "duplicate key 1"},
      {"00000002140211016b000e0000", "duplicate key \"k\""},
      {"000000021402110137000607"
       "00",
       "duplicate key 7"},  // "7" is the int key 7
      {"000000020000", "trailing"},
      {"000000020e00", "string id 0 not yet defined"},
      {"0000000214011101610f0001", "string id 1 not yet defined"},
      {"000000020105", "array reference to id 5 not yet defined"},
      {"00000002140106000100", "still being read"},  // an array inside itself
      {"00000002208000000000000000", "above INT64_MAX"},
      {"00000002218000000000000001", "below INT64_MIN"},
      {"00000002140100"
       "00",
       "array key of type 0x00"},
      {"000000021401"
       "0c3ff0000000000000"
       "00",
       "array key of type 0x0c"},
  };
  size_t checked = 0;
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.hex);
    Result<Value> r = decode_igbinary_tree(from_hex(b.hex));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::parse_error);
    EXPECT_NE(r.error().message.find(b.reason), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("at byte"), std::string::npos) << r.error().message;
    ++checked;
  }
  EXPECT_EQ(checked, 27u);
}

// Array references copy: a chain of arrays each holding 16 references to the previous one
// would be 16^k nodes from 66 bytes a level. The copies are bounded, not attempted.
TEST(CorpusIgbinaryTree, ArrayReferencesCannotExpandWithoutBound) {
  std::string bytes = from_hex(
      "00000002"
      "1408");  // a list of 8 levels, id 0
  bytes += from_hex(
      "0600"
      "1410");  // level 1 (id 1): 16 nulls
  for (int k = 0; k < 16; ++k) bytes += from_hex("06") + char(k) + from_hex("00");
  for (int level = 2; level <= 8; ++level) {  // level L (id L): 16 references to id L-1
    bytes += from_hex("06") + char(level - 1) + from_hex("1410");
    for (int k = 0; k < 16; ++k) bytes += from_hex("06") + char(k) + from_hex("01") + char(level - 1);
  }
  Result<Value> r = decode_igbinary_tree(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::too_large);
  EXPECT_NE(r.error().message.find("expand to more than"), std::string::npos) << r.error().message;

  // Two levels are fine: the list, level 1 (1 + 16 nulls), level 2 (1 + 16 copies of level 1).
  std::string small = from_hex(
      "00000002"
      "1402"
      "0600"
      "1410");
  for (int k = 0; k < 16; ++k) small += from_hex("06") + char(k) + from_hex("00");
  small += from_hex(
      "0601"
      "1410");
  for (int k = 0; k < 16; ++k) small += from_hex("06") + char(k) + from_hex("0101");
  Result<Value> ok = decode_igbinary_tree(small);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(tree_stats(*ok).nodes, 1u + 17u + 1u + 16u * 17u);
}

std::string nested_igbinary(size_t arrays) {
  std::string s = from_hex("00000002");
  for (size_t k = 0; k < arrays; ++k) s += from_hex("14010600");
  s += from_hex("00");
  return s;
}

Value nested_tree(size_t arrays) {
  Value v = make_null();
  for (size_t k = 0; k < arrays; ++k) v = make_list({std::move(v)});
  return v;
}

TEST(CorpusIgbinaryTree, NestingIsLimitedToMaxDepthArrays) {
  Result<Value> ok = decode_igbinary_tree(nested_igbinary(kMaxDepth));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(*ok == nested_tree(kMaxDepth));
  Result<Value> deep = decode_igbinary_tree(nested_igbinary(kMaxDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code, Errc::parse_error);
  EXPECT_NE(deep.error().message.find("nested deeper than 512"), std::string::npos);
  Result<Value> abyss = decode_igbinary_tree(nested_igbinary(200000));
  ASSERT_FALSE(abyss.ok());
  EXPECT_EQ(abyss.error().code, Errc::parse_error);

  std::string out;
  ASSERT_TRUE(encode_igbinary_tree(nested_tree(kMaxDepth), out).ok());
  EXPECT_EQ(out, nested_igbinary(kMaxDepth));
  out = "kept";
  Status refused = encode_igbinary_tree(nested_tree(kMaxDepth + 1), out);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
  EXPECT_EQ(out, "kept");  // nothing half-written
}

TEST(CorpusIgbinaryTree, MutatedBytesAreAnsweredNotCrashedOn) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  const uint8_t replacements[] = {0x00, 0x01, 0x03, 0x06, 0x0e, 0x10, 0x11, 0x13, 0x14, 0x16, 0x21, 0x25, 0x7f, 0xff};
  size_t tried = 0, accepted = 0;
  for (const PhpCase& c : cases) {
    if (c.igb.size() > 1024) continue;
    for (size_t at = 4; at < c.igb.size(); ++at) {
      for (uint8_t r : replacements) {
        std::string bytes = c.igb;
        if (static_cast<uint8_t>(bytes[at]) == r) continue;
        bytes[at] = static_cast<char>(r);
        Result<Value> tree = decode_igbinary_tree(bytes);
        ++tried;
        if (tree.ok()) {
          std::string out;
          EXPECT_TRUE(encode_igbinary_tree(*tree, out).ok());
          ++accepted;
        }
      }
    }
  }
  EXPECT_GE(tried, 3000u);
  EXPECT_LT(accepted, tried);
}

}  // namespace
}  // namespace hitcost::corpus
