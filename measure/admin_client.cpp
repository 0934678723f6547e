#include "measure/admin_client.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/io_util.h"
#include "core/unique_fd.h"

namespace hitcost::client {

namespace {
// A socket timeout (SO_SNDTIMEO/SO_RCVTIMEO) ends a blocking call with these; a blocking
// connect() that runs out of time says EINPROGRESS.
Errc transport_errc(int err) noexcept {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINPROGRESS ? Errc::timeout : Errc::connection;
}
}  // namespace

namespace {

// set_admin_token's: written once at start, read by every admin request after.
std::string& admin_token() {
  static std::string token;
  return token;
}

// What a request sends: the request line, the headers, the body.
std::string request_text(const Endpoint& ep, std::string_view method, std::string_view target, std::string_view body) {
  std::string req;
  req.reserve(256 + body.size());
  req.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ");
  req.append(ep.host_header).append("\r\nConnection: close\r\nUser-Agent: hitcost-load\r\n");
  if (target.starts_with("/admin/") && !admin_token().empty())
    req.append("Authorization: Bearer ").append(admin_token()).append("\r\n");
  if (!body.empty() || method == "POST") {
    req.append("Content-Type: application/json\r\nContent-Length: ");
    req.append(std::to_string(body.size())).append("\r\n");
  }
  return req.append("\r\n").append(body);
}

// Content-Length, case-insensitively; UINT64_MAX without it (then the answer ends at EOF).
uint64_t content_length_of(const std::string& head) {
  std::string lower = head;
  for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  const size_t cl = lower.find("\r\ncontent-length:");
  return cl == std::string::npos ? UINT64_MAX : std::strtoull(lower.c_str() + cl + 17, nullptr, 10);
}

// Reads the answer up to its Content-Length or EOF, then splits status and body.
Result<HttpReply> read_reply(int fd) {
  std::string raw;
  char buf[16384];
  size_t header_end = std::string::npos;
  uint64_t content_length = UINT64_MAX;
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{transport_errc(errno), std::string("recv: ") + std::strerror(errno)};
    if (n == 0) break;
    raw.append(buf, size_t(n));
    if (header_end == std::string::npos && (header_end = raw.find("\r\n\r\n")) != std::string::npos)
      content_length = content_length_of(raw.substr(0, header_end));
    if (header_end != std::string::npos && content_length != UINT64_MAX &&
        raw.size() >= header_end + 4 + content_length)
      break;
  }
  if (header_end == std::string::npos || raw.compare(0, 7, "HTTP/1.") != 0 || raw.size() < 12)
    // Closed with nothing said is a lost connection; anything else that is not HTTP, a bad answer.
    return Error{raw.empty() ? Errc::connection : Errc::parse_error, "malformed HTTP answer"};
  HttpReply reply;
  reply.status = std::atoi(raw.c_str() + 9);
  reply.body = raw.substr(header_end + 4);
  if (content_length != UINT64_MAX && reply.body.size() > content_length) reply.body.resize(content_length);
  return reply;
}

}  // namespace

void set_admin_token(std::string token) { admin_token() = std::move(token); }

Result<std::string> read_admin_token(const std::string& path) {
  auto unreadable = [&](int err) {
    return Error{Errc::io_error, "cannot read --admin-token-file " + path + ": " + std::strerror(err)};
  };
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return unreadable(errno);
  char buf[4096];  // the first line is all that is read
  auto n = io::pread_full(fd.get(), buf, sizeof buf, 0);
  if (!n) return Error{Errc::io_error, "cannot read --admin-token-file " + path + ": " + n.error().message};
  std::string_view line(buf, *n);
  line = line.substr(0, line.find('\n'));
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!line.empty() && space(line.back())) line.remove_suffix(1);
  while (!line.empty() && space(line.front())) line.remove_prefix(1);
  if (line.empty()) return Error{Errc::invalid_argument, "--admin-token-file " + path + " is empty"};
  return std::string(line);
}

Result<HttpReply> http_request(const Endpoint& ep, std::string_view method, std::string_view target,
                               std::string_view body, int timeout_ms) {
  UniqueFd fd = connect_blocking(ep, timeout_ms);
  if (!fd)
    return Error{transport_errc(errno), std::string("connect to ") + ep.host_header + ": " + std::strerror(errno)};
  const std::string req = request_text(ep, method, target, body);
  if (!write_all(fd.get(), req.data(), req.size()))
    return Error{transport_errc(errno), std::string("send: ") + std::strerror(errno)};
  return read_reply(fd.get());
}

Result<std::string> http_ok_body(const Endpoint& ep, std::string_view method, std::string_view target,
                                 std::string_view body, int timeout_ms) {
  auto reply = http_request(ep, method, target, body, timeout_ms);
  if (!reply) return reply.error();
  if (!reply->ok())
    return Error{reply->status >= 400 && reply->status < 500 ? Errc::invalid_argument : Errc::server_error,
                 reply->refusal()};
  return std::move(reply->body);
}

}  // namespace hitcost::client
