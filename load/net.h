#pragma once
// Socket plumbing shared by the load engine and the blocking admin/stats client.
// Only numeric addresses (and "localhost") are accepted: resolving names would put DNS in
// the measurement and hide which interface is being loaded.
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::client {

struct Endpoint {
  std::string host;  // as written, without brackets
  uint16_t port = 80;
  std::string host_header;  // "127.0.0.1:8080" / "[::1]:8080", sent as the Host header
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
};

// "http://127.0.0.1:8080", "http://localhost:8080/", "http://[::1]:9000": a base URL. A path
// other than "/" (or a query) is refused with a hint: request paths are --path-template's.
// invalid_argument otherwise (https, names, a port outside 1..65535), the message saying which.
Result<Endpoint> parse_url(std::string_view url);

// Non-blocking TCP socket with TCP_NODELAY (small requests must not wait for delayed ACKs),
// connect() started. Returns fd >= 0 and sets *in_progress when the connect is still
// pending (wait for EPOLLOUT, then check connect_result). -1 with errno on failure.
int start_connect(const Endpoint& ep, bool* in_progress) noexcept;
int connect_result(int fd) noexcept;  // 0 or the SO_ERROR errno

// Blocking connect with send/receive timeouts (ms). Invalid fd on failure (errno kept).
UniqueFd connect_blocking(const Endpoint& ep, int timeout_ms) noexcept;

// Full write loop: handles short writes and EINTR. false on error/timeout.
bool write_all(int fd, const char* data, size_t len) noexcept;

// Percent-encodes everything outside RFC 3986 "unreserved" — "+" in a strategy name must
// arrive as "+", not as a form-encoded space.
std::string url_encode(std::string_view s);

}  // namespace hitcost::client
