// Load that does not let go: 1000 keep-alive connections kept busy plus connection churn
// against one server for HITCOST_SOAK_SECONDS (default 120). No errors at all, and the
// server's RSS after warm-up may grow by less than 10 %.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/faults/load_driver.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"

using namespace hitcost::testing;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr int kConnections = 1000;
constexpr int kDrivers = 4;      // threads, each cycling over its share of connections
constexpr int64_t kKeys = 2000;  // more pages than connections: hits and misses both happen
constexpr uint32_t kRows = 4;

int soak_seconds() {
  const char* s = std::getenv("HITCOST_SOAK_SECONDS");
  return s ? std::max(10, std::atoi(s)) : 120;
}

// 1000 client sockets here and 1000 in the server (which inherits the limit) need more
// than the common soft limit of 1024 descriptors.
bool raise_fd_limit(rlim_t want) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return false;
  if (r.rlim_cur >= want) return true;
  r.rlim_cur = std::min(want, r.rlim_max);
  return setrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur >= want;
}

uint64_t rss_kb(int port) { return json::parse(http_get(port, "/stats").body)["rss_kb"].get<uint64_t>(); }

}  // namespace

TEST(Soak, ThousandKeepAliveConnectionsAndChurnWithoutErrorsOrGrowth) {
  ASSERT_TRUE(raise_fd_limit(4 * kConnections)) << "cannot raise RLIMIT_NOFILE to " << 4 * kConnections;
  // The memory store is bounded so a full cache is a steady state, not growth.
  ServerProcess server(
      {"--store", "memory?size=8M", "--threads", "2", "--rows", std::to_string(kRows), "--idle-timeout-ms", "60000"});
  const int port = server.port();
  std::vector<std::string> expected;
  for (int64_t id = 0; id < kKeys; ++id) expected.push_back(expected_page(id, kRows));

  std::vector<std::unique_ptr<HttpConnection>> conns;
  for (int i = 0; i < kConnections; ++i) conns.push_back(std::make_unique<HttpConnection>(port, 10000));

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> requests{0}, errors{0}, churned{0};
  auto check = [&](const HttpResponse& r, int64_t id) {
    if (r.status != 200 || r.body != expected[static_cast<size_t>(id)]) errors.fetch_add(1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kDrivers; ++t) {
    threads.emplace_back([&, t] {
      int64_t id = t * 131;
      while (!stop) {
        for (int i = t; i < kConnections && !stop; i += kDrivers) {
          id = (id + 17) % kKeys;
          try {
            check(conns[static_cast<size_t>(i)]->get("/page/" + std::to_string(id) + "?rows=4"), id);
          } catch (const std::exception&) {
            errors.fetch_add(1);
            conns[static_cast<size_t>(i)] = std::make_unique<HttpConnection>(port, 10000);
          }
          requests.fetch_add(1);
        }
      }
    });
  }
  threads.emplace_back([&] {  // churn: a new connection per request, closed by the client
    int64_t id = 0;
    while (!stop) {
      id = (id + 29) % kKeys;
      try {
        check(http_get(port, "/page/" + std::to_string(id) + "?rows=4"), id);
      } catch (const std::exception&) {
        errors.fetch_add(1);
      }
      churned.fetch_add(1);
    }
  });

  const int total = soak_seconds();
  const int warmup = std::max(5, total / 4);
  std::this_thread::sleep_for(std::chrono::seconds(warmup));
  const uint64_t rss_warm = rss_kb(port);
  const uint64_t req_warm = requests.load();
  std::this_thread::sleep_for(std::chrono::seconds(total - warmup));
  const uint64_t rss_end = rss_kb(port);
  stop = true;
  for (auto& th : threads) th.join();

  json s = json::parse(http_get(port, "/stats").body);
  std::printf(
      "soak %d s: %d keep-alive connections, %lu requests (%lu after warm-up), %lu churned connections, "
      "%lu errors; server RSS %lu kB after warm-up, %lu kB at the end; server saw %lu connections\n",
      total, kConnections, requests.load(), requests.load() - req_warm, churned.load(), errors.load(), rss_warm,
      rss_end, s["http"]["connections_opened"].get<uint64_t>());
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_EQ(s["bad_requests"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["store_errors"].get<uint64_t>(), 0u);
  EXPECT_GT(churned.load(), 0u);
  EXPECT_LT(static_cast<double>(rss_end), 1.10 * static_cast<double>(rss_warm)) << "RSS grew by 10 % or more";
  EXPECT_TRUE(server.alive());
}
