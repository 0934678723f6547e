#include "load/key_chooser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unordered_set>
#include <vector>

using namespace hitcost::client;

TEST(KeyChooser, UniformSpreadsOverTheWholeKeySpace) {
  KeySpec spec;
  spec.keys = 100;
  KeyChooser k(spec, 42, 0, 1);
  std::vector<int> seen(100, 0);
  const int draws = 100'000;
  for (int i = 0; i < draws; ++i) {
    const auto p = k.next();
    ASSERT_LT(p.id, 100u);
    EXPECT_FALSE(p.forced_miss);
    ++seen[p.id];
  }
  for (int c : seen) {  // expected 1000 each; 5 sigma ≈ 160
    EXPECT_GT(c, 840);
    EXPECT_LT(c, 1160);
  }
}

TEST(KeyChooser, ZipfFollowsPowerLaw) {
  const uint64_t n = 1000;
  const double s = 1.0;
  double harmonic = 0;
  for (uint64_t r = 1; r <= n; ++r) harmonic += 1.0 / std::pow(double(r), s);
  KeySpec spec;
  spec.keys = n;
  spec.dist = *parse_key_dist("zipf:1.0");
  KeyChooser k(spec, 9, 0, 1);
  std::vector<int> seen(n, 0);
  const int draws = 200'000;
  for (int i = 0; i < draws; ++i) {
    const auto p = k.next();
    ASSERT_LT(p.id, n);
    ++seen[p.id];
  }
  for (uint64_t id : {0u, 1u, 9u}) {
    const double expected = double(draws) / (harmonic * std::pow(double(id + 1), s));
    EXPECT_NEAR(seen[id], expected, 0.05 * expected) << "id " << id;
  }
  EXPECT_GT(seen[0], 5 * seen[20]);  // skewed, unlike uniform
}

TEST(KeyChooser, ZipfWithLargeExponentConcentratesOnTheHead) {
  ZipfSampler z(10'000'000, 2.0);
  Rng rng(5);
  int ones = 0;
  for (int i = 0; i < 100'000; ++i) {
    const uint64_t r = z.sample(rng);
    ASSERT_GE(r, 1u);
    ASSERT_LE(r, 10'000'000u);
    ones += r == 1;
  }
  EXPECT_NEAR(ones / 100'000.0, 6.0 / (M_PI * M_PI), 0.01);  // 1/zeta(2)
}

TEST(KeyChooser, HitRatioFractionOfWarmedIdsWithinOnePercent) {
  for (double ratio : {0.5, 0.9, 0.99}) {
    KeySpec spec;
    spec.keys = 1000;
    spec.hit_ratio = ratio;
    spec.miss_start = 5000;
    KeyChooser k(spec, 77, 0, 1);
    int warmed = 0;
    const int draws = 100'000;
    for (int i = 0; i < draws; ++i) {
      const auto p = k.next();
      if (p.id < 1000) {
        ++warmed;
        EXPECT_FALSE(p.forced_miss);
      } else {
        EXPECT_TRUE(p.forced_miss);
        EXPECT_GE(p.id, 5000u);
      }
    }
    EXPECT_NEAR(double(warmed) / draws, ratio, 0.01) << ratio;
  }
}

TEST(KeyChooser, MissIdsNeverRepeatAcrossThreadsOrRuns) {
  KeySpec spec;
  spec.keys = 10;
  spec.hit_ratio = 0.0;  // every request is a forced miss
  spec.miss_start = 10;
  std::unordered_set<uint64_t> seen;
  uint64_t next_start = 0;
  for (int lane = 0; lane < 4; ++lane) {
    KeyChooser k(spec, 1000 + lane, lane, 4);
    for (int i = 0; i < 10'000; ++i) {
      const auto p = k.next();
      ASSERT_TRUE(p.forced_miss);
      ASSERT_GE(p.id, 10u);
      ASSERT_TRUE(seen.insert(p.id).second) << "repeated id " << p.id;
    }
    next_start = std::max(next_start, k.miss_end());
  }
  // a following run starting at miss_end() does not reuse any id either
  spec.miss_start = next_start;
  KeyChooser again(spec, 5, 0, 1);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(seen.insert(again.next().id).second);
}

TEST(KeyChooser, ParsesDistributions) {
  EXPECT_EQ(parse_key_dist("uniform")->kind, KeyDist::Kind::uniform);
  const auto z = parse_key_dist("zipf:0.99");
  ASSERT_TRUE(z);
  EXPECT_EQ(z->kind, KeyDist::Kind::zipf);
  EXPECT_DOUBLE_EQ(z->zipf_s, 0.99);
  EXPECT_FALSE(parse_key_dist("zipf:"));
  EXPECT_FALSE(parse_key_dist("zipf:-1"));
  EXPECT_FALSE(parse_key_dist("zipf:abc"));
  EXPECT_FALSE(parse_key_dist("normal"));
}
