// The slab model (corpus/slab_model.h) against a real memcached: the same values stored in
// memcached 1.6 (Debian's 1.6.18) under several settings, its `stats slabs` read back, and
// every class's chunk size and used chunks, and total_malloced, compared with the model fed
// the settings that memcached's own `stats settings` reports.
#include "corpus/slab_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/memcached_text.h"
#include "tests/support/memcached_process.h"

namespace hitcost::corpus {
namespace {

struct Item {
  std::string key;
  size_t value_bytes;
  uint32_t flags;
};

// Sizes log-uniform from 5 B to 700 kB (past slab_chunk_max, so chained items are in), keys of
// 3..45 bytes, flags 0 (no suffix) and three non-zero kinds PHP writes.
std::vector<Item> items(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return double(rng() >> 11) / double(1ull << 53); };
  const uint32_t flag_kinds[] = {0, 4, 0x54, 1u << 20};
  std::vector<Item> out;
  for (size_t i = 0; i < n; ++i) {
    const double size = std::exp(std::log(5.0) + uniform() * (std::log(700'000.0) - std::log(5.0)));
    out.push_back({"k" + std::to_string(i) + "_" + std::string(rng() % 41, 'x'), static_cast<size_t>(size),
                   flag_kinds[rng() % 4]});
  }
  return out;
}

// Stores every item with noreply sets on one connection, then `version`: memcached handles a
// connection's commands in order, so its answer means every set was taken.
void store_all(int port, const std::vector<Item>& all) {
  std::string batch;
  for (const Item& it : all) {
    batch += "set " + it.key + " " + std::to_string(it.flags) + " 0 " + std::to_string(it.value_bytes) +
             " noreply\r\n" + std::string(it.value_bytes, 'v') + "\r\n";
  }
  batch += "version\r\n";
  const std::string reply = testing::memcached_raw(port, batch, "\r\n");
  ASSERT_EQ(reply.rfind("VERSION ", 0), 0u) << reply.substr(0, 200);
}

// "STAT 12:used_chunks 45" -> stats["12:used_chunks"] = 45.
std::map<std::string, uint64_t> stats_of(const std::string& reply) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(reply);
  std::string stat, name;
  uint64_t value = 0;
  while (in >> stat) {
    if (stat != "STAT") continue;
    if (in >> name >> value) out[name] = value;
  }
  return out;
}

void expect_model_matches(const std::vector<std::string>& memcached_args, size_t min_classes_used) {
  SCOPED_TRACE(::testing::PrintToString(memcached_args));
  // 2 GiB: the ~75 MB stored must never meet the limit (an eviction would change the counts).
  testing::MemcachedProcess mc(2048, memcached_args);
  const std::vector<Item> all = items(1200, 34);
  store_all(mc.port(), all);

  auto client = MemcachedTextClient::connect(mc.address());
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto settings_stats = client->stats(MemcachedTextClient::StatsGroup::settings);
  ASSERT_TRUE(settings_stats.ok()) << settings_stats.error().message;
  auto settings = slab_settings_from_stats(*settings_stats, mc.address());
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  EXPECT_EQ(settings->source, "stats settings of " + mc.address());

  const auto general = stats_of(testing::memcached_raw(mc.port(), "stats\r\n", "END\r\n"));
  ASSERT_EQ(general.at("curr_items"), all.size());
  ASSERT_EQ(general.at("evictions"), 0u);

  SlabTally tally(*settings);
  for (const Item& it : all) tally.add(it.key.size(), it.value_bytes, it.flags);
  EXPECT_EQ(tally.items(), all.size());

  const auto slabs = stats_of(testing::memcached_raw(mc.port(), "stats slabs\r\n", "END\r\n"));
  size_t classes_used = 0, classes_checked = 0;
  for (const SlabClass& c : tally.classes()) {
    const std::string id = std::to_string(c.id);
    const uint64_t model_chunks = tally.chunks_per_class()[c.id];
    const auto used = slabs.find(id + ":used_chunks");
    if (used == slabs.end()) {  // memcached lists only the classes that hold a page
      EXPECT_EQ(model_chunks, 0u) << "class " << id << " is empty in memcached";
      continue;
    }
    EXPECT_EQ(slabs.at(id + ":chunk_size"), c.chunk_bytes) << "class " << id;
    EXPECT_EQ(slabs.at(id + ":chunks_per_page"), c.per_page) << "class " << id;
    EXPECT_EQ(used->second, model_chunks) << "class " << id << " (" << c.chunk_bytes << " B chunks)";
    classes_used += model_chunks > 0;
    ++classes_checked;
  }
  EXPECT_EQ(classes_checked, slabs.at("active_slabs")) << "memcached has classes the model does not";
  EXPECT_GE(classes_used, min_classes_used);
  EXPECT_EQ(tally.page_bytes(), slabs.at("total_malloced"));
  // chunk bytes: every item's chunk(s); never below the items' own bytes, never above the pages.
  uint64_t item_total = 0;
  for (const Item& it : all) item_total += item_bytes(*settings, it.key.size(), it.value_bytes, it.flags);
  EXPECT_GT(tally.chunk_bytes(), item_total);
  EXPECT_LT(tally.chunk_bytes(), tally.page_bytes());
}

TEST(SlabModel, ChunksPerClassAndMallocedEqualARealMemcachedsWithTheDefaults) { expect_model_matches({}, 30); }

TEST(SlabModel, ChunksPerClassAndMallocedEqualARealMemcachedsWithOtherSettings) {
  expect_model_matches({"-f", "1.08", "-n", "32"}, 50);      // 63 classes: the class limit is reached
  expect_model_matches({"-C"}, 30);                          // no CAS: 8 B less per item
  expect_model_matches({"-o", "slab_chunk_max=65536"}, 20);  // more chained items, fewer classes
  expect_model_matches({"-I", "4m"}, 30);                    // larger items allowed; pages stay 1 MiB
}

TEST(SlabModel, ItemBytesCountHeaderCasKeySuffixAndTheLineEnd) {
  const SlabSettings defaults;
  EXPECT_EQ(item_bytes(defaults, 3, 10, 0), 48u + 8 + 3 + 1 + 0 + 10 + 2);
  EXPECT_EQ(item_bytes(defaults, 3, 10, 0x54), 48u + 8 + 3 + 1 + 4 + 10 + 2);
  SlabSettings no_cas;
  no_cas.use_cas = false;
  EXPECT_EQ(item_bytes(no_cas, 3, 10, 0), 48u + 3 + 1 + 10 + 2);
  // The classes of the defaults: 96, 120, 152, ... and slab_chunk_max last.
  const std::vector<SlabClass> classes = slab_classes(defaults);
  ASSERT_EQ(classes.size(), 39u);
  EXPECT_EQ(classes[0].chunk_bytes, 96u);
  EXPECT_EQ(classes[1].chunk_bytes, 120u);
  EXPECT_EQ(classes[2].chunk_bytes, 152u);
  EXPECT_EQ(classes[0].per_page, (1u << 20) / 96);
  EXPECT_EQ(classes.back().chunk_bytes, 1u << 19);
  EXPECT_EQ(classes.back().per_page, 2u);
}

TEST(SlabModel, SettingsFromStatsReadWhatIsSaidAndRefuseNonsense) {
  using Stats = std::vector<std::pair<std::string, std::string>>;
  auto none = slab_settings_from_stats({}, "a:1");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->chunk_size, 48u);
  EXPECT_EQ(none->growth_factor, 1.25);
  EXPECT_TRUE(none->use_cas);

  auto given = slab_settings_from_stats(
      Stats{{"chunk_size", "32"}, {"growth_factor", "1.08"}, {"slab_chunk_max", "65536"}, {"cas_enabled", "no"}},
      "a:1");
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->chunk_size, 32u);
  EXPECT_EQ(given->growth_factor, 1.08);
  EXPECT_EQ(given->slab_chunk_max, 65536u);
  EXPECT_FALSE(given->use_cas);

  const Stats bad[] = {
      {{"growth_factor", "abc"}},   {{"growth_factor", "1"}},
      {{"growth_factor", "1.25x"}}, {{"chunk_size", "0"}},
      {{"chunk_size", "-5"}},       {{"slab_chunk_max", "12"}},
      {{"chunk_size", ""}},         {{"slab_chunk_max", "99999999999"}},
  };
  size_t refused = 0;
  for (const Stats& s : bad) {
    auto r = slab_settings_from_stats(s, "mc:11211");
    ASSERT_FALSE(r.ok()) << s[0].first << "=" << s[0].second;
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_NE(r.error().message.find("mc:11211"), std::string::npos) << r.error().message;
    ++refused;
  }
  EXPECT_EQ(refused, std::size(bad));
}

}  // namespace
}  // namespace hitcost::corpus
