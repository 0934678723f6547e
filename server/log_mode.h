#pragma once
// How hitcost-server writes its access log, switchable at run time (POST /admin/config "log",
// the sweep's --log-modes axis) and set at start by --log-buffer, --log-flush-ms, --log-sync.
//
//   off                     no line at all
//   line                    one write(2) per line (nginx's access_log without buffer=)
//   buffered:SIZE           a buffer per io thread, written with one write(2) when the next line
//                           would not fit (nginx's buffer=SIZE); SIZE 1..64M, K/M suffixes
//   ...+flush:MS            buffered lines wait at most MS ms (nginx's flush=; checked every
//                           100 ms by the worker's sweeper, so MS < 100 acts as 100); default 1000
//   ...+sync:POLICY         fdatasync: none (default) | each (after every write) | interval:MS
//                           (a thread of its own, if anything was written); sync:MS = interval:MS
// e.g. "buffered:64k+sync:1000". to_string() gives the canonical text the server reports.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/durable_sync.h"
#include "core/result.h"

namespace hitcost::server {

struct LogMode {
  enum class Kind : uint8_t { off, line, buffered };
  static constexpr uint64_t kMaxBuffer = 64ull << 20;
  static constexpr uint32_t kDefaultFlushMs = 1000;

  Kind kind = Kind::off;
  uint64_t buffer_bytes = 0;  // buffered only
  uint32_t flush_ms = kDefaultFlushMs;
  SyncPolicy sync;

  bool on() const noexcept { return kind != Kind::off; }
  static Result<LogMode> parse(std::string_view text);
  // The start-up flags: buffer 0 = line, else buffered:BUFFER; off when there is no log file.
  static Result<LogMode> from_flags(bool have_file, uint64_t buffer_bytes, uint32_t flush_ms, std::string_view sync);
  std::string to_string() const;
  bool operator==(const LogMode&) const = default;
};

}  // namespace hitcost::server
