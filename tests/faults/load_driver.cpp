#include "tests/faults/load_driver.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "tests/support/http_client.h"

namespace hitcost::testing {

std::string expected_page(int64_t id, uint32_t rows) {
  PageSpec spec;
  spec.id = id;
  spec.rows = rows;
  return render_page(generate_page(spec));
}

const char* to_string(Sample::Outcome o) {
  switch (o) {
    case Sample::ok_hit: return "ok_hit";
    case Sample::ok_miss: return "ok_miss";
    case Sample::wrong_body: return "wrong_body";
    case Sample::bad_status: return "bad_status";
    case Sample::io_error: return "io_error";
  }
  return "?";
}

LoadDriver::LoadDriver(int port, int threads, int64_t keys, uint32_t rows)
    : port_(port), threads_(threads), keys_(keys), rows_(rows), per_thread_(static_cast<size_t>(threads)) {
  for (int64_t id = 0; id < keys; ++id) expected_.push_back(expected_page(id, rows));
}

LoadDriver::~LoadDriver() { stop(); }

void LoadDriver::start() {
  for (int t = 0; t < threads_; ++t) workers_.emplace_back([this, t] { run(t); });
}

void LoadDriver::stop() {
  stop_ = true;
  for (auto& w : workers_) w.join();
  workers_.clear();
}

void LoadDriver::run(int thread) {
  auto& out = per_thread_[static_cast<size_t>(thread)];
  std::unique_ptr<HttpConnection> conn;
  int64_t id = thread;  // threads walk the keys out of step
  const std::string rows = "?rows=" + std::to_string(rows_);
  while (!stop_) {
    Sample s;
    s.start = Clock::now();
    id = (id + 7) % keys_;
    try {
      if (!conn) conn = std::make_unique<HttpConnection>(port_, 5000);
      HttpResponse r = conn->get("/page/" + std::to_string(id) + rows);
      if (r.status != 200)
        s.outcome = Sample::bad_status;
      else if (r.body != expected_[static_cast<size_t>(id)])
        s.outcome = Sample::wrong_body;
      else
        s.outcome = r.header("x-cache") == "hit" ? Sample::ok_hit : Sample::ok_miss;
      if (r.header("connection") == "close") conn.reset();
    } catch (const std::exception&) {
      s.outcome = Sample::io_error;
      conn.reset();
    }
    s.micros =
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.start).count());
    out.push_back(s);
  }
}

std::vector<Sample> LoadDriver::samples() const {
  std::vector<Sample> all;
  for (auto& v : per_thread_) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end(), [](const Sample& a, const Sample& b) { return a.start < b.start; });
  return all;
}

std::map<Sample::Outcome, uint64_t> LoadDriver::count(Clock::time_point from, Clock::time_point to) const {
  std::map<Sample::Outcome, uint64_t> c;
  for (auto& v : per_thread_)
    for (auto& s : v)
      if (s.start >= from && s.start < to) ++c[s.outcome];
  return c;
}

Clock::time_point LoadDriver::first_hit_after(Clock::time_point t) const {
  Clock::time_point best = Clock::time_point::max();
  for (auto& v : per_thread_)
    for (auto& s : v)
      if (s.outcome == Sample::ok_hit && s.start >= t && s.start < best) best = s.start;
  return best;
}

uint32_t LoadDriver::max_micros(Clock::time_point from, Clock::time_point to) const {
  uint32_t m = 0;
  for (auto& v : per_thread_)
    for (auto& s : v)
      if (s.start >= from && s.start < to) m = std::max(m, s.micros);
  return m;
}

}  // namespace hitcost::testing
