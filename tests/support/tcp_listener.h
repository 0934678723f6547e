#pragma once
// A TCP socket listening on a port the kernel picked that never accepts by itself: whether
// anything connected to it is seen afterwards, by accepting (non-blocking). For tests that
// must show a program connected to an address — or did not (--check-args connects nowhere).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace hitcost::testing {

struct TcpListener {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int port = 0;  // 0: the socket could not listen
  // INADDR_LOOPBACK: 127.0.0.1 only; INADDR_ANY: every IPv4 address of this machine.
  explicit TcpListener(uint32_t address = INADDR_LOOPBACK) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(address);
    socklen_t len = sizeof a;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd, 16) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
  }
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  ~TcpListener() {
    if (fd >= 0) ::close(fd);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
  // Connections made to it since the last call (each accepted and closed).
  int connections() const {
    int n = 0;
    for (int c; (c = ::accept(fd, nullptr, nullptr)) >= 0; ++n) ::close(c);
    return n;
  }
};

}  // namespace hitcost::testing
