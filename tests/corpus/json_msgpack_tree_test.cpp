// The JSON and MessagePack tree codecs against php-cli itself: PHP arrays of many shapes are
// written by json_encode (with JSON_PRESERVE_ZERO_FRACTION, so doubles stay doubles) and
// msgpack_pack, decoded here, compared with each other and with hand-built trees, and
// re-encoded byte for byte. Then malformed input: every truncation, and a list of bad bytes.
// JSON has two readers (simdjson, hitcost's own; corpus/tree_codec.h): each is held to the
// same trees and the same refusals.
// php-cli and php-msgpack are test dependencies: when missing, the generator fails (no skip).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "codecs/prng.h"
#include "corpus/tree_codec.h"
#include "tests/support/command.h"

namespace hitcost::corpus {
namespace {

namespace fs = std::filesystem;

// Writes DIR/NAME.json and DIR/NAME.mp per case and prints NAME per line.
constexpr const char* kGeneratorPhp = R"PHP(<?php
ini_set('serialize_precision', '-1');
$dir = $argv[1];
$cases = [];
$cases['nested'] = ['user' => ['id' => 42, 'name' => 'Ann', 'tags' => ['a', 'b'], 'active' => true,
                    'score' => 0.1, 'manager' => null], 'items' => [[1, 2], [3, [4, [5]]]]];
$cases['list_mixed'] = [1, 'two', 3.5, false, null, [], [[]]];
$cases['int_keys'] = [5 => 'five', 2 => 'two', -3 => 'minus', 0 => 'zero', PHP_INT_MAX => 'max', PHP_INT_MIN => 'min'];
$cases['not_a_list'] = [1 => 'a', 2 => 'b'];
$cases['numeric_string_keys'] = ['7' => 'int', '07' => 's1', '-0' => 's2', '1.5' => 's3', '' => 's4', ' 1' => 's5',
                                 '9223372036854775808' => 's6', '-3' => 'int2'];
$cases['floats'] = [0.1, 1e25, 1.0, -0.0, 0.0, 1.5e-7, 123456789012345678.0, 1e16, 1e17, 1.5e16, 1e-4, 1e-5,
                    0.00012, 5e-324, PHP_FLOAT_MAX, PHP_FLOAT_MIN, 0.5, -2.5, 100.0, 1e15, 1e21, 2.0 ** 53,
                    -1e-300, M_PI, 1/3, 1e100, 9007199254740993.0, 0.30000000000000004];
$cases['empty'] = [];
$cases['empties'] = ['a' => [], 'b' => [[], 'x' => []], 'c' => [1, []], 'd' => ''];
$cases['long_strings'] = ['long' => str_repeat('abcdefghij', 7000), 's31' => str_repeat('a', 31),
                          's32' => str_repeat('b', 32), 's255' => str_repeat('c', 255), 's256' => str_repeat('d', 256),
                          's65535' => str_repeat('e', 65535), 's65536' => str_repeat('f', 65536)];
$cases['unicode'] = ['日本語' => 'キー', 'emoji' => "\u{1F600}", 'é' => 'é', 'mix' => "Grüße \u{1D11E}",
                     'ключ' => 'значение', 'ls' => "\u{2028}\u{2029}", 'max' => "\u{10FFFF}", 'bom' => "\u{FEFF}"];
$cases['escapes'] = ['"', '\\', '/', "\x08\x0c\n\r\t", "\x00\x01\x1f\x7f", '</script>', "a'b&c<d>", '\u0041'];
$cases['int_bounds'] = [PHP_INT_MAX, PHP_INT_MIN, 0, -1, 127, 128, 255, 256, 65535, 65536, 4294967295,
                        4294967296, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649,
                        PHP_INT_MIN + 1, PHP_INT_MAX - 1];
$cases['bools_nulls'] = [true, false, null, 'k' => null, 'f' => false];
$cases['scalar_int'] = 42;
$cases['scalar_string'] = 'top level';
$cases['scalar_null'] = null;
$cases['scalar_double'] = 0.1;
$cases['scalar_true'] = true;
mt_srand(15);
$doubles = [];
for ($i = 0; $i < 2000; $i++) {
  $b = '';
  for ($k = 0; $k < 8; $k++) $b .= chr(mt_rand(0, 255));
  $d = unpack('E', $b)[1];
  $doubles[] = is_finite($d) ? $d : 0.25;
  $doubles[] = mt_rand(0, 1000000000) / (10 ** mt_rand(0, 12));
  $doubles[] = mt_rand() * (10.0 ** mt_rand(-30, 30));
}
$cases['random_doubles'] = $doubles;
$big_map = [];
for ($i = 0; $i < 300; $i++) $big_map["k$i"] = $i % 2 ? "v$i" : $i;
for ($i = 299; $i >= 0; $i--) $big_map[$i * 3 - 400] = $i;
$cases['big_map'] = $big_map;
$huge_map = [];
for ($i = 0; $i < 70000; $i++) $huge_map["key$i"] = $i;
$cases['huge_map'] = $huge_map;
$big_list = [];
for ($i = 0; $i < 70000; $i++) $big_list[] = $i * 37 - 1000000;
$cases['big_list'] = $big_list;
$rows = [];
for ($i = 0; $i < 20; $i++)
  $rows[] = ['id' => $i, 'title' => "Item $i", 'price' => $i / 4, 'tags' => $i % 3 ? ['sale' . ($i % 2)] : []];
$cases['rows16'] = $rows;
$deep = 'bottom';
for ($i = 0; $i < 512; $i++) $deep = [$deep];
$cases['deep_512'] = $deep;
foreach ($cases as $name => $v) {
  $json = json_encode($v, JSON_PRESERVE_ZERO_FRACTION, 1024);
  if ($json === false) { fwrite(STDERR, "$name: " . json_last_error_msg() . "\n"); exit(1); }
  file_put_contents("$dir/$name.json", $json);
  file_put_contents("$dir/$name.mp", msgpack_pack($v));
  echo $name, "\n";
}
)PHP";
constexpr size_t kCaseCount = 24;

struct PhpCase {
  std::string name, json, msgpack;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<PhpCase> generate(std::string* error) {
  char dir_template[] = "/tmp/hitcost_json_msgpack_XXXXXX";
  if (!mkdtemp(dir_template)) {
    *error = "mkdtemp failed";
    return {};
  }
  const fs::path dir = dir_template;
  std::ofstream(dir / "gen.php") << kGeneratorPhp;
  const auto run = hitcost::testing::run_command({"php", (dir / "gen.php").string(), dir.string()});
  std::vector<PhpCase> cases;
  if (run.exit_code != 0) {
    *error = "php generator failed (exit " + std::to_string(run.exit_code) + "): " + run.err;
  } else {
    std::istringstream lines(run.out);
    std::string name;
    while (lines >> name) cases.push_back({name, read_file(dir / (name + ".json")), read_file(dir / (name + ".mp"))});
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return cases;
}

const std::vector<PhpCase>& php_cases() {
  static std::string error;
  static const std::vector<PhpCase> cases = generate(&error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(cases.size(), kCaseCount) << "the generator writes this many cases";
  return cases;
}

const PhpCase* find_case(const std::string& name) {
  for (const PhpCase& c : php_cases())
    if (c.name == name) return &c;
  ADD_FAILURE() << "no case " << name;
  return nullptr;
}

std::string hex(std::string_view s, size_t limit = 64) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t k = 0; k < s.size() && k < limit; ++k) {
    out += kHex[static_cast<unsigned char>(s[k]) >> 4];
    out += kHex[static_cast<unsigned char>(s[k]) & 15];
  }
  if (s.size() > limit) out += "...";
  return out;
}

// Where two byte strings first differ, for a failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return "first difference at byte " + std::to_string(k) + " of " + std::to_string(a.size()) + "/" +
         std::to_string(b.size()) + ": ..." + hex(std::string_view(a).substr(k, 16)) + " vs ..." +
         hex(std::string_view(b).substr(k, 16)) + " (" + std::string(a.substr(k, 24)) + " vs " +
         std::string(b.substr(k, 24)) + ")";
}

Value str(const char* s) { return make_string(s); }
MapKey skey(const char* s) { return MapKey{false, 0, s}; }

TEST(CorpusJsonMsgpackTree, PhpOutputDecodesToTheSameTreeAndReencodesByteForByte) {
  size_t checked = 0;
  for (const PhpCase& c : php_cases()) {
    SCOPED_TRACE(c.name);
    Result<Value> from_json = decode_json_tree(c.json);
    Result<Value> from_msgpack = decode_msgpack_tree(c.msgpack);
    ASSERT_TRUE(from_json.ok()) << from_json.error().message;
    ASSERT_TRUE(from_msgpack.ok()) << from_msgpack.error().message;
    EXPECT_TRUE(*from_json == *from_msgpack) << "json and msgpack trees differ";
    // Both JSON readers, each on its own: everything PHP writes is simdjson's to read (the
    // default decoder never falls back on it), and to the same tree as hitcost's reader.
    // (A literal as the whole document is the reader's: json_tree_simdjson.cpp says why.)
    Result<Value> by_simdjson = decode_json_tree_simdjson(c.json);
    Result<Value> by_reader = decode_json_tree_reader(c.json);
    ASSERT_TRUE(by_reader.ok()) << by_reader.error().message;
    if (c.name == "scalar_true" || c.name == "scalar_null") {
      EXPECT_FALSE(by_simdjson.ok());
    } else {
      ASSERT_TRUE(by_simdjson.ok()) << by_simdjson.error().message;
      EXPECT_TRUE(*by_simdjson == *from_msgpack) << "simdjson's tree differs";
    }
    EXPECT_TRUE(*by_reader == *from_msgpack) << "the reader's tree differs";

    std::string json = "prefix:";  // encoders append: what was there stays
    ASSERT_TRUE(encode_json_tree(*from_json, json).ok());
    EXPECT_EQ(json.substr(0, 7), "prefix:");
    json.erase(0, 7);
    EXPECT_TRUE(json == c.json) << first_difference(json, c.json);

    std::string msgpack;
    ASSERT_TRUE(encode_msgpack_tree(*from_msgpack, msgpack).ok());
    EXPECT_TRUE(msgpack == c.msgpack) << first_difference(msgpack, c.msgpack);
    // Across: the tree read from JSON writes PHP's msgpack, and the other way round.
    std::string json_to_msgpack, msgpack_to_json;
    ASSERT_TRUE(encode_msgpack_tree(*from_json, json_to_msgpack).ok());
    ASSERT_TRUE(encode_json_tree(*from_msgpack, msgpack_to_json).ok());
    EXPECT_TRUE(json_to_msgpack == c.msgpack);
    EXPECT_TRUE(msgpack_to_json == c.json);
    ++checked;
  }
  EXPECT_EQ(checked, kCaseCount);
}

TEST(CorpusJsonMsgpackTree, DecodedTreesMatchHandBuiltOnes) {
  std::map<std::string, Value> expected;
  expected["list_mixed"] = make_list({make_int(1), str("two"), make_real(3.5), make_bool(false), make_null(),
                                      make_list({}), make_list({make_list({})})});
  expected["int_keys"] = make_map({{make_int_key(5), str("five")},
                                   {make_int_key(2), str("two")},
                                   {make_int_key(-3), str("minus")},
                                   {make_int_key(0), str("zero")},
                                   {make_int_key(INT64_MAX), str("max")},
                                   {make_int_key(INT64_MIN), str("min")}});
  expected["not_a_list"] = make_map({{make_int_key(1), str("a")}, {make_int_key(2), str("b")}});
  expected["numeric_string_keys"] = make_map({{make_int_key(7), str("int")},
                                              {skey("07"), str("s1")},
                                              {skey("-0"), str("s2")},
                                              {skey("1.5"), str("s3")},
                                              {skey(""), str("s4")},
                                              {skey(" 1"), str("s5")},
                                              {skey("9223372036854775808"), str("s6")},
                                              {make_int_key(-3), str("int2")}});
  expected["escapes"] =
      make_list({str("\""), str("\\"), str("/"), str("\b\f\n\r\t"), make_string(std::string("\x00\x01\x1f\x7f", 4)),
                 str("</script>"), str("a'b&c<d>"), str("\\u0041")});
  expected["unicode"] = make_map({{skey("日本語"), str("キー")},
                                  {skey("emoji"), str("\xF0\x9F\x98\x80")},
                                  {skey("é"), str("é")},
                                  {skey("mix"), str("Grüße \xF0\x9D\x84\x9E")},
                                  {skey("ключ"), str("значение")},
                                  {skey("ls"), str("\xE2\x80\xA8\xE2\x80\xA9")},
                                  {skey("max"), str("\xF4\x8F\xBF\xBF")},
                                  {skey("bom"), str("\xEF\xBB\xBF")}});
  expected["bools_nulls"] = make_map({{make_int_key(0), make_bool(true)},
                                      {make_int_key(1), make_bool(false)},
                                      {make_int_key(2), make_null()},
                                      {skey("k"), make_null()},
                                      {skey("f"), make_bool(false)}});
  expected["empty"] = make_list({});
  expected["scalar_double"] = make_real(0.1);
  size_t checked = 0;
  for (const auto& [name, tree] : expected) {
    SCOPED_TRACE(name);
    const PhpCase* c = find_case(name);
    ASSERT_NE(c, nullptr);
    Result<Value> j = decode_json_tree(c->json);
    Result<Value> m = decode_msgpack_tree(c->msgpack);
    ASSERT_TRUE(j.ok()) << j.error().message;
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(*j == tree);
    EXPECT_TRUE(*m == tree);
    ++checked;
  }
  EXPECT_EQ(checked, 9u);

  // Doubles, bit for bit: -0.0 stays negative, 1.0 stays a double, 5e-324 survives.
  const PhpCase* floats = find_case("floats");
  ASSERT_NE(floats, nullptr);
  Result<Value> f = decode_json_tree(floats->json);
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->kind, Value::Kind::list);
  const double want[] = {0.1,
                         1e25,
                         1.0,
                         -0.0,
                         0.0,
                         1.5e-7,
                         123456789012345678.0,
                         1e16,
                         1e17,
                         1.5e16,
                         1e-4,
                         1e-5,
                         0.00012,
                         5e-324,
                         std::numeric_limits<double>::max(),
                         std::numeric_limits<double>::min()};
  size_t doubles = 0;
  for (size_t k = 0; k < std::size(want); ++k) {
    EXPECT_TRUE(f->items.at(k) == make_real(want[k])) << "item " << k;
    ++doubles;
  }
  EXPECT_EQ(doubles, 16u);
  EXPECT_TRUE(std::signbit(f->items[3].d));
}

