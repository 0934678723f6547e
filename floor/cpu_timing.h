#pragma once
// CPU per call of an operation, measured for a calibration: thread CPU (core/clock.h
// thread_cpu_ns) around batches of calls, in repeats interleaved across every operation of the
// calibration (repeat 1 of each, then repeat 2 of each...) so that the machine's drift — these
// VMs change speed by up to 1.5x from one second to the next — falls on every operation alike.
// The figure is the median of the repeats, with their min and max beside it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hitcost::floor {

struct Timing {
  double median_ns = 0, min_ns = 0, max_ns = 0;  // CPU per call
  uint64_t calls = 0;                            // in all repeats
  int repeats = 0;
};

// One operation to time. `op` does one call and says whether it did its work right: an op is
// run (and checked) once before any timing, and an op that fails then is never timed.
struct TimedOp {
  std::function<bool()> op;
  std::function<bool()> check;  // optional: after the first call, whether its result is right
  Timing timing;
  bool ok = false;
  std::string error;  // why it was not timed
};

struct TimingPlan {
  int repeats = 5;
  std::chrono::nanoseconds slice = std::chrono::milliseconds(2);  // thread CPU per op per repeat
};

// Times every op of `ops` (pointers into the caller's table) as described above.
void time_interleaved(const std::vector<TimedOp*>& ops, const TimingPlan& plan);

}  // namespace hitcost::floor
