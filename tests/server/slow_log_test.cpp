// The slow log on purpose: requests made slow by a frozen memcached node and by a cold mmap store
// are found in it with the part that waited and what it waited on; the file's rate limit leaves
// lines out and counts every one.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost::testing;
using nlohmann::json;

namespace {

json slow_entries(HttpConnection& conn, uint64_t since = 0) {
  HttpResponse r = conn.post("/admin/slow?since=" + std::to_string(since), "");
  EXPECT_EQ(r.status, 200) << r.body;
  return json::parse(r.body, nullptr, false);
}

std::filesystem::path scratch_dir() {
  // Under the build tree, not TMPDIR: on a tmpfs no page is ever read from a disk.
  const auto dir = std::filesystem::path(HITCOST_BINARY_DIR) / "tests" / "tmp";
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(SlowLog, AFrozenMemcachedNodeIsFoundAsAFetchThatWaitedOnTheRoundTrip) {
  MemcachedProcess mc;
  ServerProcess server(
      {"--store", "memcached:" + mc.address() + "?timeout_ms=5000", "--strategy", "struct:json", "--slow-log", "50ms"});
  HttpConnection conn(server.port());
  ASSERT_EQ(conn.get("/page/1").header("x-cache"), "miss");
  ASSERT_EQ(conn.get("/page/1").header("x-cache"), "hit");
  EXPECT_EQ(slow_entries(conn)["entries"].size(), 0u);  // nothing slow yet (the warm requests are fast)
  ASSERT_EQ(::kill(mc.pid(), SIGSTOP), 0);
  std::thread thaw([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(mc.pid(), SIGCONT);
  });
  HttpResponse slow = conn.get("/page/1");
  thaw.join();
  EXPECT_EQ(slow.status, 200);
  EXPECT_EQ(slow.header("x-cache"), "hit");
  const json doc = slow_entries(conn);
  ASSERT_EQ(doc["entries"].size(), 1u) << doc.dump();
  const json& e = doc["entries"][0];
  EXPECT_EQ(e["target"], "/page/1");
  EXPECT_EQ(e["key"], "hc:v1:p1:r50");
  EXPECT_EQ(e["cache"], "hit");
  EXPECT_GE(e["service_us"].get<double>(), 200'000);
  EXPECT_GE(e["parts"]["fetch"]["wall_us"].get<double>(), 200'000);
  EXPECT_LT(e["parts"]["fetch"]["cpu_us"].get<double>(), 20'000);  // it waited, it did not work
  EXPECT_EQ(e["waited_on"].get<std::string>().rfind("fetch: waiting on a memcached round trip", 0), 0u) << e.dump();
  EXPECT_EQ(doc["threshold_us"], 50'000);
  const json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["slow"]["requests"], 1);
  EXPECT_EQ(stats["slow"]["dropped_lines"], 0);  // no file: nothing to leave out
}

TEST(SlowLog, AColdMmapReadIsFoundWithItsMajorFaults) {
  const std::string path = (scratch_dir() / ("slow-cold-" + std::to_string(::getpid()) + ".dat")).string();
  std::filesystem::remove(path);
  {
    ServerProcess server({"--store", "mmap:" + path + "?size=8M&create=1&cold=1", "--strategy", "html", "--rows", "200",
                          "--slow-log", "0ms"});  // every request is "slow": each is checked below
    HttpConnection conn(server.port());
    constexpr int kPages = 8;
    for (int id = 0; id < kPages; ++id) ASSERT_EQ(conn.get("/page/" + std::to_string(id)).header("x-cache"), "miss");
    {
      // The sets' dirty pages written back, so that cold=1 can drop them and the gets fault them in.
      std::ifstream f(path);
      ASSERT_TRUE(f.good());
      ::sync();
    }
    const uint64_t before = slow_entries(conn)["seq"].get<uint64_t>();
    for (int id = 0; id < kPages; ++id) ASSERT_EQ(conn.get("/page/" + std::to_string(id)).header("x-cache"), "hit");
    const json doc = slow_entries(conn, before);
    ASSERT_EQ(doc["entries"].size(), size_t{kPages}) << doc.dump();
    size_t faulted = 0, named = 0;
    for (const json& e : doc["entries"]) {
      EXPECT_EQ(e["cache"], "hit");
      faulted += e["major_faults"].get<uint64_t>() > 0;
      const std::string why = e["waited_on"];
      named += why.rfind("fetch: ", 0) == 0 && why.find("major page faults of the mmap read") != std::string::npos;
    }
    // A 130 KB page spans ~32 pages of the file: a cold get faults on them.
    EXPECT_EQ(faulted, size_t{kPages}) << doc.dump();
    EXPECT_GE(named, size_t{kPages} / 2) << doc.dump();  // the fetch is the slowest part of most of them
  }
  std::filesystem::remove(path);
}

TEST(SlowLog, TheFilesRateLeavesLinesOutAndCountsEachOne) {
  const std::string file = (scratch_dir() / ("slow-" + std::to_string(::getpid()) + ".log")).string();
  std::filesystem::remove(file);
  ServerProcess server({"--slow-log", "0ms", "--slow-log-file", file, "--slow-log-rate", "3"});
  HttpConnection conn(server.port());
  constexpr int kRequests = 40;
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(conn.get("/page/" + std::to_string(i % 4)).status, 200);
  const json stats = json::parse(conn.get("/stats").body);
  const uint64_t dropped = stats["slow"]["dropped_lines"];
  EXPECT_EQ(stats["slow"]["requests"], kRequests);  // the /stats request ends after it read the counters
  std::ifstream in(file);
  size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const json e = json::parse(line, nullptr, false);
    ASSERT_TRUE(e.is_object()) << line;
    EXPECT_TRUE(e.contains("waited_on")) << line;
  }
  EXPECT_GE(lines, 1u);
  EXPECT_LE(lines, 3u * 3);  // at most 3 a second; the 40 requests take well under 3 s
  EXPECT_EQ(lines + dropped, size_t{kRequests});
  std::filesystem::remove(file);
}

TEST(SlowLog, WithoutItThereIsNoRouteAndNoThreshold) {
  ServerProcess plain({});
  EXPECT_EQ(http_post(plain.port(), "/admin/slow", "").status, 404);
  const json stats = json::parse(http_get(plain.port(), "/stats").body);
  EXPECT_TRUE(stats["slow"]["threshold_us"].is_null());
  EXPECT_EQ(stats["slow"]["requests"], 0);
}
