#pragma once
// The process's own accounting: CPU from getrusage(RUSAGE_SELF) (fine over an
// interval, useless per request: it moves in 4 ms steps here) and /proc/self/io.
#include <cstdint>
#include <string>

namespace hitcost::server {

struct ProcessCpu {
  double user_s = 0, system_s = 0;
  uint64_t voluntary_switches = 0, involuntary_switches = 0;
  uint64_t max_rss_kb = 0;
};
ProcessCpu process_cpu();

// /proc/self/io: syscalls and bytes through read/write-like calls (includes sockets).
struct ProcessIo {
  uint64_t rchar = 0, wchar = 0, syscr = 0, syscw = 0, read_bytes = 0, write_bytes = 0;
  bool ok = false;
};
ProcessIo process_io();

// Current resident set size in KiB (/proc/self/statm).
uint64_t process_rss_kb();

// Cpus_allowed_list of local process `pid` if its name is `comm` (e.g. "0-1"), else "unknown".
std::string local_process_cpus(int64_t pid, const std::string& comm);

}  // namespace hitcost::server
