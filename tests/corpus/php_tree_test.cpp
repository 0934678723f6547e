// decode_php_tree / encode_php_tree against PHP's own serialize(): every array php-cli
// writes (tests/corpus/php_cases.cpp) reads into the tree PHP meant and writes back to the
// same bytes; malformed, truncated, too deep and unsupported input is refused, not crashed on.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
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

const PhpCase* find_case(const std::vector<PhpCase>& cases, const std::string& name) {
  for (const PhpCase& c : cases)
    if (c.name == name) return &c;
  return nullptr;
}

Value str(const char* s) { return make_string(s); }
MapKey key(const char* s) { return make_key(s); }

TEST(CorpusPhpTree, ReencodesEveryPhpArrayByteForByte) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  size_t checked = 0;
  for (const PhpCase& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.ser.empty());
    Result<Value> tree = decode_php_tree(c.ser);
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    std::string again = "prefix";  // the encoder appends
    ASSERT_TRUE(encode_php_tree(*tree, again).ok());
    ASSERT_EQ(again.substr(0, 6), "prefix");
    EXPECT_TRUE(again.substr(6) == c.ser)
        << "first difference at byte "
        << std::mismatch(c.ser.begin(), c.ser.end(), again.begin() + 6, again.end()).first - c.ser.begin();
    ++checked;
  }
  EXPECT_EQ(checked, kPhpCaseCount);
}

TEST(CorpusPhpTree, DecodesToTheTreesPhpMeant) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  struct Expected {
    const char* name;
    Value tree;
  };
  const std::vector<Expected> expected = {
      {"nested_map", make_map({{key("user"), make_map({{key("id"), make_int(42)},
                                                       {key("name"), str("Ann")},
                                                       {key("tags"), make_list({str("a"), str("b")})},
                                                       {key("address"), make_map({{key("city"), str("Z\xc3\xbcrich")},
                                                                                  {key("zip"), str("8001")}})}})},
                               {key("ok"), make_bool(true)},
                               {key("score"), make_real(9.5)}})},
      {"list_mixed", make_list({make_int(1), str("two"), make_real(3.5), make_null(), make_bool(false), make_bool(true),
                                make_int(-7)})},
      {"int_keys", make_map({{make_int_key(5), str("a")},
                             {make_int_key(-3), str("b")},
                             {make_int_key(0), str("c")},
                             {make_int_key(100), str("d")},
                             {make_int_key(INT64_MAX), str("max")},
                             {make_int_key(INT64_MIN), str("min")},
                             {make_int_key(1), str("e")}})},
      // PHP turned "7" and "-3" into ints when it built the array; "07", "1.5", "" and " 1" stay.
      {"numeric_string_keys", make_map({{make_int_key(7), str("x")},
                                        {MapKey{false, 0, "07"}, str("y")},
                                        {make_int_key(-3), str("z")},
                                        {MapKey{false, 0, "1.5"}, str("w")},
                                        {MapKey{false, 0, ""}, str("empty")},
                                        {MapKey{false, 0, " 1"}, str("sp")}})},
      {"empty", make_list({})},
      {"empties", make_map({{key("a"), make_list({})},
                            {key("b"), make_map({{make_int_key(0), make_list({})}, {key("x"), make_list({})}})},
                            {key("c"), make_list({make_int(1), make_list({})})},
                            {key("d"), str("")}})},
      {"binary_strings", make_list({make_string(std::string("a\0b", 3)), str("say \"hi\";"),
                                    make_string(std::string("\xff\xfe\x80\x00", 4)), str("s:3:\"x\";"), str("}"),
                                    str("\n\r\t"), make_string(std::string(1, '\0'))})},
      {"bools_nulls", make_map({{make_int_key(0), make_bool(true)},
                                {make_int_key(1), make_bool(false)},
                                {make_int_key(2), make_null()},
                                {key("k"), make_null()},
                                {key("f"), make_bool(false)}})},
      {"scalar_int", make_int(42)},
      {"scalar_string", str("top level")},
      {"scalar_null", make_null()},
      {"scalar_double", make_real(0.1)},
      {"unicode", make_map({{key("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), str("\xe3\x82\xad\xe3\x83\xbc")},
                            {key("emoji"), str("\xf0\x9f\x98\x80")},
                            {key("\xc3\xa9"), str("\xc3\xa9")},
                            {key("mix"), str("Gr\xc3\xbc\xc3\x9f"
                                             "e \xf0\x9f\x98\x80")}})},
  };
  size_t checked = 0;
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.name);
    const PhpCase* c = find_case(cases, e.name);
    ASSERT_NE(c, nullptr);
    Result<Value> tree = decode_php_tree(c->ser);
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    EXPECT_TRUE(*tree == e.tree);
    ++checked;
  }
  EXPECT_EQ(checked, 13u);

  // Doubles and integers at their edges, bit for bit.
  const PhpCase* floats = find_case(cases, "floats");
  ASSERT_NE(floats, nullptr);
  Result<Value> f = decode_php_tree(floats->ser);
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->kind, Value::Kind::list);
  ASSERT_EQ(f->items.size(), 29u);
  EXPECT_EQ(f->items[0].d, 0.1);
  EXPECT_EQ(f->items[1].d, 1e25);
  EXPECT_TRUE(std::signbit(f->items[2].d) && f->items[2].d == 0.0);
  EXPECT_EQ(f->items[3].kind, Value::Kind::real);  // 5.0 is written d:5; and stays a double
  EXPECT_EQ(f->items[3].d, 5.0);
  EXPECT_EQ(f->items[6].d, std::numeric_limits<double>::infinity());
  EXPECT_EQ(f->items[7].d, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::bit_cast<uint64_t>(f->items[8].d), 0x7ff8000000000000ull);
  EXPECT_EQ(f->items[17].d, 5e-324);
  EXPECT_EQ(f->items[18].d, std::numeric_limits<double>::max());
  const PhpCase* bounds = find_case(cases, "int_bounds");
  ASSERT_NE(bounds, nullptr);
  Result<Value> b = decode_php_tree(bounds->ser);
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(b->items.size(), 22u);
  EXPECT_EQ(b->items[0].i, INT64_MAX);
  EXPECT_EQ(b->items[1].i, INT64_MIN);
  EXPECT_EQ(b->items[19].i, -4294967297);
}

