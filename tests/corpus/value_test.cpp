#include "corpus/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace hitcost::corpus {
namespace {

TEST(CorpusValue, CanonicalIntegerStringsAreIntKeysLikePhp) {
  struct Case {
    const char* text;
    bool is_int;
    int64_t value;
  };
  const Case cases[] = {{"0", true, 0},
                        {"7", true, 7},
                        {"-3", true, -3},
                        {"9223372036854775807", true, INT64_MAX},
                        {"-9223372036854775808", true, INT64_MIN},
                        {"9223372036854775808", false, 0},
                        {"07", false, 0},
                        {"-0", false, 0},
                        {"+3", false, 0},
                        {"", false, 0},
                        {"-", false, 0},
                        {"1.0", false, 0},
                        {" 1", false, 0},
                        {"abc", false, 0}};
  size_t checked = 0;
  for (const Case& c : cases) {
    const MapKey k = make_key(c.text);
    EXPECT_EQ(k.is_int, c.is_int) << c.text;
    if (c.is_int)
      EXPECT_EQ(k.i, c.value) << c.text;
    else
      EXPECT_EQ(k.s, c.text);
    ++checked;
  }
  EXPECT_EQ(checked, std::size(cases));
}

TEST(CorpusValue, KeysZeroToNMinusOneInOrderMakeAList) {
  Fields f;
  f.emplace_back(make_key("0"), make_int(10));
  f.emplace_back(make_int_key(1), make_string("b"));
  const Value v = make_map(std::move(f));
  ASSERT_EQ(v.kind, Value::Kind::list);
  ASSERT_EQ(v.items.size(), 2u);
  EXPECT_EQ(v.items[0].i, 10);
  EXPECT_EQ(v.items[1].s, "b");
  EXPECT_EQ(make_map({}).kind, Value::Kind::list);  // the empty array
}

TEST(CorpusValue, KeysOutOfOrderOrWithGapsStayAMapInTheirOrder) {
  Fields f;
  f.emplace_back(make_int_key(1), make_null());
  f.emplace_back(make_int_key(0), make_null());
  const Value swapped = make_map(f);
  ASSERT_EQ(swapped.kind, Value::Kind::map);
  EXPECT_EQ(swapped.fields[0].first.i, 1);
  f.clear();
  f.emplace_back(make_int_key(0), make_null());
  f.emplace_back(make_int_key(2), make_null());
  EXPECT_EQ(make_map(f).kind, Value::Kind::map);
}

TEST(CorpusValue, EqualityIsExactDoublesBitForBit) {
  EXPECT_EQ(make_real(std::nan("")), make_real(std::nan("")));
  // A NaN with another payload (igbinary and msgpack carry it, serialize() writes NAN): equal.
  uint64_t payload_bits = 0xffffff502c28f991ull;
  double payload_nan = 0;
  std::memcpy(&payload_nan, &payload_bits, sizeof payload_nan);
  EXPECT_EQ(make_real(payload_nan), make_real(std::nan("")));
  EXPECT_NE(make_real(payload_nan), make_real(1.0));
  EXPECT_NE(make_real(0.0), make_real(-0.0));
  EXPECT_NE(make_int(1), make_real(1.0));
  EXPECT_NE(make_string("1"), make_int(1));
  EXPECT_NE(make_list({make_int(1)}), make_list({make_int(2)}));
  EXPECT_EQ(make_list({make_int(1), make_string("x")}), make_list({make_int(1), make_string("x")}));
}

TEST(CorpusValue, TreeStatsCountNodesDepthAndStringBytes) {
  Fields f;
  f.emplace_back(make_key("name"), make_string("abc"));
  f.emplace_back(make_key("tags"), make_list({make_string("x"), make_string("yz")}));
  const TreeStats st = tree_stats(make_map(std::move(f)));
  EXPECT_EQ(st.nodes, 5u);  // map, string, list, 2 strings
  EXPECT_EQ(st.max_depth, 3u);
  EXPECT_EQ(st.strings, 5u);  // 3 values + 2 keys
  EXPECT_EQ(st.string_bytes, 3u + 1 + 2 + 4 + 4);
}

}  // namespace
}  // namespace hitcost::corpus
