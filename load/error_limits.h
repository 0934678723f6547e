#pragma once
// When a run's errors make its figures something other than a measurement of what was asked.
//
// Two kinds, two limits:
// - wrong answers (status, parse, validation): the server answered, but not the page asked
//   for — a 400 for a misspelt strategy, a 404 for a wrong --path-template, a hit where a
//   miss was forced. The figures then describe the error path. Fraction of responses
//   (requests + parse errors); default limit 0.
// - transport errors (connect, read, write, timeout): the load did not get through. Part of
//   measuring an overloaded server (timeouts are in the latency), so a small share is
//   allowed. Fraction of attempts (responses + these errors); default limit 0.01.
// A run over either limit makes hitcost-load exit kExitErrors (report/exit_code.h).
#include <optional>
#include <string>

#include "load/load_runner.h"

namespace hitcost::client {

struct ErrorLimits {
  double wrong_answers = 0;  // --max-error-rate
  double transport = 0.01;   // --max-transport-error-rate
};

// nullopt when within both limits; else one line saying which and by how much, e.g.
// "87901 wrong answers (status 87901) in 87901 responses = 100% > --max-error-rate 0".
std::optional<std::string> over_error_limit(const LoadResult& r, const ErrorLimits& limits);

}  // namespace hitcost::client
