#include "server/slow_log.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include "core/clock.h"
#include "core/io_util.h"

namespace hitcost::server {
namespace {

std::string ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, ns >= 10'000'000 ? "%.0f ms" : "%.2f ms", double(ns) / 1e6);
  return b;
}

// What a part waits for, on this store.
std::string waits_for(CpuPart part, const SlowEntry& e, const std::string& store) {
  switch (part) {
    case CpuPart::fetch:
      if (store.starts_with("memcached:")) return "a memcached round trip";
      if (store.starts_with("mmap:"))
        return e.major_faults ? std::to_string(e.major_faults) + " major page faults of the mmap read"
                              : "the mmap read";
      if (store.starts_with("pread:")) return "the pread from the store file";
      return "the store";
    case CpuPart::store_set:
      return store.find("sync=each") != std::string::npos || store.find("sync=1") != std::string::npos
                 ? "the store write and its fdatasync"
                 : "the store write";
    case CpuPart::write: return "the socket (the client reads slowly)";
    case CpuPart::origin: return "the origin (--origin-delay-us)";
    case CpuPart::log: return "the access log write";
    default: return "the event loop";
  }
}

}  // namespace

std::string what_it_waited_on(const SlowEntry& e, const std::string& store_spec) {
  size_t slowest = kCpuParts;
  for (size_t k = 0; k < kCpuParts; ++k)
    if (slowest == kCpuParts || std::max(e.wall_ns[k], e.cpu_ns[k]) > std::max(e.wall_ns[slowest], e.cpu_ns[slowest]))
      slowest = k;
  if (slowest == kCpuParts || std::max(e.wall_ns[slowest], e.cpu_ns[slowest]) == 0) return "nothing measured";
  const auto part = static_cast<CpuPart>(slowest);
  const uint64_t wall = std::max(e.wall_ns[slowest], e.cpu_ns[slowest]), cpu = e.cpu_ns[slowest];
  const uint64_t wait = wall - cpu;
  const std::string name = to_string(part);
  const bool faulted = part == CpuPart::fetch && store_spec.starts_with("mmap:") && e.major_faults > 0;
  if (wait * 2 >= wall)
    return name + ": waiting on " + waits_for(part, e, store_spec) + " (" + ms(wait) + " of " + ms(wall) + ")";
  // A major fault's read is often the kernel's work on this thread: CPU, not a wait.
  if (faulted)
    return name + ": " + waits_for(part, e, store_spec) + " (" + ms(wall) + ", " + ms(cpu) + " of it on CPU)";
  return name + ": on CPU (" + ms(cpu) + " of " + ms(wall) + ")";
}

nlohmann::json to_json(const SlowEntry& e) {
  nlohmann::json parts = nlohmann::json::object();
  for (size_t k = 0; k < kCpuParts; ++k) {
    if (e.cpu_ns[k] == 0 && e.wall_ns[k] == 0) continue;
    parts[to_string(static_cast<CpuPart>(k))] = {{"cpu_us", double(e.cpu_ns[k]) / 1e3},
                                                 {"wall_us", double(e.wall_ns[k]) / 1e3}};
  }
  return {{"seq", e.seq},
          {"time_unix_ns", e.unix_ns},
          {"target", e.target},
          {"key", e.key},
          {"cache", e.cache},
          {"strategy", e.strategy},
          {"status", e.status},
          {"body_bytes", e.body_bytes},
          {"service_us", double(e.service_ns) / 1e3},
          {"major_faults", e.major_faults},
          {"waited_on", e.waited_on},
          {"parts", std::move(parts)}};
}

Result<std::unique_ptr<SlowLog>> SlowLog::open(uint64_t threshold_ns, const std::string& path, uint32_t lines_per_s) {
  UniqueFd fd;
  if (!path.empty()) {
    fd.reset(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (!fd) return Error{Errc::io_error, io::errno_text(("--slow-log-file " + path).c_str(), errno)};
  }
  return std::unique_ptr<SlowLog>(new SlowLog(threshold_ns, std::move(fd), lines_per_s));
}

bool SlowLog::record(SlowEntry e) {
  std::lock_guard lk(mu_);
  e.seq = ++seq_;
  bool written = !fd_;  // no file: nothing to leave out
  if (fd_) {
    const uint64_t second = now_ns() / 1'000'000'000u;
    if (second != second_) second_ = second, in_second_ = 0;
    if (in_second_ < lines_per_s_) {
      ++in_second_;
      const std::string line = to_json(e).dump() + "\n";
      written = io::write_full(fd_.get(), line.data(), line.size()).ok();
    }
  }
  kept_.push_back(std::move(e));
  if (kept_.size() > kKept) kept_.pop_front();
  return written;
}

nlohmann::json SlowLog::since(uint64_t since) const {
  std::lock_guard lk(mu_);
  nlohmann::json entries = nlohmann::json::array();
  for (const SlowEntry& e : kept_)
    if (e.seq > since) entries.push_back(to_json(e));
  return {
      {"threshold_us", double(threshold_ns_) / 1e3}, {"seq", seq_}, {"kept", kKept}, {"entries", std::move(entries)}};
}

}  // namespace hitcost::server
