#pragma once
// What hitcost-server settles once at start, before its port binds, so that it is safe to leave
// running where others can reach it (a shared cluster):
// - the admin token from a file (--admin-token-file: a token on the command line is in every
//   `ps` listing);
// - a corpus served beyond loopback only when redacted, or when the user says so
//   (--serve-unredacted): sampled production values may hold personal data;
// - the open-file limit raised to the hard limit, as nginx's worker_rlimit_nofile does, so that
//   thousands of keep-alive connections (K load pods) need no tuning; said at start.
#include <cstdint>
#include <string>

#include "core/result.h"

namespace hitcost::server {

// The token in `path`: its first line, surrounding blanks removed. io_error naming the file when
// it cannot be read; invalid_argument when it holds no token.
Result<std::string> read_admin_token_file(const std::string& path);

// Whether a server bound to `host` can be reached from another machine: anything but a
// loopback address (127.0.0.0/8, ::1) or "localhost".
bool listens_beyond_loopback(const std::string& host);

struct OpenFileLimit {
  uint64_t soft_before = 0, soft = 0, hard = 0;  // RLIM_INFINITY reads as UINT64_MAX
  int error = 0;                                 // errno of a failed getrlimit/setrlimit, else 0
};
// Raises RLIMIT_NOFILE's soft limit to its hard limit; what it found and got.
OpenFileLimit raise_open_file_limit() noexcept;
// "open files: 1048576 (raised from 1024, the hard limit)" or "... (the hard limit already)".
std::string open_file_line(const OpenFileLimit& l);

}  // namespace hitcost::server
