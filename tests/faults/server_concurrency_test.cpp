// Server threads under concurrent load while the configuration is switched and stats
// are read and reset: every page stays right. Its real value is under ThreadSanitizer
// (scripts/test-sanitizers.sh runs it in the TSan build, where a race aborts the server).
#include <gtest/gtest.h>

#include <thread>

#include "tests/faults/load_driver.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"

using namespace hitcost::testing;
using namespace std::chrono_literals;

TEST(Concurrency, ServerThreadsUnderLoadWithConfigSwitchesServeRightPages) {
  ServerProcess server({"--store", "memory", "--threads", "3", "--rows", "4"});
  LoadDriver load(server.port(), 4, 60, 4);
  load.start();
  HttpConnection admin(server.port());
  const char* configs[] = {R"({"strategy":"struct:json+zlib"})",
                           R"({"store":"memory:objects"})",
                           R"({"strategy":"struct:msgpack","flags":"native"})",
                           R"({"store":"memory:bytes"})",
                           R"({"strategy":"html+zstd"})",
                           R"({"strategy":"struct:php+zlib"})"};
  for (int round = 0; round < 3; ++round) {
    for (const char* c : configs) {
      EXPECT_EQ(admin.post("/admin/config", c).status, 200) << c;
      EXPECT_EQ(admin.get("/stats").status, 200);
      EXPECT_EQ(admin.get("/metrics").status, 200);
      std::this_thread::sleep_for(100ms);
    }
    EXPECT_EQ(admin.post("/admin/reset", "").status, 200);
  }
  load.stop();
  auto c = load.count(Clock::time_point::min(), Clock::time_point::max());
  std::printf("hits=%lu misses=%lu\n", c[Sample::ok_hit], c[Sample::ok_miss]);
  EXPECT_GT(c[Sample::ok_hit] + c[Sample::ok_miss], 0u);
  EXPECT_EQ(c[Sample::wrong_body], 0u);
  EXPECT_EQ(c[Sample::bad_status], 0u);
  EXPECT_EQ(c[Sample::io_error], 0u);
  EXPECT_TRUE(server.alive());
}
