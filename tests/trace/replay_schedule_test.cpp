// A trace's keys as the user's values (load/replay_schedule.h, ReplayTarget::value_sizes): each
// key one /value/{n} whose corpus value is of its size class, or the nearest size; no two keys
// one id; the corpus's values as the server serves them.
#include "load/replay_schedule.h"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <set>

#include "tests/support/fresh_dir.h"
#include "tests/support/value_corpus.h"
#include "trace/trace_file.h"

namespace hitcost::client {
namespace {

namespace fs = std::filesystem;
using trace::Op;
using trace::Outcome;
using trace::TraceEvent;

// One read per key, keys 0..n-1 with the given sizes, then each read again.
std::string trace_of_sizes(const fs::path& path, const std::vector<uint32_t>& sizes) {
  auto w = trace::TraceWriter::create(path.string());
  EXPECT_TRUE(w) << w.error().message;
  uint64_t t = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = 0; k < sizes.size(); ++k) {
      TraceEvent e{};
      e.time_us = t += 100;
      e.key = 1000 + k;
      e.value_size = sizes[k];
      e.op = static_cast<uint8_t>(Op::get);
      e.outcome = static_cast<uint8_t>(Outcome::found);
      EXPECT_TRUE(w->append(e));
    }
  EXPECT_TRUE(w->finish(trace::TraceInfo{}));
  return path.string();
}

TEST(ReplayValues, EachKeyGetsAValueOfItsSizeClassOrTheNearest) {
  const fs::path dir = hitcost::testing::fresh_dir("replay-schedule", "classes");
  // Key sizes and the class each must land in: 10 -> [8,16) holds 12 and 15; 100 -> none in
  // [64,128): nearest 15 (85 away; 900 is 800); 1000 -> [512,1024) holds 900 and 1023; 5000 ->
  // nearest 1023; 70000 -> nearest 60000; 11 -> [8,16) again (round-robin: the other of the two).
  const std::vector<uint32_t> key_sizes = {10, 100, 1000, 5000, 70000, 11, 950};
  const std::vector<uint32_t> values = {12, 60000, 900, 15, 1023};
  const std::vector<std::set<uint32_t>> allowed = {{12, 15}, {12, 15}, {900, 1023}, {900, 1023},
                                                   {60000},  {12, 15}, {900, 1023}};
  const std::string path = trace_of_sizes(dir / "t.hctrace", key_sizes);
  ReplayTarget target;
  target.value_sizes = values;
  auto s = build_replay_schedule(path, 1.0, 1, target);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE((*s)->values);
  EXPECT_EQ((*s)->counts.keys_in_class, 4u);  // 10, 1000, 11, 950
  EXPECT_EQ((*s)->counts.keys_nearest, 3u);   // 100, 5000, 70000
  const auto& lane = (*s)->per_thread[0];
  ASSERT_EQ(lane.size(), 2 * key_sizes.size());
  std::set<uint32_t> ids;
  std::multiset<uint32_t> class_8_16;  // the values keys of [8,16) and 100 were dealt
  for (size_t k = 0; k < key_sizes.size(); ++k) {
    const ReplayRequest& first = lane[k];
    const ReplayRequest& again = lane[k + key_sizes.size()];
    EXPECT_EQ(first.id, again.id) << "key " << k;  // one id per key, kept
    EXPECT_EQ(first.rows, 0u);
    const uint32_t value = values[first.id % values.size()];
    EXPECT_TRUE(allowed[k].count(value)) << "key of " << key_sizes[k] << " B got a value of " << value << " B";
    if (allowed[k] == std::set<uint32_t>{12, 15}) class_8_16.insert(value);
    ids.insert(first.id);
  }
  EXPECT_EQ(ids.size(), key_sizes.size());  // no two keys share an id (a cache key)
  // Round-robin within a class: three keys over its two values, both used.
  EXPECT_EQ(class_8_16.count(12) + class_8_16.count(15), 3u);
  EXPECT_GE(class_8_16.count(12), 1u);
  EXPECT_GE(class_8_16.count(15), 1u);
}

// The sizes the schedule takes are the server's values: the corpus's records that decode, in
// order (value_corpus's two bad records are left out, as the server's ValueOrigin leaves them).
TEST(ReplayValues, ServedSizesAreTheRecordsThatDecode) {
  const fs::path dir = hitcost::testing::fresh_dir("replay-schedule", "served");
  namespace vc = hitcost::testing::value_corpus;
  const auto good = vc::good_values();
  const std::string path = vc::write_corpus((dir / "c.hcorpus").string(), good);
  uint64_t records = 0;
  auto sizes = served_value_sizes(path, records);
  ASSERT_TRUE(sizes) << sizes.error().message;
  EXPECT_EQ(records, good.size() + 2);
  ASSERT_EQ(sizes->size(), good.size());
  size_t checked = 0;
  for (size_t i = 0; i < good.size(); ++i, ++checked)
    EXPECT_EQ((*sizes)[i], vc::record_of(good[i], i).value.size()) << good[i].what;
  EXPECT_EQ(checked, good.size());

  auto missing = served_value_sizes((dir / "none.hcorpus").string(), records);
  EXPECT_FALSE(missing);
}

}  // namespace
}  // namespace hitcost::client
