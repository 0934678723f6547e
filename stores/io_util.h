#pragma once
// Full-length system-call loops and an owning file descriptor.
// Every loop retries EINTR and continues after short counts; reads stop early only at
// end of file. Thread-safety: plain functions, safe from any thread (positional I/O).
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <string>

#include "codecs/result.h"

namespace hitcost::io {

// Owns one file descriptor; closes it on destruction (close errors are ignored there).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

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
