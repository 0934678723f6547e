#pragma once
// Runs a command as the leader of a session of its own (setsid), so that everything it
// starts — a server sent to the background by a README block, a build a script's --help
// should not have begun — can be found afterwards and stopped: the session's process group.
#include <string>
#include <vector>

namespace hitcost::readme {

struct SessionResult {
  int exit_code = -1;     // -1 when it did not exit normally
  int term_signal = 0;
  bool timed_out = false;  // the whole group was killed after timeout_ms
  std::string out, err;
  // Processes of its group still running grace_ms after it exited ("PID cmdline" each);
  // they have been killed (SIGTERM, then SIGKILL).
  std::vector<std::string> left_running;
};

SessionResult run_in_session(const std::vector<std::string>& argv, const std::string& cwd,
                             int timeout_ms, int grace_ms);

}  // namespace hitcost::readme
