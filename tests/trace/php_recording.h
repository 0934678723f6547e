#pragma once
// A recording of real traffic for the trace tests: PHP's stock Memcached class drives `mc` with
// tests/trace/data/php_traffic.php (a Zipf key set; gets, sets, deletes; what it did per key in
// DIR/did.tsv) while trace/recorder.h records DIR/t.hctrace; the recorder is stopped once PHP is
// done and its last lines had time to arrive.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/command.h"
#include "tests/support/memcached_process.h"
#include "trace/recorder.h"

namespace hitcost::trace {

// memcached's options for a recorded test: log buffers larger than its defaults (256 KB per
// watcher, 64 KB per worker), so that a recorder slowed by the tests beside it (ctest -j2) does
// not make memcached drop lines; the tests assert that none was lost. A real recording reports
// what was lost instead.
inline std::vector<std::string> roomy_watch_buffers() {
  return {"-o", "watcher_logbuf_size=4096,worker_logbuf_size=1024"};
}

inline Result<RecordResult> record_php_traffic(const hitcost::testing::MemcachedProcess& mc,
                                               const std::filesystem::path& dir, bool keep_keys, int requests, int seed,
                                               size_t top_keys = 0) {
  std::atomic<bool> stop{false}, watching{false};
  RecordOptions o;
  o.address = mc.address();
  o.output_path = (dir / "t.hctrace").string();
  o.duration_s = 300;  // ended by `stop`
  o.baseline_s = 0;
  o.keep_keys = keep_keys;
  o.top_keys = top_keys;
  o.stop = &stop;
  o.after_watch_started = [&] { watching = true; };
  std::thread php([&] {
    while (!watching) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto r = hitcost::testing::run_command(
        {"php", std::string(HITCOST_SOURCE_DIR) + "/tests/trace/data/php_traffic.php", std::to_string(mc.port()),
         std::to_string(requests), std::to_string(seed), (dir / "did.tsv").string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    stop = true;
  });
  auto r = record(o);
  php.join();
  return r;
}

// PHP's traffic (`requests` steps, seed 5) recorded on a memcached of its own into DIR/t.hctrace,
// keys hashed: the trace the replay tests replay.
inline std::filesystem::path record_php_trace(const std::filesystem::path& dir, int requests) {
  hitcost::testing::MemcachedProcess mc(64, roomy_watch_buffers());
  auto r = record_php_traffic(mc, dir, /*keep_keys=*/false, requests, 5);
  EXPECT_TRUE(r) << r.error().message;
  return dir / "t.hctrace";
}

// A file's bytes (a run's JSON, a log).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace hitcost::trace