TEST(CorpusPhpTree, WritesDoublesAsPhpEightDoes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::pair<double, const char*> cases[] = {{1.0, "d:1;"},
                                                  {0.1, "d:0.1;"},
                                                  {1e25, "d:1.0E+25;"},
                                                  {-0.0, "d:-0;"},
                                                  {0.0, "d:0;"},
                                                  {inf, "d:INF;"},
                                                  {-inf, "d:-INF;"},
                                                  {nan, "d:NAN;"},
                                                  {-nan, "d:NAN;"},
                                                  {1.5e-7, "d:1.5E-7;"},
                                                  {1e16, "d:10000000000000000;"},
                                                  {1e17, "d:1.0E+17;"},
                                                  {123456789012345678.0, "d:1.2345678901234568E+17;"},
                                                  {1e-4, "d:0.0001;"},
                                                  {1e-5, "d:1.0E-5;"},
                                                  {-0.00012, "d:-0.00012;"},
                                                  {5e-324, "d:5.0E-324;"},
                                                  {123456.789, "d:123456.789;"},
                                                  {-2.5, "d:-2.5;"}};
  size_t checked = 0;
  for (const auto& [d, text] : cases) {
    std::string out;
    ASSERT_TRUE(encode_php_tree(make_real(d), out).ok());
    EXPECT_EQ(out, text);
    ++checked;
  }
  EXPECT_EQ(checked, 19u);
}

// fuzz_tree found this: igbinary (like msgpack) carries a NaN's payload, serialize() writes
// every NaN as NAN. PHP cannot tell NaNs apart, so the round trip through serialize is exact.
TEST(CorpusPhpTree, ANanPayloadFromIgbinarySurvivesSerializeAsNan) {
  // igbinary v2, double (0x0c), big-endian bits of a NaN with a payload
  const std::string igbinary("\x00\x00\x00\x02\x0c\xff\xff\xff\x50\x2c\x28\xf9\x91", 13);
  Result<Value> tree = decode_tree(SerializerId::igbinary, igbinary);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  ASSERT_EQ(tree->kind, Value::Kind::real);
  EXPECT_EQ(std::bit_cast<uint64_t>(tree->d), 0xffffff502c28f991ull);
  std::string php;
  ASSERT_TRUE(encode_tree(SerializerId::php, *tree, php).ok());
  EXPECT_EQ(php, "d:NAN;");
  Result<Value> back = decode_tree(SerializerId::php, php);
  ASSERT_TRUE(back.ok());
  EXPECT_NE(std::bit_cast<uint64_t>(back->d), 0xffffff502c28f991ull);
  EXPECT_EQ(*back, *tree);
}

