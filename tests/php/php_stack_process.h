#pragma once
// scripts/php-stack.sh as a child process: the real php-fpm and nginx serving php/, on a
// free loopback port. The script's stdout and stderr go to files in a private directory
// (a pipe closed early would SIGPIPE the script and skip its cleanup).
#include <sys/types.h>

#include <string>
#include <vector>

namespace hitcost::testing {

// Exists and is not a zombie.
bool process_running(pid_t pid);

class PhpStackProcess {
 public:
  // Runs scripts/php-stack.sh ARGS --time-limit `time_limit_s` and waits for the two lines
  // it prints once /healthz answers. Throws std::runtime_error with the script's stderr
  // when it does not come up.
  explicit PhpStackProcess(const std::vector<std::string>& args, int time_limit_s = 240);
  ~PhpStackProcess();
  PhpStackProcess(const PhpStackProcess&) = delete;
  PhpStackProcess& operator=(const PhpStackProcess&) = delete;

  int port() const { return port_; }
  pid_t nginx_pid() const { return nginx_pid_; }
  pid_t fpm_pid() const { return fpm_pid_; }
  // Masters and workers, as printed (fpm master, its workers, nginx master, its worker).
  const std::vector<pid_t>& printed_pids() const { return pids_; }
  std::string stderr_text() const;

  // Sends `sig` to the script and waits for it to exit (up to timeout_ms). Returns the
  // printed pids still running afterwards: empty when the script cleaned up.
  std::vector<pid_t> stop(int sig, int timeout_ms = 20000);
  // Waits for the script to exit by itself (--time-limit); the same return as stop().
  std::vector<pid_t> wait_exit(int timeout_ms);

 private:
  bool reap(int timeout_ms);
  void cleanup();  // TERM the script (KILL if it hangs), remove the directory
  std::vector<pid_t> survivors() const;

  std::string dir_;
  pid_t script_pid_ = -1;
  int port_ = 0;
  pid_t nginx_pid_ = -1, fpm_pid_ = -1;
  std::vector<pid_t> pids_;
};

}  // namespace hitcost::testing
