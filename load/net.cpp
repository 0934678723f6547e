#include "load/net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hitcost::client {

namespace {

// RFC 1123 host name: labels of letters, digits and '-' (not first or last), 1..63 characters
// each, at most 253 in all (a trailing '.', the root, not counted). A last label of digits only
// is an IPv4 address gone wrong ("999.1.1.1"), not a name (RFC 1123 2.1).
bool is_host_name(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  if (name.empty() || name.size() > 253) return false;
  bool all_digits = true;
  size_t label = 0;  // characters of the current label so far
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      if (label == 0 || label > 63 || name[i - 1] == '-') return false;
      if (i == name.size() && all_digits) return false;
      label = 0;
      all_digits = true;
      continue;
    }
    const char c = name[i];
    const bool digit = c >= '0' && c <= '9';
    if (!digit && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '-') return false;
    if (c == '-' && label == 0) return false;
    all_digits = all_digits && digit;
    ++label;
  }
  return true;
}

void set_port(Endpoint& ep) {
  if (ep.addr.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&ep.addr)->sin_port = htons(ep.port);
  if (ep.addr.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&ep.addr)->sin6_port = htons(ep.port);
}

// An IP address (or localhost) into ep.addr; false for anything else.
bool set_numeric(Endpoint& ep) {
  const std::string numeric = ep.host == "localhost" ? "127.0.0.1" : ep.host;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ep.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ep.addr);
  if (inet_pton(AF_INET, numeric.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    ep.addr_len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, numeric.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    ep.addr_len = sizeof(sockaddr_in6);
  } else {
    return false;
  }
  set_port(ep);
  return true;
}

}  // namespace

Result<Endpoint> parse_url(std::string_view url, Lookup lookup_names) {
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
  const bool bracketed = !rest.empty() && rest.front() == '[';
  if (bracketed) {
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
  if (set_numeric(ep)) {
    ep.host_header = ep.addr.ss_family == AF_INET6 ? "[" + ep.host + "]:" + std::to_string(ep.port)
                                                   : ep.host + ":" + std::to_string(ep.port);
    return ep;
  }
  // Brackets hold an IPv6 address, nothing else (RFC 3986 3.2.2).
  if (bracketed || !is_host_name(ep.host))
    return fail("host is neither an IP address nor a host name: " + std::string(bracketed ? "[" : "") + ep.host +
                (bracketed ? "]" : ""));
  ep.host_header = ep.host + ":" + std::to_string(ep.port);  // the name, as a browser sends it
  if (lookup_names == Lookup::yes)
    if (Status resolved = resolve_host(ep); !resolved) return resolved.error();
  return ep;
}

Status resolve_host(Endpoint& ep) {
  if (ep.addr_len != 0 || set_numeric(ep)) return ok_status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(ep.host.c_str(), nullptr, &hints, &found); rc != 0)
    return Error{Errc::connection, "cannot resolve host " + ep.host + ": " + ::gai_strerror(rc)};
  const addrinfo* chosen = nullptr;  // the first IPv4 answer, else the first IPv6
  for (const addrinfo* a = found; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      chosen = a;
      break;
    }
    if (a->ai_family == AF_INET6 && !chosen) chosen = a;
  }
  if (chosen && chosen->ai_addrlen <= sizeof ep.addr) {
    std::memcpy(&ep.addr, chosen->ai_addr, chosen->ai_addrlen);
    ep.addr_len = chosen->ai_addrlen;
    set_port(ep);
  }
  ::freeaddrinfo(found);
  if (ep.addr_len == 0) return Error{Errc::connection, "cannot resolve host " + ep.host + ": no IPv4 or IPv6 address"};
  return ok_status();
}

std::string address_text(const Endpoint& ep) {
  char text[INET6_ADDRSTRLEN] = {};
  if (ep.addr_len == 0) return "";
  if (ep.addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&ep.addr);
    if (!inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text)) return "";
    return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&ep.addr);
  if (ep.addr.ss_family != AF_INET6 || !inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text)) return "";
  return std::string("[").append(text).append("]:").append(std::to_string(ntohs(v6->sin6_port)));
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
