#include <gtest/gtest.h>
#include <zlib.h>

#include <set>
#include <string>

#include "codecs/json_serializer.h"
#include "codecs/page_generator.h"

namespace hitcost {
namespace {

double zlib_ratio(const std::string& s) {
  uLongf n = compressBound(s.size());
  std::string out(n, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(s.data()), s.size(), 6),
            Z_OK);
  return static_cast<double>(s.size()) / static_cast<double>(n);
}

std::string json_of(const Page& p) {
  std::string s;
  encode_json(p, s);
  return s;
}

TEST(PageGenerator, SameSpecGivesSamePage) {
  PageSpec spec{12, 40, 7, 1.0};
  EXPECT_EQ(generate_page(spec), generate_page(spec));
  PageSpec half{12, 40, 7, 0.5};
  EXPECT_EQ(generate_page(half), generate_page(half));
}

TEST(PageGenerator, DifferentIdOrSeedGivesDifferentPage) {
  Page a = generate_page({1, 10, 1, 1.0});
  EXPECT_NE(a, generate_page({2, 10, 1, 1.0}));
  EXPECT_NE(a, generate_page({1, 10, 2, 1.0}));
}

TEST(PageGenerator, RowsDoNotDependOnRowCount) {
  Page small = generate_page({5, 3, 1, 1.0});
  Page big = generate_page({5, 30, 1, 1.0});
  ASSERT_EQ(small.rows.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(small.rows[i], big.rows[i]);
}

TEST(PageGenerator, ShapeIdsAndFields) {
  Page p = generate_page({9, 100, 1, 1.0});
  EXPECT_EQ(p.id, 9);
  EXPECT_FALSE(p.title.empty());
  ASSERT_EQ(p.rows.size(), 100u);
  std::set<int64_t> ids;
  for (const Row& r : p.rows) {
    ids.insert(r.id);
    EXPECT_FALSE(r.title.empty());
    EXPECT_FALSE(r.author.empty());
    EXPECT_GE(r.tags.size(), 1u);
    EXPECT_LE(r.tags.size(), 5u);
    EXPECT_GT(r.price, 0.0);
    // two decimals: cents are a whole number and the double is exactly cents/100
    double cents = r.price * 100.0;
    EXPECT_EQ(static_cast<double>(static_cast<int64_t>(cents + 0.5)) / 100.0, r.price);
    EXPECT_GT(r.created, 1'400'000'000);
    EXPECT_TRUE(r.url.starts_with("https://"));
    EXPECT_GT(r.excerpt.size(), 50u);
  }
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(p.rows.front().id, 900001);
}

TEST(PageGenerator, ZeroRowsIsAValidPage) {
  Page p = generate_page({3, 0, 1, 1.0});
  EXPECT_TRUE(p.rows.empty());
  EXPECT_FALSE(p.title.empty());
}

TEST(PageGenerator, SizeGrowsWithRowsAnd50RowsIsAbout20To25KB) {
  size_t s5 = json_of(generate_page({1, 5, 1, 1.0})).size();
  size_t s50 = json_of(generate_page({1, 50, 1, 1.0})).size();
  size_t s500 = json_of(generate_page({1, 500, 1, 1.0})).size();
  EXPECT_LT(s5, s50);
  EXPECT_LT(s50, s500);
  EXPECT_GE(s50, 20'000u);
  EXPECT_LE(s50, 25'500u);
}

TEST(PageGenerator, TextNeedsEscapingAndHasUnicode) {
  std::string j = json_of(generate_page({1, 200, 1, 1.0}));
  EXPECT_NE(j.find('&'), std::string::npos);
  EXPECT_NE(j.find('<'), std::string::npos);
  EXPECT_NE(j.find('\''), std::string::npos);
  EXPECT_NE(j.find("\\\""), std::string::npos);
  EXPECT_NE(j.find("\xc3"), std::string::npos);  // a UTF-8 lead byte
}

TEST(PageGenerator, CompressibilityKnobChangesZlibRatio) {
  double vocab = zlib_ratio(json_of(generate_page({1, 50, 1, 1.0})));
  double half = zlib_ratio(json_of(generate_page({1, 50, 1, 0.5})));
  double random = zlib_ratio(json_of(generate_page({1, 50, 1, 0.0})));
  EXPECT_GE(vocab, 3.0);
  EXPECT_LE(vocab, 5.0);
  EXPECT_LT(half, vocab);
  EXPECT_LT(random, half);
  // Random printable ASCII is the floor for valid UTF-8 text (~1.2x); JSON keys and URL
  // prefixes still compress, so the whole document stays a little above that.
  EXPECT_LT(random, 1.7);
  std::string excerpts;
  for (const Row& r : generate_page({1, 50, 1, 0.0}).rows) excerpts += r.excerpt;
  EXPECT_LT(zlib_ratio(excerpts), 1.3);
}

}  // namespace
}  // namespace hitcost
