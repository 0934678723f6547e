#pragma once
// Socket plumbing shared by the load engine and the blocking admin/stats client.
// A URL's host may be an IP address or a host name (in Kubernetes the server is a Service's
// name, http://hitcost-server:8080). A name is resolved once, at start-up, before anything is
// timed, and every connection of the run (each reconnect too) goes to that one address: DNS is
// never in a measured request, and the run says which address it loaded (address_text, the
// run record's "url_address"). With Lookup::no (--check-args) a name is only checked for its
// form and nothing is asked of the resolver.
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
  std::string host_header;  // "127.0.0.1:8080" / "[::1]:8080" / "hitcost-server:8080", sent as the Host header
  sockaddr_storage addr{};
  socklen_t addr_len = 0;  // 0 while a name is not resolved (parse_url with Lookup::no)
};

// Whether parse_url asks the resolver about a host name.
enum class Lookup { no, yes };

// "http://127.0.0.1:8080", "http://localhost:8080/", "http://[::1]:9000",
// "http://hitcost-server:8080": a base URL. A path other than "/" (or a query) is refused with a
// hint: request paths are --path-template's. "localhost" is 127.0.0.1 without asking the
// resolver. Any other name (RFC 1123: letters, digits, '-' and '.', labels of 1..63 characters
// that neither start nor end with '-', at most 253 in all, the last label not all digits) is
// resolved with getaddrinfo when `lookup_names` is yes — the first IPv4 answer, else the first
// IPv6 — and left unresolved (addr_len 0) when it is no. Errors: invalid_argument for a line
// that is wrong (https, a port outside 1..65535, "host is neither an IP address nor a host
// name: X"), the message saying which; connection when a well-formed name does not resolve
// ("cannot resolve host NAME: <gai_strerror>"): the line is fine, the network is not.
Result<Endpoint> parse_url(std::string_view url, Lookup lookup_names = Lookup::yes);

// Resolves the host name of an endpoint parsed with Lookup::no, as parse_url with Lookup::yes
// would (the same rule, the same connection error). Nothing to do for an IP address or an
// endpoint already resolved.
Status resolve_host(Endpoint& ep);

// The numeric address an endpoint connects to, "10.0.0.5:8080" or "[fd00::5]:8080"; "" while a
// name is not resolved.
std::string address_text(const Endpoint& ep);

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
