#include "fake_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hitcost::client::test {

FakeHttpServer::FakeHttpServer(FakeBehavior b) : b_(std::move(b)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // a free port chosen by the kernel
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0)
    throw std::runtime_error("fake server: bind/listen failed");
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeHttpServer::~FakeHttpServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes the blocking accept()
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);  // wakes blocking recv()s
  }
  for (auto& t : threads_) t.join();
  ::close(listen_fd_);
}

std::vector<uint64_t> FakeHttpServer::ids() {
  std::lock_guard<std::mutex> lock(mu_);
  return ids_;
}

std::vector<std::string> FakeHttpServer::targets() {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_;
}

std::vector<FakeHttpServer::Arrival> FakeHttpServer::arrivals() {
  std::lock_guard<std::mutex> lock(mu_);
  return arrivals_;
}

std::string FakeHttpServer::answer(const FakeBehavior& b, bool status_500, bool close, bool hit) {
  std::string out = status_500 ? "HTTP/1.1 500 Internal Server Error\r\n" : "HTTP/1.1 200 OK\r\n";
  out += "Server: fake\r\nContent-Length: " + std::to_string(b.body.size()) + "\r\n";
  out += std::string("X-Cache: ") + (hit ? "hit" : "miss") + "\r\nX-Strategy: " + b.strategy + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += "\r\n" + b.body;
  return out;
}

void FakeHttpServer::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const uint64_t conn = ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    fds_.push_back(fd);
    threads_.emplace_back([this, fd, conn] { serve(fd, conn); });
  }
}

void FakeHttpServer::serve(int fd, uint64_t conn) {
  std::string in;
  char buf[4096];
  bool open = true;
  while (open && !stopping_) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const uint64_t arrived = uint64_t(ts.tv_sec) * 1'000'000'000ULL + uint64_t(ts.tv_nsec);
    in.append(buf, size_t(n));
    size_t end;
    while (open && (end = in.find("\r\n\r\n")) != std::string::npos) {
      const std::string head = in.substr(0, end);
      in.erase(0, end + 4);
      const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
      const std::string target = sp1 == std::string::npos ? "" : head.substr(sp1 + 1, sp2 - sp1 - 1);
      if (!b_.stats_json.empty() && target == "/stats") {  // the run's /stats snapshots
        const std::string out = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                std::to_string(b_.stats_json.size()) + "\r\nConnection: close\r\n\r\n" + b_.stats_json;
        (void)!::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
        open = false;
        break;
      }
      const uint64_t nth = ++requests_;
      uint64_t id = 0;
      const size_t page = head.find("/page/");
      if (page != std::string::npos) id = std::strtoull(head.c_str() + page + 6, nullptr, 10);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ids_.push_back(id);
        targets_.push_back(target);
        arrivals_.push_back({arrived, conn});
      }
      if ((b_.hang_at && nth == b_.hang_at) || (b_.hang_every && nth % b_.hang_every == 0)) {
        ++ignored_;
        while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        open = false;
        break;
      }
      if (b_.drop_every && nth % b_.drop_every == 0) {
        open = false;
        break;
      }
      if (b_.pause_at && nth == b_.pause_at) std::this_thread::sleep_for(std::chrono::milliseconds(b_.pause_ms));
      const bool err = b_.status_500_every && nth % b_.status_500_every == 0;
      const bool close = b_.close_every && nth % b_.close_every == 0;
      const bool hit = b_.always_hit || id < b_.hit_below;
      const std::string out = answer(b_, err, close, hit);
      size_t off = 0;
      while (off < out.size()) {
        const ssize_t w = ::send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
        if (w <= 0) {
          open = false;
          break;
        }
        off += size_t(w);
      }
      if (close) open = false;
    }
  }
  ::shutdown(fd, SHUT_RDWR);
  // the fd itself is closed by the destructor's bookkeeping below
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& f : fds_)
    if (f == fd) {
      ::close(fd);
      f = -1;
    }
}

}  // namespace hitcost::client::test
