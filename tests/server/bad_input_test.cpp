// Bad input gets a status and a reason, is counted, and the server keeps serving.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/http_client.h"
#include "tests/support/sanitizer.h"
#include "tests/support/server_process.h"

using namespace hitcost::testing;
using nlohmann::json;

namespace {

HttpResponse raw_exchange(int port, const std::string& bytes) {
  HttpConnection c(port);
  c.send_raw(bytes);
  return c.read_response();
}

void expect_still_serving(int port) {
  HttpResponse r = http_get(port, "/page/1");
  EXPECT_EQ(r.status, 200);
}

}  // namespace

TEST(BadInput, MalformedRequestLineIs400) {
  ServerProcess server({"--rows", "2"});
  HttpResponse r = raw_exchange(server.port(), "GARBAGE\r\n\r\n");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("bad request"), std::string::npos);
  EXPECT_EQ(r.header("connection"), "close");
  expect_still_serving(server.port());
  json s = json::parse(http_get(server.port(), "/stats").body);
  EXPECT_EQ(s["responses_by_status"]["400"], 1);
  EXPECT_EQ(s["bad_requests"], 1);
}

TEST(BadInput, UnknownMethodIs405) {
  ServerProcess server({"--rows", "2"});
  HttpResponse r = raw_exchange(server.port(), "BREW /page/1 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 405);
  HttpResponse d = raw_exchange(server.port(), "PATCH /page/1 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(d.status, 405);
  EXPECT_EQ(d.header("allow"), "GET, PUT, DELETE");
  expect_still_serving(server.port());
}

TEST(BadInput, AbsurdIdsAndRows) {
  ServerProcess server({"--rows", "2", "--max-id", "1000", "--max-rows", "100"});
  EXPECT_EQ(http_get(server.port(), "/page/abc").status, 400);
  EXPECT_EQ(http_get(server.port(), "/page/-1").status, 400);
  EXPECT_EQ(http_get(server.port(), "/page/99999999999999999999999").status, 400);
  EXPECT_EQ(http_get(server.port(), "/page/1001").status, 404);
  EXPECT_EQ(http_get(server.port(), "/page/").status, 400);
  EXPECT_EQ(http_get(server.port(), "/page/1?rows=101").status, 400);
  EXPECT_EQ(http_get(server.port(), "/page/1?rows=x").status, 400);
  EXPECT_EQ(http_get(server.port(), "/nowhere").status, 404);
  expect_still_serving(server.port());
  json s = json::parse(http_get(server.port(), "/stats").body);
  EXPECT_EQ(s["bad_requests"], 8);
}

TEST(BadInput, OversizedHeaderIs431) {
  ServerProcess server({"--rows", "2", "--header-limit", "1024"});
  std::string big(4000, 'a');
  HttpResponse r = raw_exchange(server.port(), "GET /page/1 HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n");
  EXPECT_EQ(r.status, 431);
  expect_still_serving(server.port());
}

TEST(BadInput, OversizedBodyIs413) {
  ServerProcess server({"--rows", "2", "--body-limit", "100"});
  std::string body(1000, '{');
  HttpResponse r =
      raw_exchange(server.port(), "POST /admin/config HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + body);
  EXPECT_EQ(r.status, 413);
  expect_still_serving(server.port());
}

TEST(BadInput, SlowClientGets408AndIdleConnectionIsClosed) {
  ServerProcess server({"--rows", "2", "--idle-timeout-ms", "300"});
  HttpConnection slow(server.port());
  slow.send_raw("GET /page/1 HTTP/1.1\r\nHo");  // and then nothing
  auto t0 = std::chrono::steady_clock::now();
  HttpResponse r = slow.read_response();
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 408);
  EXPECT_LT(waited, 2.0);  // dropped on time (limit 0.3 s + sweep period), not after the 5 s client timeout

  HttpConnection idle(server.port());
  ASSERT_EQ(idle.get("/healthz").status, 200);
  EXPECT_TRUE(idle.closed_by_peer(2000));  // idle keep-alive: closed without a response
  expect_still_serving(server.port());
  json s = json::parse(http_get(server.port(), "/stats").body);
  EXPECT_EQ(s["responses_by_status"]["408"], 1);
}

TEST(BadInput, BadAdminConfigIs400WithAReason) {
  ServerProcess server({"--rows", "2"});
  HttpResponse r = http_post(server.port(), "/admin/config", "not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("JSON"), std::string::npos);
  EXPECT_EQ(http_post(server.port(), "/admin/config", R"({"rows":-3})").status, 400);
  EXPECT_EQ(http_post(server.port(), "/admin/config", R"({"colour":"red"})").status, 400);
  EXPECT_EQ(http_post(server.port(), "/admin/config", R"({"store":"floppy:/dev/fd0"})").status, 400);
  EXPECT_EQ(http_get(server.port(), "/admin/config").status, 405);
  expect_still_serving(server.port());
}

// Regression (issue 30): a store switch to a file that is not a store file rewrote it into a
// 64 MiB store. Now a 400 with the reason, the config unchanged, the file byte for byte as it was.
TEST(BadInput, StoreSwitchToAFileThatIsNotAStoreIs400AndLeavesItAsItWas) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hitcost-bad-store-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string precious = (dir / "precious.txt").string(), fresh = (dir / "fresh.dat").string();
  const std::string text = "a file of someone's\n";
  std::ofstream(precious, std::ios::binary) << text;
  const timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, precious.c_str(), past, 0), 0);
  ServerProcess server({"--rows", "2"});
  size_t refused = 0;
  for (const std::string& spec : {"mmap:" + precious, "pread:" + precious + "?create=1", "mmap:" + fresh}) {
    HttpResponse r = http_post(server.port(), "/admin/config", json{{"store", spec}}.dump());
    EXPECT_EQ(r.status, 400) << spec;
    const char* why = spec == "mmap:" + fresh ? "does not exist; ?create=1" : "not a hitcost store file";
    EXPECT_NE(r.body.find(why), std::string::npos) << spec << ": " << r.body;
    ++refused;
  }
  EXPECT_EQ(refused, 3u);
  EXPECT_EQ(json::parse(http_get(server.port(), "/stats").body)["config"]["store"], "memory");
  struct stat st {};
  ASSERT_EQ(::stat(precious.c_str(), &st), 0);
  std::ifstream in(precious, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), text);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  // With create=1 a new path becomes a store, and the server serves from it.
  HttpResponse made =
      http_post(server.port(), "/admin/config", json{{"store", "mmap:" + fresh + "?size=1M&create=1"}}.dump());
  EXPECT_EQ(made.status, 200) << made.body;
  EXPECT_EQ(std::filesystem::file_size(fresh), (1u << 20) + 4096);
  expect_still_serving(server.port());
  std::filesystem::remove_all(dir);
}

