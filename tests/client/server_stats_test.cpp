#include "measure/server_stats.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/unique_fd.h"

using namespace hitcost::client;
using hitcost::Errc;
using hitcost::UniqueFd;

TEST(ServerStats, DeltasFollowTheStatsSchema) {
  const auto before = nlohmann::json::parse(R"({
    "uptime_s": 10.0, "requests": 1000, "pages": 990, "hits": 900, "misses": 90,
    "cpu": {"user_s": 1.0, "system_s": 0.5},
    "phases_ns": {"fetch": {"count": 990, "sum": 1000000}, "render": {"count": 990, "sum": 2000000}},
    "cache": {"bytes_read": 1000, "bytes_written": 100},
    "store": {"extra": {"rusage_user_s": 2.0, "rusage_system_s": 1.0}}})");
  const auto after = nlohmann::json::parse(R"({
    "uptime_s": 12.0, "requests": 3000, "pages": 2990, "hits": 2880, "misses": 110,
    "config": {"strategy": "html", "store": "memcached"}, "threads": 2,
    "cpu": {"user_s": 1.03, "system_s": 0.51},
    "phases_ns": {"fetch": {"count": 2990, "sum": 3000000}, "render": {"count": 2990, "sum": 8000000}},
    "cache": {"bytes_read": 201000, "bytes_written": 300},
    "store": {"extra": {"rusage_user_s": 2.003, "rusage_system_s": 1.001}}})");
  const ServerDelta d = stats_delta(before, after);
  EXPECT_EQ(d.requests, 2000u);
  EXPECT_EQ(d.hits, 1980u);
  EXPECT_EQ(d.misses, 20u);
  EXPECT_NEAR(d.hit_ratio(), 0.99, 1e-12);
  EXPECT_NEAR(d.server_cpu_us_per_req(), 0.04 * 1e6 / 2000, 1e-6);  // 20 µs
  ASSERT_TRUE(d.cache_cpu_us_per_req());
  EXPECT_NEAR(*d.cache_cpu_us_per_req(), 0.004 * 1e6 / 2000, 1e-6);  // 2 µs
  ASSERT_EQ(d.phases.size(), 2u);
  EXPECT_EQ(d.phases[0].name, "fetch");
  EXPECT_EQ(d.phases[0].sum_ns, 2'000'000u);
  EXPECT_EQ(d.cache_bytes_read, 200'000u);
  EXPECT_EQ(d.config["store"], "memcached");
  EXPECT_FALSE(d.counters_reset);
}

// 99 % hits: a hit costs 20 µs, a miss 220, so a request 22 on average; a whole sample's reads
// add 1.5 µs to what it times, a clean tile's one read 1.5 µs to its 16 requests.
TEST(ServerStats, TheSamplesOwnDisturbanceIsTakenOutWithTheCleanTiles) {
  auto snapshot = [](uint64_t tiles) {
    return nlohmann::json{
        {"requests", 100000},
        {"cpu", {{"user_s", 2.2}, {"system_s", 0.0}}},
        {"cpu_sampled",
         {{"period", 20},
          {"clock_read_ns", 700},
          {"clock_reads", 9000},
          {"clean_tiles",
           {{"tiles", tiles}, {"requests", 16 * tiles}, {"cpu_ns", int64_t(tiles) * (16 * 22000 + 1500)}}},
          {"hit", {{"whole", {{"samples", 99}, {"weight", 1980}, {"cpu_ns", 1980 * 21500}}}}},
          {"miss", {{"whole", {{"samples", 1}, {"weight", 20}, {"cpu_ns", 20 * 221500}}}}}}}};
  };
  const nlohmann::json zero = {{"requests", 0}};
  const ServerDelta d = stats_delta(zero, snapshot(100));
  ASSERT_EQ(d.clean_tiles, 100u);
  ASSERT_TRUE(d.whole_sampled_cpu_us() && d.unobserved_cpu_us() && d.sample_excess_us());
  EXPECT_NEAR(*d.whole_sampled_cpu_us(), 23.5, 1e-9);
  EXPECT_NEAR(*d.unobserved_cpu_us(), 22.0, 1e-9);
  EXPECT_NEAR(*d.sample_excess_us(), 1.5, 1e-9);
  ASSERT_TRUE(d.sampled_hit.cpu_us() && d.unobserved_cpu_us(d.sampled_hit) && d.unobserved_cpu_us(d.sampled_miss));
  EXPECT_NEAR(*d.sampled_hit.cpu_us(), 21.5, 1e-9);
  EXPECT_NEAR(*d.unobserved_cpu_us(d.sampled_hit), 20.0, 1e-9);
  EXPECT_NEAR(*d.unobserved_cpu_us(d.sampled_miss), 220.0, 1e-9);
  // Too few clean tiles: no estimate, and the sampled figures stay as they are.
  const ServerDelta few = stats_delta(zero, snapshot(ServerDelta::kMinCleanTiles - 1));
  EXPECT_FALSE(few.unobserved_cpu_us());
  EXPECT_FALSE(few.sample_excess_us());
  ASSERT_TRUE(few.unobserved_cpu_us(few.sampled_hit));
  EXPECT_NEAR(*few.unobserved_cpu_us(few.sampled_hit), 21.5, 1e-9);
  // The sampling's cost: 9000 reads of 700 ns in 2.2 s of server CPU.
  ASSERT_TRUE(d.sampling_overhead());
  EXPECT_NEAR(*d.sampling_overhead(), 9000 * 700e-9 / 2.2, 1e-12);
}

