// open_store: the spec grammar of store.h and its error messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "stores/file_store.h"
#include "stores/store.h"
#include "tests/stores/test_util.h"

namespace hitcost {
namespace {

TEST(OpenStore, OpensEveryKind) {
  testing::TempDir dir;
  for (std::string spec : {"memory", "memory:bytes", "memory:objects", "memory?size=64M"}) {
    auto s = open_store(spec);
    ASSERT_TRUE(s.ok()) << spec << ": " << s.error().message;
  }
  auto o = open_store("memory:objects");
  ASSERT_TRUE(o.ok());
  EXPECT_NE((*o)->objects(), nullptr);
  auto m = open_store("mmap:" + dir.file("a") + "?size=1M&advise=random&populate=1&sync=1&cold=0&create=1");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)->describe(), "mmap:" + dir.file("a"));
  auto p = open_store("pread:" + dir.file("b") + "?size=256K&advise=sequential&create=1");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->stats().extra["capacity_bytes"], 256 * 1024);
  auto d = open_store("pread:" + dir.file("c"), {.create_files = true});  // default size; --store-create
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->stats().extra["capacity_bytes"], 64 << 20);
  auto mc = open_store("memcached:127.0.0.1:1,localhost:2?timeout_ms=50&connect_timeout_ms=20");
  ASSERT_TRUE(mc.ok()) << mc.error().message;  // no connection is made at open
  EXPECT_NE((*mc)->describe().find("127.0.0.1:1,localhost:2"), std::string::npos);
}

// resolve=all turns a name into its addresses (numeric, sorted, once each), keeping the port;
// numeric hosts stay as they are. /etc/hosts maps localhost to 127.0.0.1 (and maybe ::1).
TEST(OpenStore, ResolveAllMakesEveryAddressOfANameANode) {
  auto mc = open_store("memcached:localhost:7,127.0.0.2:8?resolve=all&timeout_ms=50");
  ASSERT_TRUE(mc.ok()) << mc.error().message;
  const std::string d = (*mc)->describe();
  EXPECT_EQ(d.find("localhost"), std::string::npos) << d;
  EXPECT_NE(d.find("127.0.0.1:7"), std::string::npos) << d;
  EXPECT_NE(d.find("127.0.0.2:8"), std::string::npos) << d;
  auto first = open_store("memcached:localhost:7?resolve=first");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*first)->describe().rfind("memcached:localhost:7?", 0), 0u) << (*first)->describe();
  auto nowhere = open_store("memcached:no-such-host.invalid:7?resolve=all");
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.error().message.find("cannot resolve 'no-such-host.invalid'"), std::string::npos)
      << nowhere.error().message;
}

TEST(OpenStore, BadSpecsAreInvalidArgumentsThatNameTheProblem) {
  struct Case {
    const char* spec;
    const char* mentions;
  } cases[] = {
      {"", "unknown store kind"},
      {"redis:x", "unknown store kind"},
      {"memory:things", "bytes"},
      {"memory?size=lots", "bad size"},
      {"memory?colour=red", "unknown option 'colour'"},
      {"memcached:", "no memcached nodes"},
      {"memcached:localhost", "HOST:PORT"},
      {"memcached:h:99999", "port out of range"},
      {"memcached:h:abc", "not a non-negative integer"},
      {"memcached:h:1?timeout_ms=-5", "timeout_ms"},
      {"memcached:h:1?timeout_ms=0", "at least 1 ms"},
      {"memcached:h:1?binary=maybe", "0/1"},
      {"memcached:h:1?resolve=some", "resolve must be"},
      {"mmap:", "missing file path"},
      {"mmap:/tmp/x?size=12Q", "bad size unit"},
      {"mmap:/tmp/x?size=1K", "at least 64K"},
      {"mmap:/tmp/x?advise=sometimes", "advise must be"},
      {"pread:/tmp/x?populate=1", "unknown option 'populate'"},
      {"pread:/tmp/x?sync", "key=value"},
      {"mmap:/tmp/x?sync=sometimes", "sync policy 'sometimes': unknown policy"},
      {"pread:/tmp/x?sync=2", "sync policy '2'"},
      {"pread:/tmp/x?sync=interval:0", "MS must be 1..3600000"},
      {"pread:/tmp/x?sync=interval:5s", "sync policy 'interval:5s': MS is not a whole number"},
      {"pread:/tmp/x?sync=interval:", "sync policy 'interval:'"},
  };
  for (const auto& c : cases) {
    auto s = open_store(c.spec);
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.error().code, Errc::invalid_argument) << c.spec;
    EXPECT_NE(s.error().message.find(c.mentions), std::string::npos) << c.spec << " -> " << s.error().message;
  }
}

