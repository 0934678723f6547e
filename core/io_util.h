#pragma once
// Full-length system-call loops (the owning descriptor is core/unique_fd.h).
// Every loop retries EINTR and continues after short counts; reads stop early only at
// end of file. Thread-safety: plain functions, safe from any thread (positional I/O).
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <string>

#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::io {

// "what: strerror(err)".
std::string errno_text(const char* what, int err);

// Reads up to n bytes at `offset`. Returns the bytes read (< n only at end of file) or an
// io_error. Never returns a partial count because of EINTR or a short read.
Result<size_t> pread_full(int fd, void* buf, size_t n, off_t offset);
// Scatter read of the iovec list (modified in place while progressing); same contract.
Result<size_t> preadv_full(int fd, struct iovec* iov, int iovcnt, off_t offset);
// Writes all n bytes at `offset` or fails with io_error.
Status pwrite_full(int fd, const void* buf, size_t n, off_t offset);
// Writes all n bytes at the file position (O_APPEND files: appended atomically per call).
Status write_full(int fd, const void* buf, size_t n);
// fdatasync, retried on EINTR.
Status datasync(int fd);

}  // namespace hitcost::io
