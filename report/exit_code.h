#pragma once
// What hitcost-load's exit status means; the README's table, hitcost-server's codes and
// scripts/lib.sh's EXIT_* use the same numbers. When several apply, the first of
// interrupted, usage, failed, output, errors wins: a script can tell "stopped by the user"
// from "figures are wrong" from "figures were not saved".
namespace hitcost::client {

enum ExitCode : int {
  kExitOk = 0,             // a measurement that is a measurement (errors within --max-*-error-rate)
  kExitFailed = 1,         // nothing measured: server unreachable, no response, set-up failure
  kExitUsage = 2,          // bad option or value (also one the server refused: 400 on /admin/config)
  kExitErrors = 3,         // the run had errors above --max-error-rate / --max-transport-error-rate
  kExitOutput = 4,         // --json/--csv/--hdr/--html could not be written (path and OS reason printed)
  kExitInterrupted = 130,  // SIGINT or SIGTERM: figures over the window that ran, marked interrupted
};

// The more important of two outcomes (see the order above).
constexpr int worse_exit(int a, int b) {
  auto rank = [](int c) {
    switch (c) {
      case kExitInterrupted: return 5;
      case kExitUsage: return 4;
      case kExitFailed: return 3;
      case kExitOutput: return 2;
      case kExitErrors: return 1;
      default: return 0;
    }
  };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace hitcost::client
