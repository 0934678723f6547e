#pragma once
// Errors of a run by kind, and the first of each kind with its reason. The load engine counts
// them (load/load_runner.h); the run record, the summary and merge read them, so they live
// below both.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hitcost::client {

// How much of an error's reason is kept: the start of a server's body is enough to say why.
inline constexpr size_t kErrorDetailMax = 240;

struct ErrorCounts {
  uint64_t connect = 0;     // connect() failed or timed out
  uint64_t read = 0;        // recv() failed, or the peer closed with a request in flight
  uint64_t write = 0;       // send() failed
  uint64_t timeout = 0;     // no complete response within the per-request timeout
  uint64_t status = 0;      // a complete response with a non-2xx status
  uint64_t parse = 0;       // malformed response (bad status line, chunked, no length...)
  uint64_t validation = 0;  // well-formed but wrong: a guaranteed miss answered "hit",
                            // X-Strategy differs from the one asked for, no X-Cache
  uint64_t total() const noexcept;
  void merge(const ErrorCounts& o) noexcept;
};

// The first error of one kind, with its reason: "status 400" and the start of the server's
// body, "connect" and the OS's text, "validation" and what did not match. Kept so that a run
// full of errors says why, not only how many.
struct ErrorSample {
  std::string kind;
  std::string detail;  // one line, at most kErrorDetailMax bytes
};
// Appends {kind, detail} unless `kind` is already in `samples` (the first one stays).
void keep_first_error(std::vector<ErrorSample>& samples, std::string_view kind, std::string_view detail);

}  // namespace hitcost::client
