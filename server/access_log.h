#pragma once
// The access log: one line per request, the combined log format plus what the cache answered.
//
//   127.0.0.1 - - [02/Dec/2026:14:05:06 +0000] "GET /page/7 HTTP/1.1" 200 18234 "-" "hitcost-load" hit html 43
//   peer, -, -, time (UTC), request line, status, body bytes, referer, user agent (nginx's "combined"),
//   then the cache outcome (hit | miss | - when no page was asked), the strategy that answered (or -),
//   and the service time in µs (request parsed to response handed to the kernel).
// Bytes outside printable ASCII, '"' and '\' in the request line, referer and user agent are
// written as \xHH (as nginx does), so a client cannot forge a line.
//
// Writing. The file is opened with O_APPEND, so that several threads and processes may share it:
// on a local file system one write(2) lands whole at the end of the file, so lines written by one
// write never interleave with another's. Each io thread formats lines into a buffer of its own
// (AccessLogWriter) and writes whole lines per the LogMode (server/log_mode.h): each at once
// (line), or when the next would not fit, when the oldest has waited flush:MS, when the mode
// changes and when the thread ends (buffered). Short writes and EINTR are resumed. Any other
// failure (ENOSPC, EIO, EFBIG past RLIMIT_FSIZE) drops what was not written, counted in lines and
// bytes (a line cut by a short write counts as dropped: it stays torn in the file), and the request
// goes on: a full disk never blocks a request nor stops the server.
//
// Reopen. SIGHUP (what logrotate sends after renaming the file) opens the path again; each thread
// moves to the new file at its next write, so every line lands in exactly one of the two files.
//
// Sync. Per the mode's SyncPolicy (core/durable_sync.h): each = fdatasync after every write, on
// the io thread, so its cost is the request's; interval:MS = the file's own thread, when anything
// was written since the last sync.
//
// Where its cost shows: lines, bytes, write calls, dropped lines and write errors are counters of
// the io thread (wire/server_counters.h, group "log"); formatting and writing a request's line is
// the `log` phase (wall time and sampled CPU); a write made by the sweeper (flush on time) falls
// in the next request's `receive` part.
#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/counter.h"
#include "core/durable_sync.h"
#include "core/unique_fd.h"
#include "server/log_mode.h"
#include "server/metrics.h"

namespace hitcost::server {

// The file, shared by every io thread. Thread-safe.
class AccessLogFile {
 public:
  // Opens (creates, mode 0644) `path` for appending; throws std::runtime_error naming the path
  // and the reason. `policy` tells the current sync policy (it may change at run time).
  AccessLogFile(std::string path, std::function<SyncPolicy()> policy);
  ~AccessLogFile();
  AccessLogFile(const AccessLogFile&) = delete;
  AccessLogFile& operator=(const AccessLogFile&) = delete;

  const std::string& path() const noexcept { return path_; }
  // Opens the path anew (after a rename); the old file is synced first if the policy syncs.
  // Returns 0, or the errno of the failed open (the old file then stays in use).
  int reopen() noexcept;
  // Bumped by every reopen: a writer compares it with the one its descriptor came from.
  uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  std::shared_ptr<const UniqueFd> descriptor() const;

  void wrote(uint64_t bytes) noexcept { written_.add(bytes); }
  void failed(int err) noexcept { last_error_.store(err, std::memory_order_relaxed); }
  int last_error() const noexcept { return last_error_.load(std::memory_order_relaxed); }
  uint64_t reopens() const noexcept { return reopens_.get(); }
  SyncStats& sync_stats() noexcept { return sync_; }
  const SyncStats& sync_stats() const noexcept { return sync_; }
  SyncPolicy policy() const { return policy_(); }

 private:
  void sync_tick();  // the interval syncer: fdatasync if anything was written since the last

  std::string path_;
  std::function<SyncPolicy()> policy_;
  mutable std::mutex mu_;  // guards fd_
  std::shared_ptr<const UniqueFd> fd_;
  std::atomic<uint64_t> generation_{1};
  SharedCounter written_, reopens_;
  uint64_t synced_ = 0;  // written_ at the last interval sync (syncer thread only)
  std::atomic<int> last_error_{0};
  SyncStats sync_;
  std::unique_ptr<IntervalSyncer> syncer_;  // last: stopped first
};

// What one line says about a request. Views into the request and response; valid for log().
struct LogLine {
  boost::asio::ip::address peer;
  std::string_view method = "-", target;  // method "-": no request line was parsed (a 400, 408, ...)
  unsigned version = 11;                  // 10 = HTTP/1.0, 11 = HTTP/1.1
  int status = 0;
  uint64_t body_bytes = 0;
  std::string_view referer, user_agent;  // empty: "-"
  std::string_view cache = "-", strategy = "-";
  uint64_t service_us = 0;
};

// Appends `line` as text, with its '\n', to `out` (the line format above).
void format_log_line(const LogLine& line, std::time_t now, std::string& out);

// One io thread's writer: its buffer and descriptor. Not thread-safe (one per thread).
class AccessLogWriter {
 public:
  AccessLogWriter(AccessLogFile& file, ThreadMetrics& metrics) : file_(file), m_(metrics) {}

  // One request's line under `mode` (which is on): formatted, then written or buffered.
  void log(const LogMode& mode, const LogLine& line);
  // The sweeper's call: writes the buffer if its oldest line is due under `mode` (or `mode` no
  // longer buffers).
  void flush_if_due(const LogMode& mode);
  // Writes whatever is buffered (the thread ends). `sync` is the policy to follow.
  void flush(SyncPolicy sync);
  size_t buffered_bytes() const noexcept { return buffer_.size(); }

 private:
  void write_out(SyncPolicy sync);  // one write(2) of the whole buffer (resumed), then empty

  AccessLogFile& file_;
  ThreadMetrics& m_;
  std::shared_ptr<const UniqueFd> fd_;
  uint64_t fd_generation_ = 0;
  std::string buffer_;
  uint64_t oldest_ns_ = 0;  // when the buffer's first line was added (monotonic ns)
};

}  // namespace hitcost::server