// What unserialize() reads but serialize() never writes: read as PHP reads it; the round
// trip then gives what PHP's serialize(unserialize(x)) gives (checked with php 8.2).
TEST(CorpusPhpTree, ReadsOtherSpellingsAsUnserializeDoes) {
  const std::pair<const char*, const char*> cases[] = {
      {"i:+5;", "i:5;"},          {"i:007;", "i:7;"},
      {"i:-0;", "i:0;"},          {"d:.5;", "d:0.5;"},
      {"d:5.;", "d:5;"},          {"d:0.10000000000000001;", "d:0.1;"},  // PHP < 7.1 wrote 17 digits
      {"d:1e25;", "d:1.0E+25;"},  {"d:+1.5E-3;", "d:0.0015;"},
      {"d:-0.0;", "d:-0;"},       {"a:1:{s:1:\"5\";N;}", "a:1:{i:5;N;}"},
      {"s:0:\"\";", "s:0:\"\";"},
  };
  size_t checked = 0;
  for (const auto& [in, want] : cases) {
    SCOPED_TRACE(in);
    Result<Value> tree = decode_php_tree(in);
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    std::string out;
    ASSERT_TRUE(encode_php_tree(*tree, out).ok());
    EXPECT_EQ(out, want);
    ++checked;
  }
  EXPECT_EQ(checked, 11u);
}

TEST(CorpusPhpTree, EveryTruncationIsAParseError) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  size_t prefixes = 0, encodings = 0;
  for (const PhpCase& c : cases) {
    const std::string& bytes = c.ser;
    ++encodings;
    for (size_t n : cut_points(bytes.size())) {
      Result<Value> r = decode_php_tree(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(r.ok()) << c.name << " cut at " << n;
      ASSERT_EQ(r.error().code, Errc::parse_error) << c.name << " cut at " << n;
      ++prefixes;
    }
  }
  EXPECT_EQ(encodings, kPhpCaseCount);
  std::printf("%zu truncations checked\n", prefixes);
  EXPECT_GE(prefixes, 4000u);
}

TEST(CorpusPhpTree, RefusesObjectsReferencesAndMalformedText) {
  struct Bad {
    std::string in;
    const char* reason;  // a part of the message
  };
  const Bad cases[] = {
      {"O:8:\"stdClass\":0:{}", "PHP object (O:)"},
      {"C:11:\"ArrayObject\":21:{x:i:0;a:0:{};m:a:0:{}}", "PHP object (C:)"},
      {"a:1:{i:0;O:1:\"P\":1:{s:1:\"a\";i:1;}}", "PHP object (O:)"},
      {"E:11:\"Suit:Hearts\";", "PHP enum (E:)"},
      {"a:2:{i:0;a:0:{}i:1;R:2;}", "PHP reference (R:)"},
      {"a:2:{i:0;a:0:{}i:1;r:2;}", "PHP reference (r:)"},
      {"S:1:\"\\61\";", "escaped string"},
      {"a:2:{i:1;N;i:1;N;}", "duplicate key 1"},
      {"a:2:{s:1:\"7\";N;i:7;N;}", "duplicate key 7"},  // "7" is the int key 7
      {"a:2:{s:1:\"k\";N;s:1:\"k\";b:1;}", "duplicate key \"k\""},
      {"N;N;", "trailing"},
      {"a:0:{};", "trailing"},
      {"i:1; ", "trailing"},
      {"s:10:\"abc\";", "runs past the end"},
      {"s:99999999999999:\"abc\";", "runs past the end"},
      {"s:99999999999999999999999:\"abc\";", "too large"},
      {"s:3:\"abcd\";", "expected \"\";\""},
      {"s:-1:\"\";", "expected a decimal length"},
      {"a:1000000000:{}", "array count 1000000000"},
      {"a:2:{i:0;N;}", "array count 2"},
      {"a:1:{d:1;N;}", "array key must be"},
      {"a:1:{N;N;N;}", "array key must be"},
      {"a:1:{i:0;N;", "expected \"}\""},
      {"i:9223372036854775808;", "out of int64 range"},
      {"i:-9223372036854775809;", "out of int64 range"},
      {"i:;", "expected an integer"},
      {"i:1", "expected \";\""},
      {"d:1e999;", "double out of range"},
      {"d:abc;", "expected a double"},
      {"d:1e;", "exponent"},
      {"d:nan;", "expected a double"},
      {"b:2;", "expected 0 or 1"},
      {"x:1;", "unexpected byte 0x78"},
      {std::string(1, '\xff'), "unexpected byte 0xff"},
      {"", "unexpected end of input"},
  };
  size_t checked = 0;
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.in);
    Result<Value> r = decode_php_tree(b.in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::parse_error);
    EXPECT_NE(r.error().message.find(b.reason), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("at byte"), std::string::npos) << r.error().message;
    ++checked;
  }
  EXPECT_EQ(checked, 35u);
  // The edges themselves are fine.
  Result<Value> min = decode_php_tree("i:-9223372036854775808;");
  ASSERT_TRUE(min.ok());
  EXPECT_EQ(min->i, INT64_MIN);
}

