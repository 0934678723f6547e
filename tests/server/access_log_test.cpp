// The access log's pieces without a server: the mode grammar, the line format and its escaping,
// the per-thread writer (lines whole under concurrency, a reopen splitting lines between two files
// without loss, a file size limit dropping and counting lines).
#include "server/access_log.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "server/log_mode.h"
#include "tests/stores/test_util.h"

using namespace hitcost;
using namespace hitcost::server;
using hitcost::testing::read_lines;

namespace {

LogMode mode(const char* text) {
  auto m = LogMode::parse(text);
  EXPECT_TRUE(m.ok()) << text << ": " << (m ? "" : m.error().message);
  return m ? *m : LogMode{};
}

// A line whose target names its thread and sequence number: /t<thread>/<seq>.
LogLine numbered_line(int thread, int seq) {
  static thread_local std::string target;
  target = "/t" + std::to_string(thread) + "/" + std::to_string(seq);
  LogLine l;
  l.peer = boost::asio::ip::make_address("127.0.0.1");
  l.method = "GET";
  l.target = target;
  l.status = 200;
  l.body_bytes = 1000 + static_cast<uint64_t>(seq);
  l.user_agent = "hitcost-test";
  l.cache = "hit";
  l.strategy = "html";
  l.service_us = 42;
  return l;
}

const std::regex kLineShape(
    R"(^127\.0\.0\.1 - - \[\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET /t(\d+)/(\d+) HTTP/1\.1" 200 (\d+) "-" "hitcost-test" hit html 42$)");

}  // namespace

TEST(LogMode, ParsesEveryKindAndWritesItBackCanonically) {
  const std::map<std::string, std::string> canonical = {
      {"off", "off"},
      {"line", "line"},
      {"buffered:64k", "buffered:64K"},
      {"buffered:65536", "buffered:64K"},
      {"buffered:1M+flush:250", "buffered:1M+flush:250"},
      {"buffered:4096+flush:1000", "buffered:4K"},
      {"buffered:64k+sync:1000", "buffered:64K+sync:interval:1000"},
      {"buffered:64k+sync:interval:50", "buffered:64K+sync:interval:50"},
      {"line+sync:each", "line+sync:each"},
      {"line+sync:none", "line"},
      {"buffered:100", "buffered:100"},
  };
  for (const auto& [text, want] : canonical) {
    EXPECT_EQ(mode(text.c_str()).to_string(), want) << text;
    EXPECT_EQ(mode(want.c_str()).to_string(), want) << "canonical text parses to itself: " << want;
  }
  EXPECT_EQ(mode("buffered:64k+sync:1000").sync.interval_ms, 1000u);
  EXPECT_EQ(mode("buffered:64k").buffer_bytes, 65536u);
  EXPECT_EQ(canonical.size(), 11u);
}

TEST(LogMode, RefusesBadTextNamingThePart) {
  const std::map<std::string, std::string> refused = {
      {"", "unknown kind"},
      {"lines", "unknown kind"},
      {"off+sync:each", "takes no options"},
      {"buffered:0", "1..64M"},
      {"buffered:65M", "1..64M"},
      {"buffered:lots", "1..64M"},
      {"line+flush:100", "buffered only"},
      {"buffered:4k+flush:0", "1..3600000"},
      {"buffered:4k+sync:sometimes", "unknown policy"},
      {"buffered:4k+compress", "unknown option"},
  };
  for (const auto& [text, why] : refused) {
    auto m = LogMode::parse(text);
    ASSERT_FALSE(m.ok()) << "'" << text << "' was accepted";
    EXPECT_NE(m.error().message.find(why), std::string::npos) << text << " -> " << m.error().message;
    EXPECT_EQ(m.error().code, Errc::invalid_argument);
  }
}

