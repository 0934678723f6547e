#pragma once
// The one HTTP client for a server's admin routes (/healthz, /stats, /admin/config, /admin/*):
// blocking, one request on a fresh connection ("Connection: close"), never one of the load
// connections, so asking the server about itself does not disturb the load's queues.
#include <string>
#include <string_view>

#include "core/result.h"
#include "load/net.h"

namespace hitcost::client {

// The admin token (hitcost-server --admin-remote --admin-token-file): from the call on, every
// request to an admin route (a target under /admin/: the sweep's config and warm, the floor's
// calibrate) carries "Authorization: Bearer TOKEN". Set once at start, before any thread asks;
// "" sends none. The token is never printed, logged or written to a record.
void set_admin_token(std::string token);
// The token of hitcost-load --admin-token-file PATH: the file's first line, trimmed of spaces.
// io_error "cannot read --admin-token-file PATH: REASON"; invalid_argument
// "--admin-token-file PATH is empty" (nothing but spaces on its first line too).
Result<std::string> read_admin_token(const std::string& path);

// An HTTP answer, whatever its status.
struct HttpReply {
  int status = 0;
  std::string body;
  bool ok() const noexcept { return status >= 200 && status < 300; }
  std::string refusal() const { return "HTTP " + std::to_string(status) + ": " + body; }  // why it is not ok()
};

// One request on a fresh connection ("Connection: close"); the whole answer, or why none came:
// connection (connect/send/recv failed, or closed without a byte), timeout (no answer within
// timeout_ms), parse_error (not an HTTP answer).
Result<HttpReply> http_request(const Endpoint& ep, std::string_view method, std::string_view target,
                               std::string_view body = {}, int timeout_ms = 10'000);

// The same for a route whose only good answer is a 2xx: its body. Another answer is an error
// with its text ("HTTP 400: reason"): invalid_argument for a 4xx (the server refused what was
// asked), server_error for the rest.
Result<std::string> http_ok_body(const Endpoint& ep, std::string_view method, std::string_view target,
                                 std::string_view body = {}, int timeout_ms = 10'000);

// Whether an error of http_ok_body is the server's answer (a refusal), not a missing one.
inline bool server_answered(const Error& e) noexcept {
  return e.code == Errc::invalid_argument || e.code == Errc::server_error;
}

}  // namespace hitcost::client