// The access log's counters (/stats "log") over the window; the mode from log.mode, else the
// config's; a server without them has none.
TEST(ServerStats, AccessLogCountersAreDeltasAndAbsentFromOlderServers) {
  const auto before = nlohmann::json::parse(R"({"requests": 100, "config": {"log": "line"},
    "log": {"lines": 100, "bytes": 9000, "write_calls": 100, "write_errors": 0, "dropped_lines": 0,
            "dropped_bytes": 0}})");
  const auto after = nlohmann::json::parse(R"({"requests": 1100, "config": {"log": "buffered:64K"},
    "log": {"lines": 1100, "bytes": 99000, "write_calls": 102, "write_errors": 1, "dropped_lines": 3,
            "dropped_bytes": 270}})");
  ServerDelta d = stats_delta(before, after);
  ASSERT_TRUE(d.log);
  EXPECT_EQ(d.log->mode, "buffered:64K");
  EXPECT_EQ(d.log->path, "");
  EXPECT_EQ(d.log_lines, 1000u);
  EXPECT_EQ(d.log_bytes, 90000u);
  EXPECT_EQ(d.log_write_calls, 2u);
  EXPECT_EQ(d.log_write_errors, 1u);
  EXPECT_EQ(d.log_dropped_lines, 3u);
  EXPECT_EQ(d.log_dropped_bytes, 270u);
  EXPECT_FALSE(d.counters_reset);
  auto with_own = after;
  with_own["log"]["mode"] = "line";
  with_own["log"]["path"] = "/tmp/a.log";
  d = stats_delta(before, with_own);
  ASSERT_TRUE(d.log);
  EXPECT_EQ(d.log->mode, "line");
  EXPECT_EQ(d.log->path, "/tmp/a.log");
  const auto old = nlohmann::json::parse(R"({"requests": 5})");
  EXPECT_FALSE(stats_delta(old, old).log);
}

TEST(ServerStats, StoresWithoutRusageHaveNoCacheCpu) {
  const auto j = nlohmann::json::parse(R"({"requests": 5, "store": {"gets": 1}})");
  const ServerDelta d = stats_delta(j, j);
  EXPECT_FALSE(d.cache_cpu_s.has_value());
  EXPECT_EQ(d.server_cpu_us_per_req(), 0.0);
}

TEST(ServerStats, CountersGoingBackwardsAreFlagged) {
  const auto a = nlohmann::json::parse(R"({"requests": 500})");
  const auto b = nlohmann::json::parse(R"({"requests": 20})");
  EXPECT_TRUE(stats_delta(a, b).counters_reset);
}

TEST(ServerStats, NamespaceTokens) {
  EXPECT_EQ(namespace_token("struct:json+zlib"), "struct-json-zlib");
  EXPECT_EQ(namespace_token("HTML"), "html");
  EXPECT_EQ(namespace_token("php-memcached"), "php-memcached");
}

TEST(ServerStats, ProcStatHasEveryOnlineCpuAndTheyAddUp) {
  const auto m = hitcost::proc::read_machine_cpu();
  ASSERT_TRUE(m);
  const auto online = hitcost::proc::online_cpus();
  ASSERT_FALSE(online.empty());
  double busy = 0;
  for (int c : online) {
    ASSERT_LT(size_t(c), m->cpus.size());
    ASSERT_TRUE(m->cpus[size_t(c)]) << "cpu" << c;
    busy += m->cpus[size_t(c)]->busy();
  }
  EXPECT_GT(m->all.busy(), 0);
  EXPECT_NEAR(busy, m->all.busy(), 0.01 * m->all.busy() + 0.1);  // the "cpu" line sums the others
}

