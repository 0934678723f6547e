#include "load/net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hitcost::client {

Result<Endpoint> parse_url(std::string_view url) {
  auto fail = [](std::string why) -> Result<Endpoint> { return Error{Errc::invalid_argument, std::move(why)}; };
  if (url.substr(0, 7) != "http://") return fail("URL must start with http:// (https is not supported)");
  std::string_view rest = url.substr(7);
  // A path (or a query) after the authority would be dropped, and the load would ask
  // --path-template's paths on the server's root: refused, with where it belongs.
  const size_t path_at = rest.find_first_of("/?#");
  if (path_at != std::string_view::npos) {
    const std::string_view path = rest.substr(path_at);
    const std::string_view just_path = path.substr(0, path.find_first_of("?#"));
    if (path != "/")
      return fail("the URL is the server's base, http://HOST:PORT: its path '" + std::string(path) +
                  "' would be ignored; request paths go in --path-template (default /page/{id})" +
                  (just_path.size() > 1 ? ", e.g. --url http://" + std::string(rest.substr(0, path_at)) +
                                              " --path-template '" + std::string(just_path) + "'"
                                        : std::string()));
    rest = rest.substr(0, path_at);
  }
  Endpoint ep;
  std::string_view host, port;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return fail("unterminated [ in URL");
    host = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return fail("junk after ] in URL");
      port = rest.substr(1);
    }
  } else {
    const size_t colon = rest.find(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port = rest.substr(colon + 1);
  }
  if (host.empty()) return fail("URL has no host");
  const bool port_given = rest.find(':') != std::string_view::npos;  // "http://h:" names no port: refused
  if (port_given) {
    unsigned p = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p == 0 || p > 65535)
      return fail("bad port in URL: '" + std::string(port) + "' (want 1..65535)");
    ep.port = uint16_t(p);
  }
  ep.host = std::string(host);
  const std::string lookup = ep.host == "localhost" ? "127.0.0.1" : ep.host;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ep.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ep.addr);
  if (inet_pton(AF_INET, lookup.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(ep.port);
    ep.addr_len = sizeof(sockaddr_in);
    ep.host_header = ep.host + ":" + std::to_string(ep.port);
  } else if (inet_pton(AF_INET6, lookup.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(ep.port);
    ep.addr_len = sizeof(sockaddr_in6);
    ep.host_header = "[" + ep.host + "]:" + std::to_string(ep.port);
  } else {
    return fail("host must be a numeric IP address or localhost: " + ep.host);
  }
  return ep;
}

int start_connect(const Endpoint& ep, bool* in_progress) noexcept {
  *in_progress = false;
  const int fd = ::socket(ep.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&ep.addr), ep.addr_len) == 0) return fd;
  if (errno == EINPROGRESS) {
    *in_progress = true;
    return fd;
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return -1;
}

int connect_result(int fd) noexcept {
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

UniqueFd connect_blocking(const Endpoint& ep, int timeout_ms) noexcept {
  UniqueFd fd(::socket(ep.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&ep.addr), ep.addr_len);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) fd.reset();
  return fd;
}

bool write_all(int fd, const char* data, size_t len) noexcept {
  while (len > 0) {
    const ssize_t n = ::send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= size_t(n);
  }
  return true;
}

std::string url_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace hitcost::client
