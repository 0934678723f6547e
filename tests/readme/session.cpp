#include "tests/readme/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hitcost::readme {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Live members of process group `pgid` (zombies left out: an orphan's zombie waits for a
// reaper that may be slow to come in a container), as "PID cmdline".
std::vector<std::string> group_members(pid_t pgid) {
  std::vector<std::string> members;
  DIR* proc = ::opendir("/proc");
  if (!proc) return members;
  while (const dirent* e = ::readdir(proc)) {
    const std::string name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp("/proc/" + name + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp != pgid || state == 'Z' || state == 'X') continue;
    std::string cmdline = slurp("/proc/" + name + "/cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    members.push_back(name + " " + cmdline);
  }
  ::closedir(proc);
  return members;
}

std::string temp_file() {
  char path[] = "/tmp/hitcost-readme-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  return path;
}

}  // namespace

SessionResult run_in_session(const std::vector<std::string>& argv, const std::string& cwd,
                             int timeout_ms, int grace_ms) {
  const std::string out_path = temp_file(), err_path = temp_file();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setsid();
    const int out = ::open(out_path.c_str(), O_WRONLY | O_TRUNC);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_TRUNC);
    const int null = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || null < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  SessionResult r;
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (clock::now() - start > std::chrono::milliseconds(timeout_ms)) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);

  // What it started may be on its way out (a server told to stop): give it grace_ms.
  const auto exited = clock::now();
  std::vector<std::string> left = group_members(pid);
  while (!left.empty() && clock::now() - exited < std::chrono::milliseconds(grace_ms)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = group_members(pid);
  }
  r.left_running = left;
  if (!left.empty()) {
    ::kill(-pid, SIGTERM);
    for (int i = 0; i < 40 && !group_members(pid).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(-pid, SIGKILL);
  }
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

}  // namespace hitcost::readme
