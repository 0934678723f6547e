#pragma once
// fdatasync/fsync calls observed, not the code's own bookkeeping of them (issue 33): a sync
// policy's promise is only kept if the system call is made, and a test that reads the stores' or
// the log's counters would pass if io::datasync or timed_datasync returned 0 without calling it.
//
// In this process: executables linked with hitcost_sync_probe (tests/CMakeLists.txt) have every
// fdatasync and fsync of the code they link redirected (-Wl,--wrap) through a counter, by file.
// In a hitcost-server: sync_probe_wrapper(record) starts it with tests' sync-probe library
// preloaded, which appends a line "DEV:INO" to `record` per call before making it.
#include <cstdint>
#include <string>
#include <vector>

namespace hitcost::testing {

// fdatasync + fsync calls this process made on the file at `path` (by device and inode) since it
// started; 0 for a file that does not exist. Only in executables linked with hitcost_sync_probe.
uint64_t syncs_on(const std::string& path);
// Forgets every count: a test starts from none (a deleted file's inode is soon reused).
void forget_syncs();

// A ServerProcess wrapper (`env ...`) that preloads the probe and records into `record`.
std::vector<std::string> sync_probe_wrapper(const std::string& record);
// Calls a probed server made on the file at `path`, read from `record` (0 when none yet).
uint64_t recorded_syncs_on(const std::string& record, const std::string& path);

}  // namespace hitcost::testing
