// The most-read keys in bounded memory (trace/top_keys.h): exact while the summary holds every
// key, the heavy keys found and `certain` honest once it must forget some.
#include "trace/top_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace hitcost::trace {
namespace {

std::string key(int i) { return "k" + std::to_string(i); }

TEST(TopKeys, ExactWhileEveryKeyFits) {
  TopKeys top(100);
  std::map<std::string, uint64_t> want;
  // Key i asked 50 - i times, interleaved.
  for (int round = 0; round < 50; ++round)
    for (int i = 0; i < 40; ++i)
      if (round < 50 - i) top.add(key(i)), ++want[key(i)];
  const TopKeys::Top got = top.top(5);
  ASSERT_EQ(got.keys.size(), 5u);
  for (size_t i = 0; i < got.keys.size(); ++i) {
    EXPECT_EQ(got.keys[i].key, key(int(i)));
    EXPECT_EQ(got.keys[i].count, want[key(int(i))]);
    EXPECT_EQ(got.keys[i].error, 0u);
  }
  EXPECT_TRUE(got.certain);
  uint64_t events = 0;
  for (const auto& [k, n] : want) events += n;
  EXPECT_EQ(top.events(), events);
  EXPECT_EQ(top.top(1000).keys.size(), 40u);  // fewer keys than asked: all of them
}

TEST(TopKeys, TiesComeOutInKeyOrder) {
  TopKeys top(10);
  for (const char* k : {"b", "a", "c", "a", "b", "c"}) top.add(k);
  const auto got = top.top(3);
  ASSERT_EQ(got.keys.size(), 3u);
  EXPECT_EQ(got.keys[0].key, "a");
  EXPECT_EQ(got.keys[1].key, "b");
  EXPECT_EQ(got.keys[2].key, "c");
}

// 20,000 distinct keys through 256 counters: the ten heaviest of a Zipf(1.1) stream come out
// first with their counts bounded as promised (true count in [count - error, count]).
TEST(TopKeys, FindsTheHeavyKeysOfASkewedStreamInBoundedMemory) {
  constexpr int kKeys = 20'000;
  std::vector<double> cumulative(kKeys);
  double total = 0;
  for (int i = 0; i < kKeys; ++i) cumulative[size_t(i)] = total += 1.0 / std::pow(i + 1, 1.1);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, total);
  TopKeys top(256);
  std::map<std::string, uint64_t> truth;
  for (int n = 0; n < 300'000; ++n) {
    const int i = int(std::lower_bound(cumulative.begin(), cumulative.end(), u(rng)) - cumulative.begin());
    top.add(key(i));
    ++truth[key(i)];
  }
  const auto got = top.top(10);
  ASSERT_EQ(got.keys.size(), 10u);
  size_t checked = 0;
  for (size_t r = 0; r < got.keys.size(); ++r) {
    const TopKeys::Entry& e = got.keys[r];
    EXPECT_EQ(e.key, key(int(r))) << "rank " << r;
    EXPECT_LE(truth[e.key], e.count);
    EXPECT_GE(truth[e.key], e.count - e.error);
    ++checked;
  }
  EXPECT_EQ(checked, 10u);
  EXPECT_TRUE(got.certain);
  EXPECT_EQ(top.events(), 300'000u);
}

// A stream with no heavy key at all: every count is a guess, and the answer says so.
TEST(TopKeys, NotCertainWhenTheStreamHasNoHeavyKeys) {
  TopKeys top(16);
  for (int i = 0; i < 1000; ++i) top.add(key(i));
  const auto got = top.top(4);
  EXPECT_EQ(got.keys.size(), 4u);
  EXPECT_FALSE(got.certain);
  // Each held count is an upper bound whose error covers all but one event.
  for (const auto& e : got.keys) EXPECT_EQ(e.count - e.error, 1u) << e.key;
}

}  // namespace
}  // namespace hitcost::trace