// Regression: the file used to be created before ?size= was checked, so a typo left an
// empty store file behind (and a size that wrapped when rounded up was refused only then).
TEST(OpenStore, BadSizeIsInvalidArgumentAndCreatesNoFile) {
  testing::TempDir dir;
  const std::string too_big = std::to_string(kMaxRingBytes + 1);
  size_t checked = 0;
  for (const char* kind : {"mmap", "pread"}) {
    for (const std::string& size : {std::string("1K"), std::string("65535"), std::string("lots"), std::string("12Q"),
                                    std::string("18446744073709551615"), too_big}) {
      const std::string path = dir.file(std::string(kind) + "-" + size);
      auto s = open_store(std::string(kind) + ":" + path + "?size=" + size);
      ASSERT_FALSE(s.ok()) << kind << " size=" << size;
      EXPECT_EQ(s.error().code, Errc::invalid_argument) << kind << " size=" << size << ": " << s.error().message;
      EXPECT_FALSE(std::filesystem::exists(path)) << kind << " size=" << size << " left " << path;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12u);
}

TEST(OpenStore, FailedOpenRemovesTheFileItCreatedButNeverAnExistingOne) {
  testing::TempDir dir;
  // Valid as a size, but no mapping can hold 8 EiB: the open fails after creating the file.
  const std::string huge = "?size=" + std::to_string(kMaxRingBytes);
  const std::string fresh = dir.file("fresh");
  auto s = open_store("mmap:" + fresh + huge + "&create=1");
  ASSERT_FALSE(s.ok());
  EXPECT_FALSE(std::filesystem::exists(fresh)) << s.error().message;
  // A file that was there before is the user's: a failed open leaves it alone.
  const std::string existing = dir.file("existing");
  auto first = open_store("mmap:" + existing + "?size=64K&create=1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  first->reset();
  auto again = open_store("mmap:" + existing + huge);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(std::filesystem::exists(existing));
  auto bad = open_store("mmap:" + existing + "?size=1K");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(std::filesystem::exists(existing));
}

TEST(OpenStore, UnreachableFileIsAnIoError) {
  auto s = open_store("mmap:/nonexistent-dir/x.dat");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::io_error);
  auto c = open_store("mmap:/nonexistent-dir/x.dat?create=1");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::io_error);
  auto bad = open_store("pread:/tmp/x?create=perhaps");  // a spec error stays a spec error
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_argument);
  EXPECT_NE(bad.error().message.find("create=perhaps is not 0/1"), std::string::npos) << bad.error().message;
}

TEST(ParseSize, AcceptsBinaryUnits) {
  EXPECT_EQ(*parse_size("4096"), 4096u);
  EXPECT_EQ(*parse_size("64K"), 65536u);
  EXPECT_EQ(*parse_size("256M"), 256u << 20);
  EXPECT_EQ(*parse_size("1GiB"), 1u << 30);
  EXPECT_EQ(*parse_size("2gb"), 2ull << 30);
  EXPECT_FALSE(parse_size("M").ok());
  EXPECT_FALSE(parse_size("5T").ok());
}

}  // namespace
}  // namespace hitcost
