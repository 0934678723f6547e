#include "client/verdict.h"

#include <gtest/gtest.h>

using namespace hitcost::client;

TEST(Verdict, RangeIsMinMedianMax) {
  const auto r = Range::of({5, 1, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min, 1);
  EXPECT_EQ(r->median, 3);
  EXPECT_EQ(r->max, 5);
  EXPECT_EQ(Range::of({4, 1, 2, 3})->median, 2.5);
  EXPECT_FALSE(Range::of({}));
}

TEST(Verdict, OverlappingRangesAreInconclusive) {
  const Range html{10, 11, 12}, other{11.5, 13, 14};
  const Verdict v = judge("struct:json", other, "html", html, "server CPU per request");
  EXPECT_FALSE(v.conclusive);
  EXPECT_NE(v.text.find("inconclusive (ranges overlap)"), std::string::npos) << v.text;
  EXPECT_TRUE(overlaps(Range{1, 2, 3}, Range{3, 4, 5}));  // touching ends overlap
  EXPECT_FALSE(overlaps(Range{1, 2, 3}, Range{3.01, 4, 5}));
}

TEST(Verdict, SeparatedRangesGiveARatio) {
  const Range html{9.5, 10, 10.4}, zjson{30, 31, 33};
  const Verdict v = judge("struct:json+zlib", zjson, "html", html, "server CPU per request");
  EXPECT_TRUE(v.conclusive);
  EXPECT_DOUBLE_EQ(v.ratio, 3.1);
  EXPECT_EQ(v.text, "struct:json+zlib costs 3.1\u00d7 html in server CPU per request");
  const Verdict small = judge("html+zlib", Range{11, 11.5, 12}, "html", html, "server CPU per request");
  EXPECT_EQ(small.text, "html+zlib costs 1.15\u00d7 html in server CPU per request");
}

TEST(Verdict, EveryEntryIsJudgedAgainstTheCheapestMedian) {
  const std::vector<std::pair<std::string, Range>> entries = {
      {"struct:json", {20, 21, 22}}, {"html", {9, 10, 11}}, {"html+zlib", {10.5, 12, 13}}};
  const auto verdicts = judge_against_cheapest(entries, "server CPU per request");
  ASSERT_EQ(verdicts.size(), 2u);
  for (const auto& v : verdicts) EXPECT_EQ(v.baseline, "html");
  EXPECT_EQ(verdicts[0].subject, "struct:json");
  EXPECT_TRUE(verdicts[0].conclusive);
  EXPECT_FALSE(verdicts[1].conclusive);
  EXPECT_TRUE(judge_against_cheapest({entries[0]}, "x").empty());
}
