#pragma once
// The process's own accounting: CPU from getrusage(RUSAGE_SELF) (fine over an
// interval, useless per request: it moves in 4 ms steps here) and /proc/self/io.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// Current resident set size in KiB (/proc/self/statm). It counts the pages of mapped
// files too: an mmap store with its file in the page cache "uses" the whole file.
uint64_t process_rss_kb();

// Proportional set sizes from /proc/self/smaps_rollup, in KiB: each page shared by N
// processes counts 1/N. Anon = heap, stacks, anonymous mappings; File = pages of mapped
// files (the binary, libraries, an mmap store's file: page cache the kernel can drop and
// read back); Shmem = tmpfs and shared anonymous memory (a store file on tmpfs lands here).
// A field the kernel does not report stays empty: smaps_rollup needs Linux 4.14, the
// Pss_Anon/Pss_File/Pss_Shmem split 5.9.
struct ProcessMemory {
  std::optional<uint64_t> pss_kb, pss_anon_kb, pss_file_kb, pss_shmem_kb;
};
ProcessMemory process_memory();
// Parses the text of an smaps_rollup file (exposed for tests: older kernels' layouts).
ProcessMemory parse_smaps_rollup(std::string_view text);

// Cpus_allowed_list of local process `pid` if its name is `comm` (e.g. "0-1"), else "unknown".
std::string local_process_cpus(int64_t pid, const std::string& comm);

}  // namespace hitcost::server