std::string nested_php(size_t arrays) {
  std::string s;
  for (size_t k = 0; k < arrays; ++k) s += "a:1:{i:0;";
  s += "N;";
  s += std::string(arrays, '}');
  return s;
}

Value nested_tree(size_t arrays) {
  Value v = make_null();
  for (size_t k = 0; k < arrays; ++k) v = make_list({std::move(v)});
  return v;
}

TEST(CorpusPhpTree, NestingIsLimitedToMaxDepthArrays) {
  Result<Value> ok = decode_php_tree(nested_php(kMaxDepth));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(tree_stats(*ok).max_depth, kMaxDepth + 1);  // the null inside counts too
  Result<Value> deep = decode_php_tree(nested_php(kMaxDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code, Errc::parse_error);
  EXPECT_NE(deep.error().message.find("nested deeper than 512"), std::string::npos);
  // Far deeper input must not exhaust the stack either.
  Result<Value> abyss = decode_php_tree(nested_php(200000));
  ASSERT_FALSE(abyss.ok());
  EXPECT_EQ(abyss.error().code, Errc::parse_error);

  std::string out = "kept";
  ASSERT_TRUE(encode_php_tree(nested_tree(kMaxDepth), out).ok());
  EXPECT_EQ(out, "kept" + nested_php(kMaxDepth));
  out = "kept";
  Status refused = encode_php_tree(nested_tree(kMaxDepth + 1), out);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
  EXPECT_EQ(out, "kept");  // nothing half-written
}

// Every byte of small encodings replaced by bytes that matter to the grammar: whatever the
// decoder answers, it answers (no crash, no hang), and what it accepts it can write back.
TEST(CorpusPhpTree, MutatedBytesAreAnsweredNotCrashedOn) {
  std::string error;
  const std::vector<PhpCase>& cases = php_cases(&error);
  ASSERT_EQ(error, "");
  const char replacements[] = {'0', '9', ';', ':', '{', '}', '"', 'a', 'i', 's', 'N', '\0', '\xff'};
  size_t tried = 0, accepted = 0;
  for (const PhpCase& c : cases) {
    if (c.ser.size() > 1024) continue;
    for (size_t at = 0; at < c.ser.size(); ++at) {
      for (char r : replacements) {
        std::string bytes = c.ser;
        if (bytes[at] == r) continue;
        bytes[at] = r;
        Result<Value> tree = decode_php_tree(bytes);
        ++tried;
        if (tree.ok()) {
          std::string out;
          EXPECT_TRUE(encode_php_tree(*tree, out).ok());
          ++accepted;
        }
      }
    }
  }
  EXPECT_GE(tried, 5000u);
  EXPECT_LT(accepted, tried);
}

}  // namespace
}  // namespace hitcost::corpus
