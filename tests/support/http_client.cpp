#include "tests/support/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace hitcost::testing {

HttpConnection::HttpConnection(int port, int timeout_ms) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect failed");
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

HttpConnection::~HttpConnection() {
  if (fd_ >= 0) ::close(fd_);
}

void HttpConnection::send_raw(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("send failed");
    off += static_cast<size_t>(n);
  }
}

HttpResponse HttpConnection::read_response() {
  auto fill = [&] {
    char tmp[65536];
    ssize_t n;
    do n = ::recv(fd_, tmp, sizeof tmp, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) throw std::runtime_error("recv failed or timed out");
    if (n == 0) throw std::runtime_error("connection closed before a whole response");
    buf_.append(tmp, static_cast<size_t>(n));
  };
  size_t end;
  while ((end = buf_.find("\r\n\r\n")) == std::string::npos) fill();
  HttpResponse r;
  std::string head = buf_.substr(0, end);
  size_t line_end = head.find("\r\n");
  std::string status_line = head.substr(0, line_end);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12)
    throw std::runtime_error("bad status line: " + status_line);
  r.status = std::stoi(status_line.substr(9, 3));
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string line = head.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      size_t v = colon + 1;
      while (v < line.size() && line[v] == ' ') ++v;
      r.headers[name] = line.substr(v);
    }
    pos = e + 2;
  }
  size_t len = 0;
  if (auto it = r.headers.find("content-length"); it != r.headers.end()) len = std::stoul(it->second);
  buf_.erase(0, end + 4);
  while (buf_.size() < len) fill();
  r.body = buf_.substr(0, len);
  buf_.erase(0, len);
  return r;
}

HttpResponse HttpConnection::get(const std::string& target) {
  send_raw("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  return read_response();
}

HttpResponse HttpConnection::post(const std::string& target, const std::string& body) {
  send_raw("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body);
  return read_response();
}

bool HttpConnection::closed_by_peer(int timeout_ms) {
  if (!buf_.empty()) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char c;
  ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

HttpResponse http_get(int port, const std::string& target) {
  HttpConnection c(port);
  return c.get(target);
}

HttpResponse http_post(int port, const std::string& target, const std::string& body) {
  HttpConnection c(port);
  return c.post(target, body);
}

}  // namespace hitcost::testing
