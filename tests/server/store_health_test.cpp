// What hitcost-server says about its start and its store, as a new user meets it: a --cpus
// CPU that is not online is a usage error (exit 2, the online CPUs named); every memcached
// node's state is printed before "listening on", and a down node (or all of them) does not
// stop the start; GET /healthz says "degraded" and names the node while one is down, "ok"
// once all answer; binary=1 serves hits. Real hitcost-server and memcached processes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proc/proc.h"
#include "stores/memcached_store.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Exit {
  int code = -1;  // -1: did not exit by itself within the timeout (then killed)
  std::string err;
};

// Runs hitcost-server with `args` until it exits (at most timeout_ms), stderr captured.
Exit run_server(const std::vector<std::string>& args, int timeout_ms = 5000) {
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) return {};
  std::vector<std::string> full = {server_binary()};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(err[1], 2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(err[1]);
  Exit e;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[512];
  for (;;) {
    pollfd p{err[0], POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the server exited
    e.err.append(buf, static_cast<size_t>(n));
  }
  ::close(err[0]);
  int status = 0;
  pid_t r = 0;
  while ((r = ::waitpid(pid, &status, WNOHANG)) == 0 && Clock::now() < deadline) ::usleep(10'000);
  if (r == 0) {  // still running: a start that should have been refused
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return e;
  }
  if (r == pid && WIFEXITED(status)) e.code = WEXITSTATUS(status);
  return e;
}

// A page id whose key ("hc:v1:pID:rROWS") the store places on node `node` of `spec`.
int64_t page_on_node(const std::string& spec, int node, uint32_t rows) {
  auto s = open_store(spec);
  EXPECT_TRUE(s.ok());
  if (!s.ok()) return -1;
  auto* mc = dynamic_cast<MemcachedStore*>(s->get());
  for (int64_t id = 0; id < 1000; ++id)
    if (mc->node_of("hc:v1:p" + std::to_string(id) + ":r" + std::to_string(rows)) == node) return id;
  return -1;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t eol; (eol = text.find('\n', from)) != std::string::npos; from = eol + 1)
    out.push_back(text.substr(from, eol - from));
  return out;
}

// The start-up lines about the store: those after the server's own "open files: ..." line,
// which is always first (server/start_checks.h).
std::vector<std::string> node_lines(const std::string& startup) {
  std::vector<std::string> lines = lines_of(startup);
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return lines;
  EXPECT_EQ(lines[0].rfind("open files: ", 0), 0u) << lines[0];
  lines.erase(lines.begin());
  return lines;
}

}  // namespace

TEST(ServerStart, ACpuThatIsNotOnlineIsAUsageErrorNamingTheOnlineCpus) {
  const std::vector<int> online = proc::online_cpus();
  ASSERT_FALSE(online.empty());
  const int offline = online.back() + 1;
  const Exit e = run_server({"--port", "0", "--cpus", "0," + std::to_string(offline)});
  EXPECT_EQ(e.code, 2) << e.err;
  EXPECT_EQ(e.err, "hitcost-server: --cpus: CPU " + std::to_string(offline) +
                       " is not online (online: " + proc::format_cpu_list(online) + ")\n");
}

TEST(ServerStart, EveryMemcachedNodeIsNamedAndADownOneDoesNotStopTheStart) {
  MemcachedProcess up;
  MemcachedProcess down;
  down.kill_now();  // its port: nothing listens there now
  const std::string spec = "memcached:" + up.address() + "," + down.address();
  ServerProcess server({"--store", spec, "--rows", "2"});
  const auto lines = node_lines(server.startup_output());
  ASSERT_EQ(lines.size(), 2u) << server.startup_output();
  EXPECT_EQ(lines[0].rfind("memcached " + up.address() + ": up (version ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1],
            "memcached " + down.address() + ": DOWN (connection refused); its keys are misses until it answers");

  // A page whose key lives on the down node: served from the origin, a miss every time.
  const int64_t on_down = page_on_node(spec, 1, 2), on_up = page_on_node(spec, 0, 2);
  ASSERT_GE(on_down, 0);
  ASSERT_GE(on_up, 0);
  HttpConnection conn(server.port());
  for (int i = 0; i < 2; ++i) {
    HttpResponse r = conn.get("/page/" + std::to_string(on_down));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache"), "miss") << "request " << i;
    EXPECT_FALSE(r.body.empty());
  }
  // The node that answers stores and serves as usual.
  EXPECT_EQ(conn.get("/page/" + std::to_string(on_up)).header("x-cache"), "miss");
  EXPECT_EQ(conn.get("/page/" + std::to_string(on_up)).header("x-cache"), "hit");
  json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["misses"], 3);
  EXPECT_EQ(stats["hits"], 1);
  EXPECT_GE(stats["store_errors"].get<uint64_t>(), 2u) << "the down node's gets (and sets) fail and are counted";
}

