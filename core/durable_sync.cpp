#include "core/durable_sync.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

#include "core/clock.h"

namespace hitcost {

Result<SyncPolicy> SyncPolicy::parse(std::string_view text) {
  auto bad = [&](const char* why) {
    return Error{Errc::invalid_argument,
                 "sync policy '" + std::string(text) + "': " + why + " (none | each | interval:MS)"};
  };
  if (text == "none") return SyncPolicy{};
  if (text == "each") return SyncPolicy{Kind::each, 0};
  constexpr std::string_view kInterval = "interval:";
  if (!text.starts_with(kInterval)) return bad("unknown policy");
  const std::string_view ms = text.substr(kInterval.size());
  uint32_t n = 0;
  auto [p, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), n);
  if (ms.empty() || ec != std::errc{} || p != ms.data() + ms.size()) return bad("MS is not a whole number");
  if (n < 1 || n > 3'600'000) return bad("MS must be 1..3600000");
  return SyncPolicy{Kind::interval, n};
}

std::string SyncPolicy::to_string() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::each: return "each";
    case Kind::interval: return "interval:" + std::to_string(interval_ms);
  }
  return "none";
}

void SyncStats::record(uint64_t ns, bool failed) noexcept {
  calls.add();
  if (failed) errors.add();
  total_ns.add(ns);
  log2_ns[log2_bucket(ns)].add();
  uint64_t seen = max_ns.v.load(std::memory_order_relaxed);
  while (ns > seen && !max_ns.v.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
  }
}

SyncStats::Figures SyncStats::figures() const noexcept {
  Figures f;
  f.calls = calls.get();
  f.errors = errors.get();
  f.total_ns = total_ns.get();
  f.max_ns = max_ns.get();
  for (size_t b = 0; b < kLog2Buckets; ++b) f.log2_ns[b] = log2_ns[b].get();
  return f;
}

int timed_datasync(int fd, SyncStats& stats) noexcept {
  const uint64_t t0 = now_ns();
  int err = 0;
  while (::fdatasync(fd) != 0) {
    if (errno == EINTR) continue;
    err = errno;
    break;
  }
  stats.record(now_ns() - t0, err != 0);
  return err;
}

IntervalSyncer::IntervalSyncer(std::function<uint32_t()> interval_ms, std::function<void()> tick)
    : interval_ms_(std::move(interval_ms)), tick_(std::move(tick)), thread_([this] { run(); }) {}

IntervalSyncer::~IntervalSyncer() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void IntervalSyncer::run() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    const uint32_t ms = interval_ms_();
    const auto wait = ms ? std::chrono::milliseconds(ms) : kIdleRecheck;
    cv_.wait_for(lk, wait, [this] { return stop_; });
    if (ms == 0) continue;
    lk.unlock();  // a sync may take long: never hold the lock the destructor needs
    tick_();
    lk.lock();
  }
}

}  // namespace hitcost
