#pragma once
// Minimal incremental HTTP/1.1 response parser for the load generator's hot path.
//
// Feed it bytes as they arrive, split anywhere; it reports each complete response. It keeps
// only what the load generator needs (status, Content-Length, Connection: close, X-Cache,
// X-Strategy) and skips bodies without copying them — except the first kErrorBodyMax bytes of
// a non-2xx response's body, the server's reason, kept for the report. No allocation after
// construction: a
// header line split across reads is assembled in a fixed buffer (lines longer than
// kMaxLine are a parse error).
// Chunked transfer-encoding is rejected (hitcost-server always sends Content-Length); a
// response without Content-Length is an error too, except for 1xx/204/304 which have no body.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "figures/error_counts.h"

namespace hitcost::client {

enum class CacheTag : uint8_t { unknown, hit, miss };

struct ResponseInfo {
  int status = 0;
  CacheTag cache = CacheTag::unknown;
  bool close = false;  // "Connection: close" (or HTTP/1.0 without keep-alive)
  uint64_t content_length = 0;
  uint64_t header_bytes = 0;  // status line + headers + blank line
  char strategy[48] = {};     // X-Strategy value, truncated; "" when absent
};

class ResponseParser {
 public:
  enum class Result { need_more, complete, error };
  static constexpr size_t kMaxLine = 8192;
  static constexpr size_t kErrorBodyMax = kErrorDetailMax;  // what an ErrorSample keeps

  // Consumes bytes of [data, data+n) up to the end of the current response. *consumed tells
  // how many; on `complete` the rest belongs to the next response. After `complete` call
  // reset() before feeding again. After `error` the connection must be dropped.
  Result feed(const char* data, size_t n, size_t* consumed) noexcept;
  const ResponseInfo& info() const noexcept { return info_; }
  const char* error() const noexcept { return error_; }
  // The start of the body of a non-2xx response (at most kErrorBodyMax bytes); empty for 2xx.
  // Valid until reset().
  std::string_view error_body() const noexcept { return {error_body_, error_body_len_}; }
  bool idle() const noexcept { return state_ == State::status && line_len_ == 0; }
  void reset() noexcept;

 private:
  enum class State : uint8_t { status, headers, body, done, failed };
  bool on_line(std::string_view line) noexcept;  // false = error (error_ set)
  bool finish_headers() noexcept;
  Result fail(const char* why) noexcept {
    error_ = why;
    state_ = State::failed;
    return Result::error;
  }

  State state_ = State::status;
  ResponseInfo info_;
  bool have_length_ = false;
  bool chunked_ = false;
  bool http10_ = false;
  bool keep_alive_ = false;
  uint64_t body_left_ = 0;
  size_t line_len_ = 0;
  const char* error_ = "";
  size_t error_body_len_ = 0;
  char error_body_[kErrorBodyMax];
  char line_[kMaxLine];
};

}  // namespace hitcost::client