// Slowloris: a client that keeps the connection busy with one byte every 100 ms never
// completes a request; the idle limit covers the whole request, not the gap between
// bytes, so it is dropped within --idle-timeout-ms (+ the 100 ms sweep, + slack).
TEST(BadInput, TricklingClientIsDroppedWithinTheIdleTimeout) {
  ServerProcess server({"--rows", "2", "--idle-timeout-ms", "500"});
  HttpConnection slow(server.port(), 3000);
  const std::string request = "GET /page/1 HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(200, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  bool dropped = false;
  for (char c : request) {
    try {
      slow.send_raw(std::string(1, c));
    } catch (const std::exception&) {
      dropped = true;  // the server closed: the send failed
      break;
    }
    const auto w0 = std::chrono::steady_clock::now();
    if (slow.closed_by_peer(100)) {  // waits up to 100 ms: the trickle's pace
      dropped = true;
      break;
    }
    if (std::chrono::steady_clock::now() - w0 < std::chrono::milliseconds(90)) {
      EXPECT_EQ(slow.read_response().status, 408);  // something arrived early: the 408
      dropped = slow.closed_by_peer(1000);
      break;
    }
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(dropped) << "a trickling client kept its connection for " << waited << " s";
  // The idle limit, then the 100 ms sweep and the trickle's 100 ms pace, plus scheduling slack
  // (scaled under the sanitizers, where the server's every step is slower).
  EXPECT_LT(waited, 0.5 + 0.1 + 0.1 + 0.1 * hitcost::testing::kSlackScale);
  expect_still_serving(server.port());
}
