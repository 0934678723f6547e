#pragma once
// Load from inside a fault test: a few threads, each on its own keep-alive connection,
// GET /page/{id} over a fixed key range, every body compared with the origin's rendering.
// Each request is recorded (start, duration, hit, outcome) so a test can ask what
// happened in a window (while memcached was down, after it came back).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hitcost::testing {

using Clock = std::chrono::steady_clock;

struct Sample {
  Clock::time_point start;
  uint32_t micros = 0;  // request duration
  enum Outcome : uint8_t { ok_hit, ok_miss, wrong_body, bad_status, io_error } outcome = io_error;
};

// The page the server must answer for (id, rows) under its defaults (seed 1, compressibility 1).
std::string expected_page(int64_t id, uint32_t rows);

class LoadDriver {
 public:
  LoadDriver(int port, int threads, int64_t keys, uint32_t rows);
  ~LoadDriver();  // stops
  void start();
  void stop();  // joins; samples are then stable

  std::vector<Sample> samples() const;  // all threads, sorted by start
  // Outcome counts over samples starting in [from, to).
  std::map<Sample::Outcome, uint64_t> count(Clock::time_point from, Clock::time_point to) const;
  // First hit starting at or after t, or Clock::time_point::max() when none.
  Clock::time_point first_hit_after(Clock::time_point t) const;
  uint32_t max_micros(Clock::time_point from, Clock::time_point to) const;

 private:
  void run(int thread);
  int port_;
  int threads_;
  int64_t keys_;
  uint32_t rows_;
  std::vector<std::string> expected_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
  std::vector<std::vector<Sample>> per_thread_;
};

const char* to_string(Sample::Outcome o);

}  // namespace hitcost::testing
