// Durable writes for the file stores (?sync=none|each|interval:MS): how many fdatasyncs each
// policy makes, and what it reports as synced. The calls are observed (tests/support/sync_probe.h:
// the executable's fdatasync goes through a counter), and the store's own figures must agree
// with them. SERIAL executable: the interval tests count syncs against the wall clock, which a
// busy neighbour on 2 cores would blur.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "stores/store.h"
#include "tests/stores/test_util.h"
#include "tests/support/sync_probe.h"

namespace hitcost {
namespace {

using std::chrono::milliseconds;
using testing::make_value;
using testing::value_matches;

class FileStoreSync : public ::testing::TestWithParam<std::string> {
 protected:
  FileStoreSync() { testing::forget_syncs(); }
  std::unique_ptr<Store> open(const std::string& query) {
    // query: "?sync=..."; create=1 makes the file the first time
    auto s = open_store(GetParam() + ":" + dir_.file("sync.dat") + query + "&create=1");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(*s) : nullptr;
  }
  static uint64_t calls(Store& s) { return s.stats().sync.value_or(SyncStats::Figures{}).calls; }
  // fdatasync calls this process made on the store file (observed, not the store's figure).
  uint64_t observed() const { return testing::syncs_on(dir_.file("sync.dat")); }
  static uint64_t bucket_total(const SyncStats::Figures& f) {
    return std::accumulate(f.log2_ns.begin(), f.log2_ns.end(), uint64_t{0});
  }
  testing::TempDir dir_;
};

TEST_P(FileStoreSync, NoneNeverSyncs) {
  auto s = open("?size=1M&sync=none");
  ASSERT_TRUE(s);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(s->set("k" + std::to_string(i), make_value("k", i, 300), 0));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(s->remove("k" + std::to_string(i)));
  auto st = s->stats();
  EXPECT_EQ(st.sync_policy, "none");
  ASSERT_TRUE(st.sync.has_value());  // a file store reports its figures under every policy
  EXPECT_EQ(st.sync->calls, 0u);
  EXPECT_EQ(observed(), 0u) << "fdatasync called under sync=none";
  EXPECT_EQ(bucket_total(*st.sync), 0u);
  EXPECT_EQ(st.extra["sync.written_seq"], 60);
  EXPECT_EQ(st.extra["sync.synced_seq"], 0);
}

TEST_P(FileStoreSync, EachSyncsEveryAcknowledgedSetAndRemove) {
  auto s = open("?size=1M&sync=each");
  ASSERT_TRUE(s);
  // Creating the file syncs its header once (not in the store's figures, file_store.cpp).
  EXPECT_EQ(observed(), 1u) << "the new file's header is synced under sync=each";
  const uint64_t at_open = observed();
  constexpr int kSets = 20, kRemoves = 5;
  for (int i = 0; i < kSets; ++i) ASSERT_TRUE(s->set("k" + std::to_string(i), make_value("k", i, 300), 0));
  for (int i = 0; i < kRemoves; ++i) ASSERT_TRUE(s->remove("k" + std::to_string(i)));
  // Neither writes anything, so neither syncs: a miss and a refused key.
  auto miss = s->remove("never-set");
  ASSERT_FALSE(miss);
  EXPECT_EQ(miss.error().code, Errc::not_found);
  EXPECT_FALSE(s->set("", "v", 0));
  auto st = s->stats();
  EXPECT_EQ(st.sync_policy, "each");
  ASSERT_TRUE(st.sync.has_value());
  EXPECT_EQ(st.sync->calls, uint64_t{kSets + kRemoves});
  EXPECT_EQ(observed() - at_open, uint64_t{kSets + kRemoves}) << "fdatasync calls made on the file";
  EXPECT_EQ(st.sync->errors, 0u);
  EXPECT_EQ(bucket_total(*st.sync), st.sync->calls);  // every sync timed into one bucket
  EXPECT_GT(st.sync->total_ns, 0u);
  EXPECT_LE(st.sync->max_ns, st.sync->total_ns);
  EXPECT_GE(st.sync->max_ns * st.sync->calls, st.sync->total_ns);
  EXPECT_EQ(st.extra["sync.written_seq"], kSets + kRemoves);
  EXPECT_EQ(st.extra["sync.synced_seq"], kSets + kRemoves);
}

// sync=0 / sync=1 are what sync= meant before it had policies.
TEST_P(FileStoreSync, ZeroAndOneAreAliasesOfNoneAndEach) {
  size_t checked = 0;
  for (auto [alias, policy] :
       {std::pair{"0", "none"}, std::pair{"1", "each"}, std::pair{"interval:250", "interval:250"}}) {
    auto s = open(std::string("?size=1M&sync=") + alias);
    ASSERT_TRUE(s) << alias;
    EXPECT_EQ(s->stats().sync_policy, policy) << alias;
    ASSERT_TRUE(s->set("k", "v", 0));
    EXPECT_EQ(calls(*s), std::string(policy) == "each" ? 1u : 0u) << alias;
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

// Continuous sets for about a second: one sync per interval (plus the sync's own time), each
// covering everything written since the one before, and far fewer syncs than sets.
TEST_P(FileStoreSync, IntervalSyncsAboutOncePerIntervalWhileWriting) {
  constexpr int kIntervalMs = 50;
  auto s = open("?size=1M&sync=interval:" + std::to_string(kIntervalMs));
  ASSERT_TRUE(s);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t sets = 0, max_set_us = 0;
  while (std::chrono::steady_clock::now() - t0 < milliseconds(1000)) {
    const auto a = std::chrono::steady_clock::now();
    ASSERT_TRUE(s->set("k" + std::to_string(sets % 1000), make_value("k", sets, 200), 0));
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - a);
    max_set_us = std::max<uint64_t>(max_set_us, static_cast<uint64_t>(us.count()));
    ++sets;
  }
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const auto st = s->stats();
  ASSERT_TRUE(st.sync.has_value());
  ASSERT_GT(st.sync->calls, 0u);
  // A tick waits the interval, then syncs: one sync per interval plus the sync's own time (the
  // mean measured here: on a slow disk or under a sanitizer it can exceed the interval).
  const double mean_sync_ms = static_cast<double>(st.sync->total_ns) / 1e6 / static_cast<double>(st.sync->calls);
  const double expected = elapsed_ms / kIntervalMs;
  const double expected_slowest = elapsed_ms / (kIntervalMs + mean_sync_ms);
  std::printf(
      "interval:%d: %lu sets, %lu syncs in %.0f ms (%.1f expected), sync max %.2f ms mean %.2f ms, "
      "set max %lu us\n",
      kIntervalMs, static_cast<unsigned long>(sets), static_cast<unsigned long>(st.sync->calls), elapsed_ms, expected,
      static_cast<double>(st.sync->max_ns) / 1e6,
      st.sync->calls ? static_cast<double>(st.sync->total_ns) / 1e6 / static_cast<double>(st.sync->calls) : 0,
      static_cast<unsigned long>(max_set_us));
  EXPECT_GE(static_cast<double>(st.sync->calls), 0.5 * expected_slowest);
  EXPECT_LE(static_cast<double>(st.sync->calls), 1.3 * expected);
  EXPECT_GT(sets, 20 * st.sync->calls) << "syncs are not batched";
  EXPECT_EQ(st.sync->errors, 0u);
  EXPECT_EQ(bucket_total(*st.sync), st.sync->calls);
  EXPECT_EQ(st.extra.at("sync.written_seq"), static_cast<double>(sets));
  EXPECT_LE(st.extra.at("sync.synced_seq"), static_cast<double>(sets));
  EXPECT_GT(st.extra.at("sync.synced_seq"), 0);
  // Writing stops: the next tick covers the rest, and then the store stays idle.
  std::this_thread::sleep_for(milliseconds(4 * kIntervalMs));
  const auto after = s->stats();
  EXPECT_EQ(after.extra.at("sync.synced_seq"), static_cast<double>(sets));
  // + 2: a sync running when the figures were read (covering less than all), then the rest.
  EXPECT_LE(after.sync->calls, st.sync->calls + 2);
  std::this_thread::sleep_for(milliseconds(4 * kIntervalMs));
  EXPECT_EQ(calls(*s), after.sync->calls) << "an idle store kept syncing";
  EXPECT_EQ(observed(), calls(*s)) << "every sync the store counted is an fdatasync made on the file";
}

TEST_P(FileStoreSync, IntervalWithNoWritesNeverSyncs) {
  auto s = open("?size=1M&sync=interval:20");
  ASSERT_TRUE(s);
  std::this_thread::sleep_for(milliseconds(300));  // ~15 ticks
  EXPECT_EQ(calls(*s), 0u) << "an idle store synced";
  EXPECT_EQ(observed(), 0u) << "an idle store called fdatasync";
  ASSERT_TRUE(s->set("k", "v", 0));
  std::this_thread::sleep_for(milliseconds(200));
  auto st = s->stats();
  EXPECT_EQ(st.sync->calls, 1u) << "one write, one sync";
  EXPECT_EQ(observed(), 1u) << "one write, one fdatasync";
  EXPECT_EQ(st.extra["sync.synced_seq"], 1);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(calls(*s), 1u) << "idle again, yet synced";
  EXPECT_EQ(observed(), 1u) << "idle again, yet fdatasync called";
}

// Writers, readers, stats and the syncer at once (the TSan build checks the locking): every
// read is a value written for its key, and the syncer never claims a write not yet made.
TEST_P(FileStoreSync, IntervalSyncerRunsBesideWritersAndReaders) {
  auto s = open("?size=1M&sync=interval:1");
  ASSERT_TRUE(s);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads_checked{0}, sets_done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w)
    threads.emplace_back([&, w] {
      for (uint64_t i = 0; !stop.load(); ++i) {
        const std::string k = "w" + std::to_string(w) + "-" + std::to_string(i % 64);
        if (s->set(k, make_value(k, i, 100 + i % 500), 0)) sets_done.fetch_add(1);
      }
    });
  threads.emplace_back([&] {
    std::string v;
    uint32_t f = 0;
    for (uint64_t i = 0; !stop.load(); ++i) {
      const std::string k = "w" + std::to_string(i % 2) + "-" + std::to_string(i % 64);
      if (s->get(k, v, f)) {
        EXPECT_TRUE(value_matches(k, v)) << k;
        reads_checked.fetch_add(1);
      }
    }
  });
  uint64_t stats_checked = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < milliseconds(400)) {
    auto st = s->stats();
    EXPECT_LE(st.extra["sync.synced_seq"], st.extra["sync.written_seq"]);
    ++stats_checked;
    std::this_thread::sleep_for(milliseconds(5));
  }
  stop = true;
  for (auto& t : threads) t.join();
  auto st = s->stats();
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.extra["sync.written_seq"], static_cast<double>(sets_done.load()));
  EXPECT_GT(st.sync->calls, 0u);
  EXPECT_GT(reads_checked.load(), 0u);
  EXPECT_GT(stats_checked, 10u);
}

