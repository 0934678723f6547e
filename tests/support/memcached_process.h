#pragma once
// A real memcached for tests: started on a free loopback port, stopped (SIGKILL)
// in the destructor. Tests that need memcached each start their own.
#include <sys/types.h>

#include <string>
#include <vector>

namespace hitcost::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it back).
int free_loopback_port();

class MemcachedProcess {
 public:
  // Starts memcached (memory in MiB). Throws std::runtime_error if it does not answer.
  explicit MemcachedProcess(int memory_mb = 64, std::vector<std::string> extra_args = {});
  ~MemcachedProcess();
  MemcachedProcess(const MemcachedProcess&) = delete;
  MemcachedProcess& operator=(const MemcachedProcess&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  void kill_now();     // SIGKILL and reap
  void start_again();  // restart on the same port (after kill_now)
  void pause();        // SIGSTOP: a frozen memcached (returns once it is stopped)
  void resume();       // SIGCONT

 private:
  void spawn();
  int port_ = 0;
  pid_t pid_ = -1;
  int memory_mb_;
  std::vector<std::string> extra_args_;
};

// Sends a raw text-protocol command and returns the reply up to and including `until`
// (e.g. "END\r\n"); for planting values and reading stats without going through hitcost.
std::string memcached_raw(int port, const std::string& command, const std::string& until);

}  // namespace hitcost::testing