TEST(CorpusJsonMsgpackTree, EveryTruncationIsAParseErrorNotACrash) {
  size_t prefixes = 0;
  for (const PhpCase& c : php_cases()) {
    SCOPED_TRACE(c.name);
    // A prefix of a JSON scalar can be a whole one ("42" -> "4"); containers cannot.
    const bool json_prefixes_invalid = c.name.rfind("scalar_", 0) != 0;
    for (const auto& [bytes, is_json] : {std::pair{&c.json, true}, std::pair{&c.msgpack, false}}) {
      if (is_json && !json_prefixes_invalid) continue;
      // Every offset for small values; for large ones ~100 offsets plus the last 64 bytes
      // (each prefix is parsed from the start: every offset of 1 MB would take minutes).
      const size_t n = bytes->size();
      const size_t stride = n <= 8192 ? 1 : std::max<size_t>(1021, n / 100);
      for (size_t len = 0; len < n; len += (n - len <= 64 ? 1 : stride)) {
        const std::string_view prefix(bytes->data(), len);
        Result<Value> r = is_json ? decode_json_tree(prefix) : decode_msgpack_tree(prefix);
        ASSERT_FALSE(r.ok()) << (is_json ? "json" : "msgpack") << " prefix of " << len << " bytes";
        if (is_json) {
          ASSERT_FALSE(decode_json_tree_simdjson(prefix).ok()) << "simdjson, prefix of " << len << " bytes";
        }
        EXPECT_EQ(r.error().code, Errc::parse_error);
        ++prefixes;
      }
    }
  }
  EXPECT_GT(prefixes, 15'000u);
}

struct BadInput {
  const char* why;
  std::string bytes;
};

TEST(CorpusJsonMsgpackTree, MalformedJsonIsAParseErrorWithAnOffset) {
  const BadInput bad[] = {
      {"empty", ""},
      {"only whitespace", "  \n"},
      {"trailing comma in array", "[1,]"},
      {"trailing comma in object", "{\"a\":1,}"},
      {"leading zero", "[01]"},
      {"dot without digits", "[1.]"},
      {"no integer part", "[.5]"},
      {"empty exponent", "[1e]"},
      {"lone minus", "[-]"},
      {"plus sign", "[+1]"},
      {"NaN literal", "[NaN]"},
      {"Infinity literal", "[Infinity]"},
      {"bad escape", "[\"\\x\"]"},
      {"bad hex", "[\"\\u12G4\"]"},
      {"truncated \\u", "[\"\\u12\"]"},
      {"lone high surrogate", "[\"\\ud800\"]"},
      {"lone low surrogate", "[\"\\udc00\"]"},
      {"high surrogate then non-low", "[\"\\ud800\\u0041\"]"},
      {"raw newline in string", "[\"a\nb\"]"},
      {"raw tab in string", "[\"a\tb\"]"},
      {"invalid UTF-8 byte", "[\"\xff\"]"},
      {"overlong UTF-8", "[\"\xc0\xaf\"]"},
      {"UTF-8 surrogate", "[\"\xed\xa0\x80\"]"},
      {"UTF-8 above U+10FFFF", "[\"\xf4\x90\x80\x80\"]"},
      {"truncated UTF-8", "[\"\xe6\x97\"]"},
      {"duplicate key", "{\"a\":1,\"a\":2}"},
      {"duplicate int key", "{\"7\":1,\"7\":2}"},
      {"duplicate key among many",
       "{\"a0\":0,\"a1\":1,\"a2\":2,\"a3\":3,\"a4\":4,\"a5\":5,\"a6\":6,\"a7\":7,"
       "\"a8\":8,\"a9\":9,\"b0\":0,\"b1\":1,\"b2\":2,\"b3\":3,\"b4\":4,\"b5\":5,"
       "\"b6\":6,\"b7\":7,\"a3\":8}"},
      {"trailing bytes", "[1] x"},
      {"two documents", "[1][2]"},
      {"a scalar, then bytes", "1 x"},
      {"two strings", "\"a\" \"b\""},
      {"two literals", "true false"},
      {"a literal and a comma", "null,"},
      {"an object, then bytes", "{}x"},
      {"a bracket too many", "[]]"},
      {"a brace too many", "{\"a\":1}}"},
      {"a NUL after the value", std::string("[1]\0", 4)},
      {"a raw DEL-free control in a key", "{\"a\x01\":1}"},
      {"a number glued to a literal", "[1true]"},
      {"bad literal", "nul"},
      {"bad literal in array", "[tru]"},
      {"a literal and a bang", "null!"},  // simdjson 3.0.1 alone took it (found by fuzz_tree)
      {"true and a bang", "true!"},
      {"non-string key", "{1:2}"},
      {"missing colon", "{\"a\" 1}"},
      {"missing comma", "[1 2]"},
      {"unterminated string", "\"abc"},
      {"unterminated array", "[1,2"},
      {"single quotes", "['a']"},
      {"comment", "[1]//"},
      {"nesting 513 deep", std::string(513, '[') + std::string(513, ']')},
      {"object nesting 513 deep",
       [] {
         std::string s;
         for (int k = 0; k < 513; ++k) s += "{\"a\":";
         return s + "1" + std::string(513, '}');
       }()},
  };
  size_t checked = 0;
  for (const BadInput& b : bad) {
    // simdjson alone refuses it too: the default decoder accepts only what both would.
    Result<Value> fast = decode_json_tree_simdjson(b.bytes);
    ASSERT_FALSE(fast.ok()) << b.why << ": simdjson accepted it";
    EXPECT_EQ(fast.error().code, Errc::parse_error) << b.why;
    // The default decoder words the refusal as the reader does, with its offset.
    for (auto* decode : {decode_json_tree, decode_json_tree_reader}) {
      Result<Value> r = decode(b.bytes);
      ASSERT_FALSE(r.ok()) << b.why;
      EXPECT_EQ(r.error().code, Errc::parse_error) << b.why;
      EXPECT_NE(r.error().message.find(" at byte "), std::string::npos) << b.why << ": " << r.error().message;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * std::size(bad));
  EXPECT_EQ(checked, 106u);
  // The deepest accepted: 512 arrays, as PHP's json_decode default depth.
  EXPECT_TRUE(decode_json_tree(std::string(512, '[') + std::string(512, ']')).ok());
}

// The two JSON readers on PHP's own JSON, mutated: a byte changed, a run cut out or doubled,
// a JSON token spliced in. Whatever simdjson accepts the reader must accept as the same tree
// (the default decoder answers with simdjson's tree and falls back only on its refusals).
TEST(CorpusJsonMsgpackTree, SimdjsonAcceptsOnlyWhatTheReaderAcceptsAndReadsTheSameTree) {
  const char* tokens[] = {"\"",
                          "\\",
                          "\\u",
                          "\\ud800",
                          "{",
                          "}",
                          "[",
                          "]",
                          ",",
                          ":",
                          "-",
                          "0",
                          "1e400",
                          ".5",
                          "1E-",
                          "true",
                          "nul",
                          " ",
                          "\x01",
                          "\xff",
                          "\xc3\xa9",
                          "\xed\xa0\x80",
                          "9223372036854775808"};
  SplitMix64 rng(2026);
  size_t checked = 0, both_accept = 0, simdjson_accepts = 0;
  for (const PhpCase& c : php_cases()) {
    if (c.json.size() > 4096) continue;  // the small cases: many mutations each
    for (int m = 0; m < 600; ++m) {
      std::string s = c.json;
      const size_t at = s.empty() ? 0 : rng.below(s.size());
      switch (rng.below(4)) {
        case 0:
          if (!s.empty()) s[at] = static_cast<char>(rng.below(256));
          break;
        case 1: s.erase(at, rng.below(8) + 1); break;
        case 2: s.insert(at, s.substr(at, rng.below(8) + 1)); break;
        default: s.insert(at, tokens[rng.below(std::size(tokens))]); break;
      }
      Result<Value> fast = decode_json_tree_simdjson(s);
      Result<Value> reader = decode_json_tree_reader(s);
      if (fast.ok()) {
        ++simdjson_accepts;
        ASSERT_TRUE(reader.ok()) << "simdjson accepted what the reader refuses (" << reader.error().message
                                 << "): " << s;
        ASSERT_TRUE(*fast == *reader) << "different trees: " << s;
      }
      both_accept += fast.ok() && reader.ok();
      ++checked;
    }
  }
  EXPECT_GE(checked, 10'000u);
  EXPECT_GT(simdjson_accepts, 1'000u);  // the mutations leave many documents valid: the trees were compared
  EXPECT_EQ(both_accept, simdjson_accepts);
}

TEST(CorpusJsonMsgpackTree, JsonNumbersAndEscapesReadAsPhpReadsThem) {
  struct Case {
    const char* json;
    Value want;
  };
  const Case cases[] = {
      {"9223372036854775807", make_int(INT64_MAX)},
      {"-9223372036854775808", make_int(INT64_MIN)},
      {"9223372036854775808", make_real(9223372036854775808.0)},  // beyond int64: a double, as PHP
      {"-9223372036854775809", make_real(-9223372036854775808.0)},
      {"-31333333333333333333333", make_real(-31333333333333333333333.0)},  // found by fuzz_tree
      {"[-31333333333333333333333]", make_list({make_real(-31333333333333333333333.0)})},
      {"-0", make_int(0)},
      {"-0.0", make_real(-0.0)},
      {"1E2", make_real(100.0)},
      {"1e-2", make_real(0.01)},
      {"2.5e+3", make_real(2500.0)},
      {"1e400", make_real(std::numeric_limits<double>::infinity())},  // PHP: INF
      {"-1e400", make_real(-std::numeric_limits<double>::infinity())},
      {"1e-400", make_real(0.0)},  // PHP: 0.0
      {"-1e-400", make_real(-0.0)},
      {"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "0000000000000000000000000000000000000000000001",
       make_real(0.0)},
      {"\"\\u00e9\\u00E9\\/\\ud834\\udd1e\\u0000\"", make_string(std::string("éé/\xF0\x9D\x84\x9E\0", 10))},
      {" \t\r\n[ 1 , { \"a\" : [ ] } ] \n", make_list({make_int(1), make_map({{skey("a"), make_list({})}})})},
      {"{}", make_list({})},  // the empty array, as PHP's json_decode('{}', true)
      {"{\"1\":\"a\",\"0\":\"b\"}", make_map({{make_int_key(1), str("a")}, {make_int_key(0), str("b")}})},
      {"{\"0\":\"a\",\"1\":\"b\"}", make_list({str("a"), str("b")})},
  };
  size_t checked = 0;
  std::vector<std::string> left_to_the_reader;
  for (const Case& c : cases) {
    for (auto* decode : {decode_json_tree, decode_json_tree_reader}) {
      Result<Value> r = decode(c.json);
      ASSERT_TRUE(r.ok()) << c.json << ": " << r.error().message;
      EXPECT_TRUE(*r == c.want) << c.json;
      ++checked;
    }
    // simdjson alone reads the same tree (its numbers by the reader's rule: 3.0.1's own misreads
    // some 20-digit ones).
    if (Result<Value> fast = decode_json_tree_simdjson(c.json); fast.ok())
      EXPECT_TRUE(*fast == c.want) << c.json;
    else
      left_to_the_reader.push_back(c.json);
  }
  EXPECT_EQ(checked, 42u);
  EXPECT_TRUE(left_to_the_reader.empty()) << left_to_the_reader.size();  // simdjson reads every number
}

TEST(CorpusJsonMsgpackTree, JsonEncoderRefusesWhatPhpRefusesAndLeavesOutUntouched) {
  const Value refused[] = {
      make_string("\xff"),
      make_list({str("ok"), make_string("caf\xc3")}),
      make_map({{skey("bad\xed\xa0\x80key"), make_int(1)}}),
      make_real(std::nan("")),
      make_real(std::numeric_limits<double>::infinity()),
      make_list({make_real(-std::numeric_limits<double>::infinity())}),
  };
  size_t checked = 0;
  for (const Value& v : refused) {
    std::string out = "kept";
    Status st = encode_json_tree(v, out);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, Errc::invalid_argument);
    EXPECT_FALSE(st.error().message.empty());
    EXPECT_EQ(out, "kept");
    ++checked;
  }
  EXPECT_EQ(checked, 6u);
  // Non-finite doubles and any bytes are fine in msgpack.
  std::string mp;
  EXPECT_TRUE(encode_msgpack_tree(make_list({make_real(std::nan("")), make_string("\xff")}), mp).ok());
}

TEST(CorpusJsonMsgpackTree, MalformedMsgpackIsAParseErrorAndHugeCountsFailFast) {
  using std::string;
  const BadInput bad[] = {
      {"empty", ""},
      {"array32 of 2^32-1 with 3 bytes left", string("\xdd\xff\xff\xff\xff\x01\x02\x03", 8)},
      {"map32 of 2^32-1", string("\xdf\xff\xff\xff\xff\x01\x02\x03", 8)},
      {"array16 count beyond input", string("\xdc\x00\x05\x01\x02", 5)},
      {"map16 count beyond input", string("\xde\x00\x02\x01\x02\x03", 6)},
      {"str32 length 2^32-1", string("\xdb\xff\xff\xff\xff"
                                     "abc",
                                     8)},
      {"bin32 length 2^32-1", string("\xc6\xff\xff\xff\xff"
                                     "abc",
                                     8)},
      {"str8 beyond input", string("\xd9\x05"
                                   "abc",
                                   5)},
      {"fixstr beyond input", string("\xa5"
                                     "abc",
                                     4)},
      {"truncated uint64", string("\xcf\x00\x01", 3)},
      {"truncated float64", string("\xcb\x3f\xf0", 3)},
      {"fixext 1", string("\xd4\x01\x00", 3)},
      {"fixext 16", string("\xd8\x01") + string(16, 'x')},
      {"ext 8", string("\xc7\x01\x05\x00", 4)},
      {"ext 32", string("\xc9\x00\x00\x00\x01\x05\x00", 7)},
      {"never used 0xc1", string("\xc1", 1)},
      {"trailing bytes", string("\xc0\xc0", 2)},
      {"trailing bytes after array", string("\x91\x01\x02", 3)},
      {"nil key", string("\x81\xc0\x01", 3)},
      {"float key", string("\x81\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00\x01", 11)},
      {"array key", string("\x81\x90\x01", 3)},
      {"bool key", string("\x81\xc3\x01", 3)},
      {"uint64 key above INT64_MAX", string("\x81\xcf\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11)},
      {"duplicate int key", string("\x82\x01\x01\x01\x02", 5)},
      {"int key and its string", string("\x82\x07\x01\xa1"
                                        "7\x02",
                                        6)},
      {"duplicate string key", string("\x82\xa1"
                                      "a\x01\xa1"
                                      "a\x02",
                                      7)},
      {"nesting 513 deep", string(512, '\x91') + string("\x90", 1)},
      {"map nesting 513 deep",
       [] {
         string s;
         for (int k = 0; k < 513; ++k)
           s += string(
               "\x81\xa1"
               "a",
               3);
         return s + string("\xc0", 1);
       }()},
  };
  size_t checked = 0;
  for (const BadInput& b : bad) {
    Result<Value> r = decode_msgpack_tree(b.bytes);
    ASSERT_FALSE(r.ok()) << b.why;
    EXPECT_EQ(r.error().code, Errc::parse_error) << b.why;
    EXPECT_NE(r.error().message.find(" at byte "), std::string::npos) << b.why << ": " << r.error().message;
    ++checked;
  }
  EXPECT_EQ(checked, std::size(bad));
  EXPECT_EQ(checked, 28u);
  EXPECT_TRUE(decode_msgpack_tree(string(511, '\x91') + string("\x90", 1)).ok()) << "512 deep is accepted";
}

TEST(CorpusJsonMsgpackTree, MsgpackTypesPhpDoesNotWriteStillRead) {
  using std::string;
  struct Case {
    const char* what;
    string bytes;
    Value want;
  };
  const Case cases[] = {
      {"float32 widened exactly", string("\xca\x3f\xc0\x00\x00", 5), make_real(1.5)},
      {"float32 0.1", string("\xca\x3d\xcc\xcc\xcd", 5), make_real(double(0.1f))},
      {"uint64 above INT64_MAX is a double", string("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", 9),
       make_real(18446744073709551615.0)},
      {"bin8 is a string", string("\xc4\x03\x00\xff\x01", 5), make_string(string("\x00\xff\x01", 3))},
      {"bin16 is a string",
       string("\xc5\x00\x02"
              "ab",
              5),
       str("ab")},
      {"int8 -1 (not fixint)", string("\xd0\xff", 2), make_int(-1)},
      {"uint16 small", string("\xcd\x00\x05", 3), make_int(5)},
      {"int64 min", string("\xd3\x80\x00\x00\x00\x00\x00\x00\x00", 9), make_int(INT64_MIN)},
      {"map with keys 0,1 is a list",
       string("\x82\x00\xa1"
              "a\x01\xa1"
              "b",
              7),
       make_list({str("a"), str("b")})},
      {"string key \"7\" is int key 7",
       string("\x82\xa1"
              "7\xc0\xa1"
              "x\xc0",
              7),
       make_map({{make_int_key(7), make_null()}, {skey("x"), make_null()}})},
      {"bin key is a string key",
       string("\x81\xc4\x01"
              "k\x05",
              5),
       make_map({{skey("k"), make_int(5)}})},
      {"array16 with 2 items", string("\xdc\x00\x02\xc2\xc3", 5), make_list({make_bool(false), make_bool(true)})},
  };
  size_t checked = 0;
  for (const Case& c : cases) {
    Result<Value> r = decode_msgpack_tree(c.bytes);
    ASSERT_TRUE(r.ok()) << c.what << ": " << r.error().message;
    EXPECT_TRUE(*r == c.want) << c.what;
    ++checked;
  }
  EXPECT_EQ(checked, 12u);
}

}  // namespace
}  // namespace hitcost::corpus