TEST(LogMode, StartupFlagsMakeLineBufferedOrOff) {
  auto line = LogMode::from_flags(true, 0, 1000, "none");
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(line->to_string(), "line");
  auto buffered = LogMode::from_flags(true, 64 << 10, 200, "interval:500");
  ASSERT_TRUE(buffered.ok());
  EXPECT_EQ(buffered->to_string(), "buffered:64K+flush:200+sync:interval:500");
  auto no_file = LogMode::from_flags(false, 64 << 10, 200, "each");
  ASSERT_TRUE(no_file.ok());
  EXPECT_FALSE(no_file->on());
  EXPECT_FALSE(LogMode::from_flags(true, 0, 1000, "every").ok());
  EXPECT_FALSE(LogMode::from_flags(true, 0, 0, "none").ok());
}

TEST(AccessLogLine, CombinedFormatWithCacheStrategyAndServiceTime) {
  LogLine l;
  l.peer = boost::asio::ip::make_address("10.1.2.3");
  l.method = "GET";
  l.target = "/page/7?rows=50";
  l.status = 200;
  l.body_bytes = 18234;
  l.referer = "http://example.test/";
  l.user_agent = "hitcost-load";
  l.cache = "miss";
  l.strategy = "struct:json+zlib";
  l.service_us = 431;
  std::string out;
  format_log_line(l, 1795305600, out);  // 2026-11-22 00:00:00 UTC
  EXPECT_EQ(out,
            "10.1.2.3 - - [22/Nov/2026:00:00:00 +0000] \"GET /page/7?rows=50 HTTP/1.1\" 200 18234 "
            "\"http://example.test/\" \"hitcost-load\" miss struct:json+zlib 431\n");
}

TEST(AccessLogLine, QuotesBackslashesAndControlBytesAreEscapedSoALineStaysOneLine) {
  LogLine l;
  l.peer = boost::asio::ip::make_address("127.0.0.1");
  l.method = "GET";
  l.target = "/a\"b";
  l.version = 10;
  l.status = 404;
  l.user_agent = std::string_view("x\ny\\z\x01\xff", 7);
  std::string out;
  format_log_line(l, 0, out);
  EXPECT_EQ(out,
            "127.0.0.1 - - [01/Jan/1970:00:00:00 +0000] \"GET /a\\x22b HTTP/1.0\" 404 0 \"-\" "
            "\"x\\x0Ay\\x5Cz\\x01\\xFF\" - - 0\n");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
}

TEST(AccessLogLine, AnUnparsedRequestIsADash) {
  LogLine l;
  l.status = 400;
  std::string out;
  format_log_line(l, 0, out);
  EXPECT_EQ(out, "- - - [01/Jan/1970:00:00:00 +0000] \"-\" 400 0 \"-\" \"-\" - - 0\n");
}

// 4 threads, each with its own writer and small buffer, all appending to one file: every line
// must come out whole, once, and each thread's lines in its order.
TEST(AccessLogWriter, FourThreadsNeverInterleaveLines) {
  hitcost::testing::TempDir dir;
  const std::string path = dir.file("access.log");
  constexpr int kThreads = 4, kLines = 20000;
  MetricsRegistry metrics(kThreads);
  AccessLogFile file(path, [] { return SyncPolicy{}; });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Thread 0 writes a line per write(2); the others buffer 4 KiB (about 40 lines a write).
      const LogMode m = t == 0 ? mode("line") : mode("buffered:4k");
      AccessLogWriter w(file, metrics.thread(static_cast<size_t>(t)));
      for (int i = 0; i < kLines; ++i) w.log(m, numbered_line(t, i));
      w.flush(m.sync);
    });
  for (auto& th : threads) th.join();

  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), size_t{kThreads} * kLines);
  std::vector<int> next(kThreads, 0);
  size_t checked = 0;
  for (const std::string& l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, kLineShape)) << "torn or glued line: " << l;
    const int t = std::stoi(m[1]), seq = std::stoi(m[2]);
    ASSERT_LT(t, kThreads);
    EXPECT_EQ(seq, next[static_cast<size_t>(t)]) << "thread " << t << " out of order";
    EXPECT_EQ(std::stoi(m[3]), 1000 + seq);
    next[static_cast<size_t>(t)] = seq + 1;
    ++checked;
  }
  EXPECT_EQ(checked, size_t{kThreads} * kLines);
  const MetricsSnapshot s = metrics.total();
  EXPECT_EQ(s.log_lines, uint64_t{kThreads} * kLines);
  EXPECT_EQ(s.log_bytes, std::filesystem::file_size(path));
  // Line mode: one write per line; buffered: far fewer than lines.
  EXPECT_EQ(metrics.thread(0).log_write_calls.get(), uint64_t{kLines});
  for (size_t t = 1; t < kThreads; ++t) EXPECT_LT(metrics.thread(t).log_write_calls.get(), uint64_t{kLines} / 20);
  EXPECT_EQ(s.log_dropped_lines, 0u);
}

