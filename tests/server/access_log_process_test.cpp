// The access log in a real hitcost-server: a line per request that says what the cache did, no
// line lost across a logrotate-style rename + SIGHUP under load, a full disk that drops and counts
// lines while every request is still answered, the sync policies (the server's fdatasync calls
// observed through a preloaded probe, tests/support/sync_probe.h, and /stats agreeing with them),
// and the mode switched at run time. SERIAL (tests/server/CMakeLists.txt): sync counts against
// wall time.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/faults/load_driver.h"
#include "tests/stores/test_util.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"
#include "tests/support/sync_probe.h"

using namespace hitcost::testing;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

json stats(int port) { return json::parse(http_get(port, "/stats").body); }

// peer - - [time] "METHOD TARGET HTTP/1.1" STATUS BYTES "referer" "agent" CACHE STRATEGY US
const std::regex kLine(
    R"(^127\.0\.0\.1 - - \[[^\]]+\] "(\S+) (\S+) HTTP/1\.1" (\d{3}) (\d+) "[^"]*" "[^"]*" (hit|miss|-) (\S+) (\d+)$)");

void stop_server(ServerProcess& s) {
  s.signal(SIGTERM);
  const int status = s.wait_exit(10000);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// `n` pages over one connection, ids 0..distinct-1 in turn; each must be a 200.
void get_pages(const ServerProcess& s, int n, int distinct) {
  HttpConnection c(s.port());
  for (int i = 0; i < n; ++i) ASSERT_EQ(c.get("/page/" + std::to_string(i % distinct)).status, 200) << "page " << i;
}

}  // namespace

TEST(AccessLogServer, OneLinePerRequestSaysWhatTheCacheDid) {
  TempDir dir;
  const std::string log = dir.file("access.log");
  ServerProcess s({"--access-log", log, "--rows", "5"});
  std::vector<std::string> cache_seen;
  {
    HttpConnection c(s.port());
    for (int i = 0; i < 20; ++i) cache_seen.push_back(c.get("/page/" + std::to_string(i % 5)).header("x-cache"));
    EXPECT_EQ(c.get("/page/abc").status, 400);
  }
  const json st = stats(s.port());
  EXPECT_EQ(st["log"]["mode"], "line");
  EXPECT_EQ(st["log"]["path"], log);
  EXPECT_EQ(st["log"]["lines"], 21);
  EXPECT_EQ(st["log"]["write_calls"], 21);  // line mode: a write(2) per line
  EXPECT_EQ(st["phases_ns"]["log"]["count"], 21);
  stop_server(s);

  const auto lines = read_lines(log);
  ASSERT_EQ(lines.size(), 22u);  // and the /stats request's own line
  size_t checked = 0;
  for (size_t i = 0; i < 20; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, kLine)) << lines[i];
    EXPECT_EQ(m[2], "/page/" + std::to_string(i % 5));
    EXPECT_EQ(m[3], "200");
    EXPECT_EQ(m[5], cache_seen[i]) << "line " << i << " says a different cache outcome than X-Cache";
    EXPECT_EQ(m[5], i < 5 ? "miss" : "hit");
    EXPECT_EQ(m[6], "html");
    ++checked;
  }
  std::smatch bad;
  ASSERT_TRUE(std::regex_match(lines[20], bad, kLine)) << lines[20];
  EXPECT_EQ(bad[3], "400");
  EXPECT_EQ(bad[5], "-");
  EXPECT_EQ(checked, 20u);
}

