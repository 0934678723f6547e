#include "tests/support/server_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace hitcost::testing {

std::string server_binary() { return std::string(HITCOST_BINARY_DIR) + "/server/hitcost-server"; }

ServerProcess::ServerProcess(std::vector<std::string> args, std::vector<std::string> wrapper) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> full = std::move(wrapper);
  full.push_back(server_binary());
  if (std::find(args.begin(), args.end(), "--port") == args.end()) {
    full.push_back("--port");
    full.push_back("0");
  }
  for (auto& a : args) full.push_back(a);
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(out[1], 1);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  // Read stdout until "listening on 127.0.0.1:PORT\n" (or EOF: the server failed). Lines
  // before it (one per memcached node) are kept for startup_output().
  std::string got;
  char c;
  FILE* f = ::fdopen(out[0], "r");
  while (std::fread(&c, 1, 1, f) == 1) {
    if (c != '\n') {
      got += c;
      continue;
    }
    if (got.rfind("listening on ", 0) == 0) break;
    startup_output_ += got + "\n";
    got.clear();
  }
  std::fclose(f);
  auto colon = got.rfind(':');
  if (got.rfind("listening on ", 0) != 0 || colon == std::string::npos) {
    wait_exit(2000);
    throw std::runtime_error("hitcost-server did not start: '" + got + "'");
  }
  port_ = std::stoi(got.substr(colon + 1));
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait_exit(5000);
  }
}

void ServerProcess::signal(int sig) {
  if (pid_ > 0) ::kill(pid_, sig);
}

bool ServerProcess::alive() {
  if (pid_ <= 0) return false;
  int status;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int ServerProcess::wait_exit(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (pid_ > 0) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return status;
    }
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

}  // namespace hitcost::testing
