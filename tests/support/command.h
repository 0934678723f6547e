#pragma once
// Runs a program as a test would from a shell, without a shell: argv as given (argv[0] looked
// up in PATH when it has no '/'), stdin from /dev/null, stdout and stderr captured apart, the
// exit code or the signal that ended it. Optionally: a working directory, variables added to
// the environment, a signal sent after a delay (to test how it reacts to Ctrl-C or SIGTERM),
// and a session of its own (setsid) so that everything it started — a server sent to the
// background, a script's cleanup that died half-way — is found after it exited, reported and
// stopped.
#include <sys/types.h>

#include <string>
#include <vector>

namespace hitcost::testing {

// A process of the command's session still alive (not a zombie) grace_ms after it exited.
struct LeftProcess {
  pid_t pid = 0;
  std::string comm;     // the name in /proc/PID/stat
  std::string cmdline;  // its arguments joined by spaces; "" when it has none to show
};

struct CommandResult {
  int exit_code = -1;      // -1 when it did not exit normally
  int term_signal = 0;     // the signal that ended it, 0 when it exited
  bool timed_out = false;  // killed (SIGKILL; its whole session when own_session) after timeout_ms
  std::string out, err;
  // own_session only: what was left running; each has since been stopped (SIGTERM, then SIGKILL).
  std::vector<LeftProcess> left_running;
};

// Every member has an initializer, so designated initializers ({.timeout_ms = 30'000}) may leave
// any out without -Wmissing-field-initializers.
struct CommandOptions {
  int timeout_ms = 120'000;
  int signal = 0;  // sent once, signal_after_ms after the start (0 = none)
  int signal_after_ms = 0;
  // Non-empty: signal_after_ms counts from when this text first shows in the command's stdout
  // or stderr, not from the start (a phase the command announces, whenever it comes on a busy
  // machine). If it never shows, the signal is never sent.
  std::string signal_after_output{};
  bool signal_group = false;       // own_session only: `signal` goes to its process group, not only the child
  std::string cwd{};               // "" = the test's own
  std::vector<std::string> env{};  // "NAME=value", added to the test's environment (replacing NAME)
  bool own_session = false;        // setsid, and left_running is filled
  int grace_ms = 0;  // own_session: how long what it started may take to end after it exited (0 = look once)
};

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// "PID (comm) cmdline"; for a list, one such line per process, indented: for a failure message.
std::string describe(const LeftProcess& process);
std::string describe(const std::vector<LeftProcess>& processes);

// The programs built next to the tests.
std::string load_binary();    // hitcost-load
std::string corpus_binary();  // hitcost-corpus

}  // namespace hitcost::testing
