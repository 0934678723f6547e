#include "tests/support/command.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hitcost::testing {

std::string load_binary() { return std::string(HITCOST_BINARY_DIR) + "/client/hitcost-load"; }
std::string corpus_binary() { return std::string(HITCOST_BINARY_DIR) + "/advise/hitcost-corpus"; }

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// --- output ---------------------------------------------------------------------------------

// Output goes to an in-memory file, not a pipe: a process the command left in the background
// holds the write end, so a pipe would not reach end-of-file when the command exits, and a
// child never blocks on a full pipe while the test is busy waiting or sending it a signal.
int capture_file(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error("memfd_create failed");
  return fd;
}

// pread: the child shares the file offset, which stays at the end of what it wrote.
std::string read_all(int fd) {
  std::string text;
  char buf[65536];
  ssize_t n = 0;
  while ((n = ::pread(fd, buf, sizeof buf, off_t(text.size()))) > 0) text.append(buf, size_t(n));
  return text;
}

// --- starting it ----------------------------------------------------------------------------

// The test's environment with `added` ("NAME=value") in place of the same names.
std::vector<std::string> environment_with(const std::vector<std::string>& added) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string& a : added) replaced = replaced || a.compare(0, name.size(), name) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), added.begin(), added.end());
  return env;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Between fork and exec only async-signal-safe calls (the test may have threads holding
// malloc's lock): everything exec needs is built before the fork. 126: it could not be set
// up; 127: it could not be run (as a shell says).
[[noreturn]] void become_command(char* const* argv, char* const* envp, const CommandOptions& options, int in, int out,
                                 int err) {
  if (options.own_session && ::setsid() < 0) ::_exit(126);
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
  ::execvpe(argv[0], argv, envp);
  ::_exit(127);
}

pid_t start(const std::vector<std::string>& argv, const CommandOptions& options, int in, int out, int err) {
  const std::vector<std::string> env = environment_with(options.env);
  const std::vector<char*> args = c_strings(argv), envp = c_strings(env);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) become_command(args.data(), envp.data(), options, in, out, err);
  return pid;
}

// --- its session ----------------------------------------------------------------------------

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every process whose session id (field 6 of /proc/PID/stat) is `sid`, found whatever its
// parent or process group now is. Zombies are left out: a zombie has ended, only its parent's
// reaping is missing (and an orphan's reaper may be slow to come in a container).
std::vector<LeftProcess> alive_in_session(pid_t sid) {
  std::vector<LeftProcess> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) throw std::runtime_error("cannot read /proc");
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp("/proc/" + name + "/stat");
    // comm may hold spaces and parentheses: it ends at the last ')'.
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    long ppid = 0, pgrp = 0, session = 0;
    if (!(rest >> state >> ppid >> pgrp >> session)) continue;
    if (session != sid || state == 'Z' || state == 'X') continue;
    std::string cmdline = slurp("/proc/" + name + "/cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    while (!cmdline.empty() && cmdline.back() == ' ') cmdline.pop_back();
    found.push_back({pid_t(std::stol(name)), stat.substr(open + 1, close - open - 1), cmdline});
  }
  ::closedir(proc);
  return found;
}

// The session leader's process group at once (a kill to a group cannot miss a child being
// forked), then each member one by one: some may have moved to a group of their own.
void signal_session(pid_t sid, int sig) {
  ::kill(-sid, sig);
  for (const LeftProcess& p : alive_in_session(sid)) ::kill(p.pid, sig);
}

bool session_ends_within(pid_t sid, int ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  while (!alive_in_session(sid).empty()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// What it started may be on its way out (a server told to stop): it has grace_ms.
std::vector<LeftProcess> left_after_grace(pid_t sid, int grace_ms) {
  if (session_ends_within(sid, grace_ms)) return {};
  return alive_in_session(sid);
}

// A chance to clean up first; then gone before the next command starts, so one test's
// leftovers do not hold another's ports.
void stop_session(pid_t sid) {
  signal_session(sid, SIGTERM);
  if (session_ends_within(sid, 2'000)) return;
  signal_session(sid, SIGKILL);
  session_ends_within(sid, 1'000);
}

// --- waiting for it -------------------------------------------------------------------------

// Its wait status, after sending options.signal on time and killing it at the deadline. `out`
// and `err` are what it has written so far (for options.signal_after_output).
int wait_for_exit(pid_t pid, const CommandOptions& options, int out, int err, bool& timed_out) {
  const auto start = Clock::now();
  auto since_ms = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  };
  const pid_t signal_target = options.own_session && options.signal_group ? -pid : pid;
  bool signalled = options.signal == 0;
  std::optional<Clock::time_point> signal_from;  // when the signal's delay starts counting
  if (options.signal_after_output.empty()) signal_from = start;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (!signalled && !signal_from &&
        (read_all(out).find(options.signal_after_output) != std::string::npos ||
         read_all(err).find(options.signal_after_output) != std::string::npos))
      signal_from = Clock::now();
    // A group that does not exist yet (the child has not reached setsid()) is tried again.
    if (!signalled && signal_from && since_ms(*signal_from) >= options.signal_after_ms)
      signalled = ::kill(signal_target, options.signal) == 0 || errno != ESRCH;
    if (since_ms(start) >= options.timeout_ms) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  timed_out = true;
  // The child itself too: a deadline shorter than its way to setsid() must still end it.
  ::kill(pid, SIGKILL);
  if (options.own_session) signal_session(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  return status;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  const Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw std::runtime_error("cannot open /dev/null");
  const Fd out(capture_file("stdout")), err(capture_file("stderr"));
  const pid_t pid = start(argv, options, in.fd, out.fd, err.fd);

  CommandResult r;
  const int status = wait_for_exit(pid, options, out.fd, err.fd, r.timed_out);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (options.own_session) {
    // Its session id is its pid (setsid made it the leader), and stays so after it is reaped.
    r.left_running = left_after_grace(pid, options.grace_ms);
    if (!r.left_running.empty()) stop_session(pid);
  }
  // Read last: what the leftovers wrote until they were stopped is part of the story.
  r.out = read_all(out.fd);
  r.err = read_all(err.fd);
  return r;
}

std::string describe(const LeftProcess& process) {
  return std::to_string(process.pid) + " (" + process.comm + ") " + process.cmdline;
}

std::string describe(const std::vector<LeftProcess>& processes) {
  std::string lines;
  for (const LeftProcess& p : processes) lines += "  " + describe(p) + "\n";
  return lines;
}

}  // namespace hitcost::testing