// The file cut short underneath: the next set re-creates it (same descriptor, truncated and
// rewritten under writer_mu_) while the syncer keeps syncing that descriptor without the lock.
// The re-creation counts as a write, and the syncer covers it.
TEST_P(FileStoreSync, IntervalSyncerSurvivesReCreationOfTheFile) {
  auto s = open("?size=1M&sync=interval:1");
  ASSERT_TRUE(s);
  const std::string path = dir_.file("sync.dat");
  uint64_t sets = 0, truncations = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 200; ++i, ++sets) {
      const std::string k = "k" + std::to_string(i);
      ASSERT_TRUE(s->set(k, make_value(k, sets, 300), 0)) << "round " << round;
    }
    ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
    ++truncations;
    std::this_thread::sleep_for(milliseconds(2));
  }
  ASSERT_TRUE(s->set("last", "v", 0));  // re-creates after the last truncation
  ++sets;
  std::this_thread::sleep_for(milliseconds(100));
  auto st = s->stats();
  EXPECT_EQ(st.extra["reinits"], static_cast<double>(truncations));
  EXPECT_EQ(st.extra["sync.written_seq"], static_cast<double>(sets + truncations));
  EXPECT_EQ(st.extra["sync.synced_seq"], st.extra["sync.written_seq"]);
  EXPECT_EQ(st.sync->errors, 0u);
  EXPECT_GT(st.sync->calls, 0u);
  std::string v;
  uint32_t f = 0;
  EXPECT_TRUE(s->get("last", v, f));
}

INSTANTIATE_TEST_SUITE_P(, FileStoreSync, ::testing::Values("mmap", "pread"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hitcost
