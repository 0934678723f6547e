#include "tests/support/memcached_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace hitcost::testing {
namespace {

int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    throw std::runtime_error("bind failed");
  }
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

MemcachedProcess::MemcachedProcess(int memory_mb, std::vector<std::string> extra_args)
    : memory_mb_(memory_mb), extra_args_(std::move(extra_args)) {
  // Another process may take the port between our probe and memcached's bind: retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_loopback_port();
    try {
      spawn();
      return;
    } catch (const std::runtime_error&) {
      if (attempt == 4) throw;
    }
  }
}

MemcachedProcess::~MemcachedProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);
    kill_now();
  }
}

void MemcachedProcess::spawn() {
  std::vector<std::string> args = {
      "memcached", "-l", "127.0.0.1", "-p", std::to_string(port_), "-U", "0", "-m", std::to_string(memory_mb_),
      "-t",        "1"};
  if (::geteuid() == 0) {  // memcached refuses to run as root without -u
    args.push_back("-u");
    args.push_back("root");
  }
  for (auto& a : extra_args_) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::execvp("memcached", argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  // Wait until it accepts connections (up to ~5 s).
  for (int i = 0; i < 500; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("memcached exited at start (is it installed? port taken?)");
    }
    int fd = connect_loopback(port_);
    if (fd >= 0) {
      ::close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_now();
  throw std::runtime_error("memcached did not start listening");
}

void MemcachedProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void MemcachedProcess::start_again() {
  if (pid_ > 0) return;
  spawn();
}

// SIGSTOP is asynchronous: returns once /proc says the process is stopped, so that what a
// test measures next is against a frozen memcached, not one finishing its last request.
void MemcachedProcess::pause() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGSTOP);
  for (int i = 0; i < 1000; ++i) {
    std::FILE* f = std::fopen(("/proc/" + std::to_string(pid_) + "/stat").c_str(), "r");
    char state = '?';
    if (f) {
      (void)std::fscanf(f, "%*d %*s %c", &state);
      std::fclose(f);
    }
    if (state == 'T' || state == 't') return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  throw std::runtime_error("memcached did not stop within 1 s of SIGSTOP");
}

void MemcachedProcess::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

std::string memcached_raw(int port, const std::string& command, const std::string& until) {
  int fd = connect_loopback(port);
  if (fd < 0) throw std::runtime_error("cannot connect to memcached");
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  size_t off = 0;
  while (off < command.size()) {
    ssize_t n = ::write(fd, command.data() + off, command.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("write to memcached failed");
    }
    off += static_cast<size_t>(n);
  }
  std::string reply;
  char buf[4096];
  while (reply.find(until) == std::string::npos) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return reply;
}

}  // namespace hitcost::testing