TEST(ServerStart, AllMemcachedNodesDownStillStartsAndServesFromTheOrigin) {
  MemcachedProcess a, b;
  a.kill_now();
  b.kill_now();
  ServerProcess server({"--store", "memcached:" + a.address() + "," + b.address(), "--rows", "2"});
  const auto lines = node_lines(server.startup_output());
  ASSERT_EQ(lines.size(), 2u) << server.startup_output();
  for (const auto& l : lines) EXPECT_NE(l.find(": DOWN (connection refused); "), std::string::npos) << l;
  for (int id : {1, 1, 2}) {
    HttpResponse r = http_get(server.port(), "/page/" + std::to_string(id));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache"), "miss");
  }
  HttpResponse h = http_get(server.port(), "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body.rfind("degraded: 2 of 2 memcached nodes down\n", 0), 0u) << h.body;
  EXPECT_TRUE(server.alive());
}

TEST(Healthz, DegradedNamesTheDownNodeAndTurnsOkWhenItAnswers) {
  MemcachedProcess up, later;
  later.kill_now();
  ServerProcess server({"--store", "memcached:" + up.address() + "," + later.address()});
  HttpResponse h = http_get(server.port(), "/healthz");
  EXPECT_EQ(h.status, 200);
  const auto lines = lines_of(h.body);
  ASSERT_EQ(lines.size(), 3u) << h.body;
  EXPECT_EQ(lines[0], "degraded: 1 of 2 memcached nodes down");
  EXPECT_EQ(lines[1].rfind("memcached " + up.address() + ": up (version ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2],
            "memcached " + later.address() + ": DOWN (connection refused); its keys are misses until it answers");

  later.start_again();
  h = http_get(server.port(), "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "ok\n");
}

TEST(Healthz, AFrozenNodeIsDegradedWithinTheStoreTimeout) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address() + "?timeout_ms=200"});
  ASSERT_EQ(http_get(server.port(), "/healthz").body, "ok\n");
  mc.pause();  // accepts connections (the kernel does), answers nothing
  const auto t0 = Clock::now();
  HttpResponse h = http_get(server.port(), "/healthz");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  mc.resume();
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "degraded: 1 of 1 memcached nodes down\nmemcached " + mc.address() +
                        ": DOWN (connected, but no answer to version within 200 ms); its keys are misses until it "
                        "answers\n");
  EXPECT_GE(ms, 190);
  EXPECT_LT(ms, 700) << "the probe is bounded by the store's timeout_ms";
  EXPECT_EQ(http_get(server.port(), "/healthz").body, "ok\n");
}

TEST(Healthz, EjectSaysTheOtherNodesTakeTheKeys) {
  MemcachedProcess up, down;
  down.kill_now();
  ServerProcess server({"--store", "memcached:" + up.address() + "," + down.address() + "?eject=1"});
  EXPECT_NE(server.startup_output().find("memcached " + down.address() +
                                         ": DOWN (connection refused); its keys go to the other nodes (eject=1) "
                                         "until it answers\n"),
            std::string::npos)
      << server.startup_output();
}

TEST(ServerStart, BinaryProtocolStoreProbesAndServesHits) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address() + "?binary=1", "--rows", "2"});
  const auto lines = node_lines(server.startup_output());
  ASSERT_EQ(lines.size(), 1u) << server.startup_output();
  EXPECT_EQ(lines[0].rfind("memcached " + mc.address() + ": up (version 1.", 0), 0u) << lines[0];
  HttpConnection conn(server.port());
  EXPECT_EQ(conn.get("/page/7").header("x-cache"), "miss");
  HttpResponse again = conn.get("/page/7");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.header("x-cache"), "hit");
  EXPECT_EQ(conn.get("/healthz").body, "ok\n");
  json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["store_errors"], 0);
}

TEST(ServerStart, NonMemcachedStoresPrintNoNodeLinesAndAreHealthy) {
  ServerProcess server({"--store", "memory"});
  EXPECT_TRUE(node_lines(server.startup_output()).empty()) << server.startup_output();
  EXPECT_EQ(http_get(server.port(), "/healthz").body, "ok\n");
  json stats = json::parse(http_get(server.port(), "/stats").body);
  EXPECT_EQ(stats["pin_failures"], 0);
}
