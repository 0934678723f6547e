// MemoryStore: bytes mode, objects mode, bound and eviction, concurrency.
#include "stores/memory_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tests/stores/test_util.h"

namespace hitcost {
namespace {

using testing::make_value;
using testing::value_matches;

TEST(MemoryStore, MissOverwriteFlagsEmptyAndLarge) {
  auto s = open_store("memory");
  ASSERT_TRUE(s.ok());
  Store& m = **s;
  std::string v;
  uint32_t f = 0;
  auto r = m.get("x", v, f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::not_found);
  ASSERT_TRUE(m.set("x", "1", 5));
  ASSERT_TRUE(m.set("x", "22", 6));
  ASSERT_TRUE(m.get("x", v, f));
  EXPECT_EQ(v, "22");
  EXPECT_EQ(f, 6u);
  ASSERT_TRUE(m.set("e", "", 9));
  ASSERT_TRUE(m.get("e", v, f));
  EXPECT_EQ(v, "");
  EXPECT_EQ(f, 9u);
  std::string big = make_value("big", 1, 5 << 20);
  ASSERT_TRUE(m.set("big", big, 0));
  ASSERT_TRUE(m.get("big", v, f));
  EXPECT_EQ(v, big);
  ASSERT_TRUE(m.remove("x"));
  EXPECT_EQ(m.remove("x").error().code, Errc::not_found);
  EXPECT_EQ(m.objects(), nullptr);
  EXPECT_EQ(m.describe(), "memory:bytes");
}

TEST(MemoryStore, BoundedStoreEvictsAndStaysUnderItsSize) {
  auto s = open_store("memory:bytes?size=1M");
  ASSERT_TRUE(s.ok());
  std::string v;
  uint32_t f;
  for (int i = 0; i < 20000; ++i) {
    std::string k = "k" + std::to_string(i);
    ASSERT_TRUE((*s)->set(k, make_value(k, 1, 200), 0));
    if (i % 3 == 0) (void)(*s)->get("k0", v, f);  // a hot key gets second chances
  }
  auto st = (*s)->stats();
  EXPECT_LE(st.extra["used_bytes"], 1 << 20);
  EXPECT_GT(st.extra["evictions"], 10000);
  EXPECT_TRUE((*s)->get("k19999", v, f));
  EXPECT_TRUE((*s)->get("k0", v, f)) << "recently read entries survive a CLOCK sweep";
  auto r = (*s)->set("huge", std::string(1 << 20, 'x'), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::too_large);
}

TEST(MemoryStore, ObjectsModeHoldsPagesAndStillServesBytes) {
  auto s = open_store("memory:objects");
  ASSERT_TRUE(s.ok());
  ObjectCache* oc = (*s)->objects();
  ASSERT_NE(oc, nullptr);
  EXPECT_EQ(oc->get_page("p"), nullptr);
  auto page = std::make_shared<Page>();
  page->id = 7;
  page->title = "t";
  page->rows.push_back(Row{1, "a", "b", {"x"}, 1.5, 2, "excerpt", "u"});
  oc->set_page("p", page);
  auto got = oc->get_page("p");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got.get(), page.get()) << "the same object, not a copy";
  ASSERT_TRUE((*s)->set("b", "bytes", 1));
  std::string v;
  uint32_t f;
  ASSERT_TRUE((*s)->get("b", v, f));
  EXPECT_EQ(v, "bytes");
  EXPECT_EQ((*s)->stats().extra["objects.records"], 1);
  ASSERT_TRUE((*s)->remove("p"));
  EXPECT_EQ(oc->get_page("p"), nullptr);
}

TEST(MemoryStore, ConcurrentReadersOnlySeeValuesThatWereWritten) {
  MemoryStore m({false, 256 * 1024});
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0}, hits{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < 2; ++w)
    ts.emplace_back([&, w] {
      for (uint64_t i = 0; !stop; ++i) {
        std::string k = "k" + std::to_string((i * 7 + w) % 300);
        (void)m.set(k, make_value(k, i, 100 + i % 900), 0);
        if (i % 13 == 0) (void)m.remove(k);
      }
    });
  for (int r = 0; r < 4; ++r)
    ts.emplace_back([&, r] {
      std::string v;
      uint32_t f;
      for (uint64_t i = r; !stop; ++i) {
        std::string k = "k" + std::to_string(i % 300);
        if (m.get(k, v, f)) {
          hits++;
          if (!value_matches(k, v)) bad++;
        }
      }
    });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stop = true;
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(hits.load(), 1000u);
}

}  // namespace
}  // namespace hitcost