namespace {
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}
size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}
}  // namespace

TEST(ServerStats, SelfCpuCountsCpuBurnedInThisThread) {
  constexpr double kBurn = 0.2;  // s of this thread's CPU time
  const auto wall0 = std::chrono::steady_clock::now();
  const double self0 = self_cpu_s();
  const double t0 = thread_cpu_s();
  volatile uint64_t sink = 0;
  while (thread_cpu_s() - t0 < kBurn)
    for (int i = 0; i < 10000; ++i) sink = sink + uint64_t(i);
  const double self1 = self_cpu_s();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double burned = self1 - self0;
  // getrusage sums the exact run time of every thread, so the burn shows nearly whole
  // (10 % slack for rounding and accounting lag) ...
  EXPECT_GE(burned, 0.9 * kBurn) << "wall " << wall << " s";
  // ... and no process burns more CPU than its threads had wall time (+10 ms of slack).
  EXPECT_LE(burned, wall * double(thread_count()) + 0.01) << "wall " << wall << " s";
}

namespace {
// A loopback listening socket on a free port; nothing accepts on it unless answer_once runs.
struct Listener {
  UniqueFd fd{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  uint16_t port = 0;
  Listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (!fd || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd.get(), 4) != 0 ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port = ntohs(a.sin_port);
  }
  Endpoint endpoint() const { return parse_url("http://127.0.0.1:" + std::to_string(port)).value(); }
  // Accepts one connection, reads the request head, sends `raw` and closes.
  std::thread answer_once(std::string raw) {
    return std::thread([this, raw = std::move(raw)] {
      UniqueFd c(::accept(fd.get(), nullptr, nullptr));
      if (!c) return;
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(c.get(), buf, sizeof buf, 0);
        if (n <= 0) return;
        head.append(buf, size_t(n));
      }
      write_all(c.get(), raw.data(), raw.size());
    });
  }
};

hitcost::Result<nlohmann::json> fetch_answered(const std::string& raw) {
  Listener l;
  EXPECT_NE(l.port, 0);
  std::thread server = l.answer_once(raw);
  auto stats = fetch_stats(l.endpoint());
  server.join();
  return stats;
}
}  // namespace

TEST(ServerStats, FetchStatsParsesTheAnswer) {
  const auto stats = fetch_answered("HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"requests\": 5}");
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ((*stats)["requests"], 5);
}

// Each way GET /stats can fail has its own kind, and the message is the text printed before.
TEST(ServerStats, FetchStatsSaysWhatKindOfFailureItWas) {
  size_t checked = 0;
  {
    const auto stats = fetch_answered("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom");
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, Errc::server_error);
    EXPECT_EQ(stats.error().message, "GET /stats: HTTP 500: boom");
    ++checked;
  }
  {
    const auto stats = fetch_answered("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]");
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, Errc::parse_error);
    EXPECT_EQ(stats.error().message, "GET /stats: answer is not a JSON object");
    ++checked;
  }
  {
    const auto stats = fetch_answered("SSH-2.0-OpenSSH\r\n\r\n");
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, Errc::parse_error);
    EXPECT_EQ(stats.error().message, "GET /stats: malformed HTTP answer");
    ++checked;
  }
  {
    const auto stats = fetch_answered("");  // read the request, then closed without a word
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, Errc::connection);
    EXPECT_EQ(stats.error().message, "GET /stats: malformed HTTP answer");
    ++checked;
  }
  {
    Endpoint closed;
    {
      Listener gone;
      ASSERT_NE(gone.port, 0);
      closed = gone.endpoint();
    }  // nothing listens there any more
    const auto stats = fetch_stats(closed);
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().code, Errc::connection);
    EXPECT_EQ(stats.error().message, "GET /stats: connect to " + closed.host_header + ": Connection refused");
    ++checked;
  }
  EXPECT_EQ(checked, 5u);
}

// A server that takes the connection (the kernel's backlog) but never answers.
TEST(ServerStats, NoAnswerWithinTheTimeoutIsATimeout) {
  Listener silent;
  ASSERT_NE(silent.port, 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = http_request(silent.endpoint(), "GET", "/stats", {}, 200);
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r) << "an answer came: " << r->status;
  EXPECT_EQ(r.error().code, Errc::timeout) << r.error().message;
  EXPECT_EQ(r.error().message.rfind("recv: ", 0), 0u) << r.error().message;
  EXPECT_GE(waited_s, 0.15);
  EXPECT_LT(waited_s, 5.0);
}
