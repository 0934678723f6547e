#pragma once
// A real hitcost-server process for integration tests, on a free port (--port 0).
#include <sys/types.h>

#include <string>
#include <vector>

namespace hitcost::testing {

std::string server_binary();  // the hitcost-server built next to the tests

class ServerProcess {
 public:
  // Starts hitcost-server with `args` plus --port 0 (unless `args` name a --port) and waits for
  // "listening on". `wrapper`, when given, is a command that execs the server as its last
  // arguments in the same process (prlimit, unshare + sh -c '... exec "$@"'), so pid() is still
  // the server's.
  explicit ServerProcess(std::vector<std::string> args, std::vector<std::string> wrapper = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  // What the server printed to stdout before "listening on" (its memcached nodes' states).
  const std::string& startup_output() const { return startup_output_; }
  pid_t pid() const { return pid_; }
  void signal(int sig);
  // Waits for exit; returns the wait status, or -1 on timeout.
  int wait_exit(int timeout_ms);
  bool alive();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string startup_output_;
};

}  // namespace hitcost::testing