// What logrotate does (rename, then SIGHUP), six times while two threads serve load through 4 KiB
// buffers: the lines of all seven files are exactly the requests answered.
// Issue 30: a server never clobbers a file. The access log is opened O_APPEND|O_CREAT, never
// O_TRUNC: an existing file (yesterday's log, or any file named by mistake) keeps every byte, and
// the server's lines follow them.
TEST(AccessLogServer, ExistingFileKeepsItsBytesAndIsAppendedTo) {
  TempDir dir;
  const std::string log = dir.file("access.log");
  std::string before;
  for (int i = 0; i < 100; ++i) before += "yesterday's line " + std::to_string(i) + "\n";
  before += "a last line without its newline";
  { std::ofstream(log, std::ios::binary) << before; }
  size_t requests = 0;
  for (int start = 0; start < 2; ++start) {  // and again after a restart: appended, not rewritten
    ServerProcess s({"--access-log", log, "--rows", "2"});
    HttpConnection c(s.port());
    for (int i = 0; i < 5; ++i, ++requests) ASSERT_EQ(c.get("/page/" + std::to_string(i)).status, 200);
    stop_server(s);
  }
  std::ifstream in(log, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(after.size(), before.size());
  EXPECT_EQ(after.substr(0, before.size()), before) << "the file's own bytes changed";
  // What follows is the server's lines: the first continues the unterminated last line.
  const std::string added = after.substr(before.size());
  size_t lines = 0;
  for (size_t at = 0; (at = added.find("\"GET /page/", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, requests) << added;
  EXPECT_EQ(requests, 10u);
}

TEST(AccessLogServer, ReopenUnderLoadLosesNoLine) {
  TempDir dir;
  const std::string log = dir.file("access.log");
  ServerProcess s({"--access-log", log, "--log-buffer", "4k", "--threads", "2", "--rows", "5"});
  LoadDriver load(s.port(), 2, 50, 5);
  load.start();
  std::vector<std::string> files;
  for (int k = 1; k <= 6; ++k) {
    std::this_thread::sleep_for(150ms);
    const std::string rotated = log + "." + std::to_string(k);
    std::filesystem::rename(log, rotated);
    files.push_back(rotated);
    s.signal(SIGHUP);
  }
  std::this_thread::sleep_for(150ms);
  load.stop();
  const json st = stats(s.port());
  EXPECT_EQ(st["log"]["reopens"], 6);
  stop_server(s);  // the drain writes what the threads still buffer
  files.push_back(log);

  const auto samples = load.samples();
  for (const Sample& x : samples) ASSERT_TRUE(x.outcome == Sample::ok_hit || x.outcome == Sample::ok_miss);
  size_t lines = 0, page_lines = 0, files_with_lines = 0;
  for (const auto& f : files) {
    const auto in_file = read_lines(f);
    files_with_lines += in_file.empty() ? 0 : 1;
    for (const auto& l : in_file) {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(l, m, kLine)) << f << ": " << l;
      page_lines += m[2].str().starts_with("/page/") ? 1 : 0;
      ++lines;
    }
  }
  ASSERT_GT(samples.size(), 500u) << "too little load to say anything";
  EXPECT_EQ(page_lines, samples.size()) << "lines lost or written twice across the reopens";
  EXPECT_EQ(lines, page_lines + 1);  // the /stats request
  EXPECT_GE(files_with_lines, 6u);
}

// A log on a 64 KiB tmpfs (a mount namespace of the server's own, gone with it; as non-root a file
// size limit instead): lines are dropped and counted, and every request is still answered.
TEST(AccessLogServer, FullDiskDropsAndCountsLinesAndEveryRequestIsAnswered) {
  TempDir dir;
  const std::string mount_point = dir.file("logfs");
  std::filesystem::create_directory(mount_point);
  const std::string log = mount_point + "/access.log";
  const bool root = ::geteuid() == 0;
  std::vector<std::string> wrapper =
      root ? std::vector<std::string>{"unshare",
                                      "--mount",
                                      "--propagation",
                                      "private",
                                      "sh",
                                      "-c",
                                      "mount -t tmpfs -o size=64k hitcost-log \"$0\" && exec \"$@\"",
                                      mount_point}
           : std::vector<std::string>{"prlimit", "--fsize=65536", "--"};
  ServerProcess s({"--access-log", log, "--rows", "5"}, wrapper);
  constexpr int kRequests = 1500;  // ~100-byte lines: about twice what 64 KiB holds
  int answered = 0;
  {
    HttpConnection c(s.port());
    for (int i = 0; i < kRequests; ++i) answered += c.get("/page/" + std::to_string(i % 20)).status == 200 ? 1 : 0;
  }
  EXPECT_EQ(answered, kRequests);
  const json st = stats(s.port());
  const uint64_t lines = st["log"]["lines"], dropped = st["log"]["dropped_lines"];
  EXPECT_EQ(lines + dropped, uint64_t{kRequests});
  EXPECT_GT(dropped, 500u);
  EXPECT_GT(lines, 300u);
  EXPECT_EQ(st["log"]["write_errors"], dropped);
  EXPECT_EQ(st["log"]["last_error"], root ? std::strerror(ENOSPC) : std::strerror(EFBIG));
  EXPECT_EQ(http_get(s.port(), "/page/1").status, 200) << "still serving";
  // The file as the server sees it (its own mount namespace): whole lines, as many as counted.
  const auto in_file = read_lines("/proc/" + std::to_string(s.pid()) + "/root" + log);
  size_t whole = 0;
  for (const auto& l : in_file) whole += std::regex_match(l, kLine) ? 1 : 0;
  EXPECT_EQ(whole, lines);
  stop_server(s);
}

TEST(AccessLogServer, SyncNoneNeverCallsFdatasync) {
  TempDir dir;
  const std::string log = dir.file("access.log"), probe = dir.file("syncs.probe");
  ServerProcess s({"--access-log", log, "--log-sync", "none", "--rows", "5"}, sync_probe_wrapper(probe));
  ASSERT_NO_FATAL_FAILURE(get_pages(s, 50, 10));
  const json st = stats(s.port());
  EXPECT_EQ(st["log"]["write_calls"], 50);
  EXPECT_EQ(st["log"]["sync"]["calls"], 0);
  stop_server(s);
  EXPECT_EQ(read_lines(log).size(), 51u) << "50 pages and the /stats";
  EXPECT_EQ(recorded_syncs_on(probe, log), 0u) << "fdatasync called under --log-sync none (also at exit)";
}

TEST(AccessLogServer, SyncEachMakesOneFdatasyncPerWrite) {
  TempDir dir;
  const std::string log = dir.file("access.log"), probe = dir.file("syncs.probe");
  ServerProcess s({"--access-log", log, "--log-sync", "each", "--rows", "5"}, sync_probe_wrapper(probe));
  ASSERT_NO_FATAL_FAILURE(get_pages(s, 100, 10));
  const json st = stats(s.port());
  EXPECT_EQ(st["log"]["mode"], "line+sync:each");
  EXPECT_EQ(st["log"]["write_calls"], 100);
  EXPECT_EQ(st["log"]["sync"]["calls"], 100);
  // The /stats request's own line is written and synced too, perhaps before the probe is read.
  const uint64_t made = recorded_syncs_on(probe, log);
  EXPECT_GE(made, 100u) << "fdatasync calls the server made on the log";
  EXPECT_LE(made, 101u);
  EXPECT_EQ(st["log"]["sync"]["errors"], 0);
  uint64_t in_buckets = 0;
  for (const auto& b : st["log"]["sync"]["log2_buckets"]) in_buckets += b.get<uint64_t>();
  EXPECT_EQ(in_buckets, 100u);
  EXPECT_GT(st["log"]["sync"]["sum_ns"].get<uint64_t>(), 0u);
  stop_server(s);
}

// interval:50 under continuous load: about one sync per 50 ms (plus the sync's own time), none
// while idle.
TEST(AccessLogServer, IntervalSyncRunsAboutOncePerIntervalAndNotWhenIdle) {
  TempDir dir;
  const std::string log = dir.file("access.log"), probe = dir.file("syncs.probe");
  ServerProcess s({"--access-log", log, "--log-sync", "interval:50", "--rows", "5"}, sync_probe_wrapper(probe));
  std::this_thread::sleep_for(300ms);
  // Read first: the /stats request below is logged, and its line synced by the next tick.
  EXPECT_EQ(recorded_syncs_on(probe, log), 0u) << "nothing written, yet fdatasync called";
  EXPECT_EQ(stats(s.port())["log"]["sync"]["calls"], 0) << "nothing written: nothing to sync";
  const auto t0 = std::chrono::steady_clock::now();
  LoadDriver load(s.port(), 1, 50, 5);
  load.start();
  std::this_thread::sleep_for(1500ms);
  load.stop();
  const json st = stats(s.port());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double calls = st["log"]["sync"]["calls"].get<double>();
  ASSERT_GT(calls, 0);
  // A tick waits the interval, then syncs: the slowest rate is one per interval plus the mean
  // sync measured here (a slow disk or a sanitizer can make a sync outlast the interval).
  const double mean_sync_ms = st["log"]["sync"]["sum_ns"].get<double>() / 1e6 / calls;
  const double expected = ms / 50, expected_slowest = ms / (50 + mean_sync_ms);
  EXPECT_GT(calls, 0.5 * expected_slowest) << calls << " syncs in " << ms << " ms, mean sync " << mean_sync_ms;
  EXPECT_LT(calls, 1.3 * expected) << calls << " syncs in " << ms << " ms";
  EXPECT_LT(calls, st["log"]["write_calls"].get<double>() / 10) << "interval syncs are batched";
  // Idle again: every sync /stats counts is an fdatasync made on the log. The /stats request's
  // own line is synced by the tick after it, so the calls made may be one more.
  std::this_thread::sleep_for(300ms);
  const uint64_t counted = stats(s.port())["log"]["sync"]["calls"].get<uint64_t>();
  std::this_thread::sleep_for(200ms);
  const uint64_t made = recorded_syncs_on(probe, log);
  EXPECT_GE(made, counted) << "syncs counted in /stats but never made";
  EXPECT_LE(made, counted + 1);
  stop_server(s);
}

// nginx's flush=: a quiet server does not hold buffered lines for ever, and they go in one write.
TEST(AccessLogServer, BufferedLinesAreWrittenOnTimeOnAQuietServer) {
  TempDir dir;
  const std::string log = dir.file("access.log");
  ServerProcess s({"--access-log", log, "--log-buffer", "64k", "--log-flush-ms", "1000", "--rows", "5"});
  ASSERT_NO_FATAL_FAILURE(get_pages(s, 3, 3));
  EXPECT_EQ(read_lines(log).size(), 0u) << "buffered: nothing written yet";
  size_t lines = 0;
  for (int i = 0; i < 40 && lines < 3; ++i) {
    std::this_thread::sleep_for(100ms);
    lines = read_lines(log).size();
  }
  EXPECT_EQ(lines, 3u);
  EXPECT_EQ(stats(s.port())["log"]["write_calls"], 1) << "the three lines in one write(2)";
  stop_server(s);
}

TEST(AccessLogServer, ModeSwitchesAtRunTimeAndNeedsAFile) {
  {
    ServerProcess none({"--rows", "5"});
    const auto refused = http_post(none.port(), "/admin/config", R"({"log":"line"})");
    EXPECT_EQ(refused.status, 400);
    EXPECT_NE(refused.body.find("--access-log"), std::string::npos) << refused.body;
    EXPECT_EQ(http_post(none.port(), "/admin/config", R"({"log":"off"})").status, 200);
    EXPECT_EQ(stats(none.port())["log"]["mode"], "off");
  }
  TempDir dir;
  const std::string log = dir.file("access.log");
  ServerProcess s({"--access-log", log, "--rows", "5"});
  const auto switched = http_post(s.port(), "/admin/config", R"({"log":"buffered:64k+sync:1000"})");
  ASSERT_EQ(switched.status, 200) << switched.body;
  EXPECT_EQ(json::parse(switched.body)["log"], "buffered:64K+sync:interval:1000");
  EXPECT_EQ(stats(s.port())["log"]["mode"], "buffered:64K+sync:interval:1000");
  const auto bad = http_post(s.port(), "/admin/config", R"({"log":"buffered:0"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("buffer size"), std::string::npos) << bad.body;
  // Buffered with an hour's flush: lines wait in the io threads' buffers ...
  ASSERT_EQ(http_post(s.port(), "/admin/config", R"({"log":"buffered:64k+flush:3600000"})").status, 200);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(http_get(s.port(), "/page/2").status, 200);
  const auto count = [&](const std::string& target) {
    size_t n = 0;
    for (const auto& l : read_lines(log)) n += l.find("\"GET " + target + " ") != std::string::npos ? 1 : 0;
    return n;
  };
  EXPECT_EQ(count("/page/2"), 0u) << "buffered for an hour, yet written";
  // ... and switching logging off writes them (each thread at its next sweep), not drops them.
  ASSERT_EQ(http_post(s.port(), "/admin/config", R"({"log":"off"})").status, 200);
  for (int i = 0; i < 50 && count("/page/2") < 5; ++i) std::this_thread::sleep_for(100ms);
  EXPECT_EQ(count("/page/2"), 5u) << "the buffered lines were not written when logging was switched off";
  for (int i = 0; i < 5; ++i) ASSERT_EQ(http_get(s.port(), "/page/1").status, 200);
  stop_server(s);
  EXPECT_EQ(count("/page/2"), 5u);
  EXPECT_EQ(count("/page/1"), 0u) << "requests made while off were logged";
}
