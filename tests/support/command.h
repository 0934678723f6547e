#pragma once
// Runs a program as a test would from a shell, without a shell: argv as given, stdout and
// stderr captured apart, the exit code or the signal that ended it, and optionally a signal
// sent to it after a delay (to test how it reacts to Ctrl-C or SIGTERM).
#include <string>
#include <vector>

namespace hitcost::testing {

struct CommandResult {
  int exit_code = -1;    // -1 when it did not exit normally
  int term_signal = 0;   // the signal that ended it, 0 when it exited
  bool timed_out = false;  // killed (SIGKILL) after timeout_ms
  std::string out, err;
};

struct CommandOptions {
  int timeout_ms = 120'000;
  int signal = 0;            // sent once, signal_after_ms after the start (0 = none)
  int signal_after_ms = 0;
};

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// The programs built next to the tests.
std::string load_binary();  // hitcost-load

}  // namespace hitcost::testing