// logrotate renames the file, then sends SIGHUP: lines before the reopen stay in the renamed file,
// lines after go to the new one, buffered lines included; none is lost or written twice.
TEST(AccessLogWriter, ReopenAfterRenameSplitsLinesWithoutLossOrDuplicate) {
  hitcost::testing::TempDir dir;
  const std::string path = dir.file("access.log");
  MetricsRegistry metrics(1);
  AccessLogFile file(path, [] { return SyncPolicy{}; });
  AccessLogWriter w(file, metrics.thread(0));
  const LogMode m = mode("buffered:1k");
  int seq = 0;
  for (; seq < 100; ++seq) w.log(m, numbered_line(0, seq));
  std::filesystem::rename(path, path + ".1");
  for (; seq < 150; ++seq) w.log(m, numbered_line(0, seq));  // still the old descriptor
  ASSERT_EQ(file.reopen(), 0);
  for (; seq < 300; ++seq) w.log(m, numbered_line(0, seq));
  w.flush(m.sync);

  std::vector<std::string> all = read_lines(path + ".1");
  const size_t in_old = all.size();
  for (auto& l : read_lines(path)) all.push_back(l);
  EXPECT_GE(in_old, 100u);
  EXPECT_LT(in_old, 300u);
  ASSERT_EQ(all.size(), 300u);
  for (size_t i = 0; i < all.size(); ++i) {
    std::smatch sm;
    ASSERT_TRUE(std::regex_match(all[i], sm, kLineShape)) << all[i];
    EXPECT_EQ(std::stoi(sm[2]), static_cast<int>(i)) << "line " << i;
  }
  EXPECT_EQ(file.reopens(), 1u);
}

// A file that cannot grow (RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC): lines are dropped
// and counted, the writer goes on. In a child process, so the limit touches nothing else.
TEST(AccessLogWriter, AFileThatCannotGrowDropsAndCountsLines) {
  hitcost::testing::TempDir dir;
  const std::string path = dir.file("access.log");
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{8192, 8192};
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(3);
    MetricsRegistry metrics(1);
    AccessLogFile file(path, [] { return SyncPolicy{}; });
    AccessLogWriter w(file, metrics.thread(0));
    for (int i = 0; i < 500; ++i) w.log(mode("line"), numbered_line(0, i));
    const MetricsSnapshot s = metrics.total();
    const uint64_t figures[4] = {s.log_lines, s.log_dropped_lines, s.log_write_errors,
                                 static_cast<uint64_t>(file.last_error())};
    if (::write(report[1], figures, sizeof figures) != sizeof figures) ::_exit(4);
    ::_exit(0);
  }
  ::close(report[1]);
  uint64_t figures[4] = {};
  ASSERT_EQ(::read(report[0], figures, sizeof figures), static_cast<ssize_t>(sizeof figures));
  ::close(report[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const auto [written, dropped, errors, last_error] = figures;
  EXPECT_EQ(written + dropped, 500u);
  EXPECT_GT(dropped, 400u);    // ~100-byte lines, 8 KiB of file
  EXPECT_EQ(errors, dropped);  // line mode: each dropped line is one failed write
  EXPECT_EQ(last_error, uint64_t{EFBIG});
  // What was written is whole lines, and at most one more that a short write cut (dropped).
  const auto lines = read_lines(path);
  EXPECT_TRUE(lines.size() == written || lines.size() == written + 1) << lines.size() << " lines, " << written;
  EXPECT_LE(std::filesystem::file_size(path), 8192u);
  size_t whole = 0;
  for (const auto& l : lines) whole += std::regex_match(l, kLineShape) ? 1 : 0;
  EXPECT_EQ(whole, written);
}
