// File stores under a server that is killed mid-write, and a store file cut short
// underneath a running server. Pages served afterwards must be right, damage counted.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "tests/faults/load_driver.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

json stats(int port) { return json::parse(http_get(port, "/stats").body); }

struct TempFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("hitcost-faults-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
  ~TempFile() { std::filesystem::remove(path); }
  static inline int counter = 0;
};

// The page the server renders must be the rendering of what /data says the page holds.
void expect_page_matches_data(HttpConnection& c, int64_t id, uint64_t& hits) {
  HttpResponse page = c.get("/page/" + std::to_string(id));
  HttpResponse data = c.get("/data/" + std::to_string(id));
  ASSERT_EQ(page.status, 200);
  ASSERT_EQ(data.status, 200);
  Result<Page> p = decode_page(SerializerId::json, data.body);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(page.body, render_page(*p)) << "page " << id;
  if (page.header("x-cache") == "hit") ++hits;
}

class KilledWhileWarming : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(KilledWhileWarming, RestartServesOnlyRightPagesAndReportsDrops) {
  TempFile file;
  // A 4 MiB ring holds ~750 pages of 8 rows; warming writes ~25 pages/ms here, so a kill
  // 150-300 ms in lands mid-warm after the ring has wrapped several times.
  const std::string store = GetParam() + ":" + file.path.string() + "?size=4M&create=1";
  const std::vector<std::string> args = {"--store", store, "--threads", "2", "--rows", "8"};
  const int64_t kPages = 200000;  // seconds of warming: the kill always interrupts it
  {
    ServerProcess server(args);
    HttpConnection warm(server.port(), 30000);
    warm.send_raw("POST /admin/warm?from=0&to=" + std::to_string(kPages) +
                  " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + getpid() % 150));
    server.signal(SIGKILL);
    ASSERT_NE(server.wait_exit(5000), -1);
  }
  // kill -9 keeps the page cache, so the kill alone may leave no torn record (a pwrite is whole
  // or absent): damage 64 KiB of the ring (past the 4 KiB file header, 1 MiB in, where the
  // wrapped ring holds records) so that there are drops to report, and none of it is served.
  constexpr std::streamoff kDamageAt = 4096 + (1 << 20), kDamageBytes = 64 * 1024;
  {
    std::fstream f(file.path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f);
    f.seekp(kDamageAt);
    const std::string garbage(kDamageBytes, '\xa5');
    ASSERT_TRUE(f.write(garbage.data(), kDamageBytes));
  }

  ServerProcess again(args);
  json s = stats(again.port());
  ASSERT_TRUE(s["store"]["extra"].contains("dropped_on_open")) << s["store"].dump();
  EXPECT_GE(s["store"]["extra"].value("dropped_on_open", 0.0), 1) << "damaged records not reported";
  EXPECT_GE(s["store"]["extra"].value("dropped_bytes_on_open", 0.0), double{kDamageBytes}) << s["store"].dump();
  const double records = s["store"]["extra"].value("records", 0.0);
  std::printf("%s: reopened with records=%.0f dropped_on_open=%s\n", GetParam().c_str(), records,
              s["store"]["extra"]["dropped_on_open"].dump().c_str());
  ASSERT_GT(records, 100) << "the warm wrote almost nothing before the kill";
  // The survivors are the newest pages, a contiguous id range of ~records pages. Find
  // one with strides shorter than that range (each miss on the way writes a record and
  // evicts an old one, so probe sparingly), then check the pages around it.
  HttpConnection c(again.port());
  uint64_t hits = 0;
  int64_t found = -1;
  for (int64_t id = 0; id < kPages && found < 0; id += 100) {
    expect_page_matches_data(c, id, hits);
    if (hits > 0) found = id;
  }
  ASSERT_GE(found, 0) << "nothing survived the restart";
  hits = 0;
  int sampled = 0;
  for (int64_t id = found + 300; id >= std::max<int64_t>(0, found - 300); --id, ++sampled)
    expect_page_matches_data(c, id, hits);
  std::printf("%lu of %d pages around id %ld were hits from the reopened file, all right\n", hits, sampled, found);
  EXPECT_GT(hits, 0u);
}

INSTANTIATE_TEST_SUITE_P(Faults, KilledWhileWarming, ::testing::Values("mmap", "pread"));

TEST(Faults, StoreFileTruncatedUnderARunningMmapServer) {
  TempFile file;
  ServerProcess server(
      {"--store", "mmap:" + file.path.string() + "?size=4M", "--store-create", "--threads", "2", "--rows", "5"});
  ASSERT_EQ(http_post(server.port(), "/admin/warm?from=0&to=200", "").status, 200);
  LoadDriver load(server.port(), 2, 200, 5);
  load.start();
  std::this_thread::sleep_for(500ms);
  const auto cut = Clock::now();
  std::filesystem::resize_file(file.path, 4096);  // only the file header remains
  std::this_thread::sleep_for(1500ms);
  load.stop();

  EXPECT_TRUE(server.alive()) << "the server died (SIGBUS?)";
  auto before = load.count(Clock::time_point::min(), cut);
  auto after = load.count(cut, Clock::time_point::max());
  EXPECT_GT(before[Sample::ok_hit], 0u);
  for (auto o : {Sample::wrong_body, Sample::bad_status, Sample::io_error}) {
    EXPECT_EQ(before[o] + after[o], 0u) << to_string(o);
  }
  EXPECT_GT(after[Sample::ok_miss] + after[Sample::ok_hit], 0u);
  json s = stats(server.port());
  std::printf("after truncation: hits=%lu misses=%lu; store_errors_by_kind=%s extra=%s\n", after[Sample::ok_hit],
              after[Sample::ok_miss], s["store_errors_by_kind"].dump().c_str(), s["store"]["extra"].dump().c_str());
  EXPECT_GT(s["store_errors"].get<uint64_t>(), 0u) << "the damage was not counted";
}
