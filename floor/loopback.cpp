#include "floor/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/pin.h"

namespace hitcost::floor {
namespace {

Error io_error(const char* call) {
  return Error{Errc::io_error, std::string("loopback: ") + call + ": " + std::strerror(errno)};
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_exact(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

void no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

Result<std::unique_ptr<LoopbackPeer>> LoopbackPeer::open(Role role, size_t request_bytes, size_t reply_bytes,
                                                         int peer_cpu) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener) return io_error("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return io_error("bind");
  if (::listen(listener.get(), 1) != 0) return io_error("listen");
  socklen_t len = sizeof addr;
  if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return io_error("getsockname");
  std::unique_ptr<LoopbackPeer> link(new LoopbackPeer());
  link->ours_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!link->ours_) return io_error("socket");
  if (::connect(link->ours_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return io_error("connect");
  link->theirs_.reset(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!link->theirs_) return io_error("accept");
  no_delay(link->ours_.get());
  no_delay(link->theirs_.get());
  link->peer_cpu_ = peer_cpu;
  LoopbackPeer* self = link.get();
  link->peer_ =
      std::thread([self, role, request_bytes, reply_bytes] { self->run_peer(role, request_bytes, reply_bytes); });
  return link;
}

void LoopbackPeer::run_peer(Role role, size_t request_bytes, size_t reply_bytes) {
  pin_this_thread(peer_cpu_);  // best effort: unpinned when the CPU is not ours to use
  const int fd = theirs_.get();
  std::vector<char> buf(std::max<size_t>({request_bytes, reply_bytes, size_t{65536}}), 'x');
  switch (role) {
    case Role::drain:
      while (::recv(fd, buf.data(), buf.size(), 0) > 0) {
      }
      break;
    case Role::reply:
      while (read_exact(fd, buf.data(), request_bytes) && write_all(fd, buf.data(), reply_bytes)) {
      }
      break;
    case Role::feed:
      while (write_all(fd, buf.data(), reply_bytes)) {
      }
      break;
  }
}

LoopbackPeer::~LoopbackPeer() {
  // Both directions down: the peer's blocked recv returns 0 and its blocked send fails.
  if (ours_) ::shutdown(ours_.get(), SHUT_RDWR);
  if (theirs_) ::shutdown(theirs_.get(), SHUT_RDWR);
  if (peer_.joinable()) peer_.join();
}

bool LoopbackPeer::send_all(const char* p, size_t n) { return write_all(ours_.get(), p, n); }
bool LoopbackPeer::recv_exact(char* p, size_t n) { return read_exact(ours_.get(), p, n); }

bool LoopbackPeer::send_two(const char* a, size_t an, const char* b, size_t bn) {
  iovec iov[2] = {{const_cast<char*>(a), an}, {const_cast<char*>(b), bn}};
  int first = 0;
  while (first < 2) {
    ssize_t w = ::writev(ours_.get(), iov + first, 2 - first);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    auto left = static_cast<size_t>(w);
    while (first < 2 && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < 2) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  return true;
}

}  // namespace hitcost::floor
