#include "core/io_util.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hitcost::io {

std::string errno_text(const char* what, int err) { return std::string(what) + ": " + std::strerror(err); }

Result<size_t> pread_full(int fd, void* buf, size_t n, off_t offset) {
  auto* p = static_cast<char*>(buf);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, p + done, n - done, offset + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{Errc::io_error, errno_text("pread", errno)};
    }
    if (r == 0) break;  // end of file
    done += static_cast<size_t>(r);
  }
  return done;
}

Result<size_t> preadv_full(int fd, struct iovec* iov, int iovcnt, off_t offset) {
  size_t done = 0;
  while (iovcnt > 0) {
    ssize_t r = ::preadv(fd, iov, iovcnt, offset + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{Errc::io_error, errno_text("preadv", errno)};
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
    auto left = static_cast<size_t>(r);
    while (iovcnt > 0 && left >= iov->iov_len) {  // drop fully served buffers
      left -= iov->iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return done;
}

Status pwrite_full(int fd, const void* buf, size_t n, off_t offset) {
  const auto* p = static_cast<const char*>(buf);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pwrite(fd, p + done, n - done, offset + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{Errc::io_error, errno_text("pwrite", errno)};
    }
    done += static_cast<size_t>(r);
  }
  return ok_status();
}

Status write_full(int fd, const void* buf, size_t n) {
  const auto* p = static_cast<const char*>(buf);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::write(fd, p + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{Errc::io_error, errno_text("write", errno)};
    }
    done += static_cast<size_t>(r);
  }
  return ok_status();
}

Status datasync(int fd) {
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) return Error{Errc::io_error, errno_text("fdatasync", errno)};
  }
  return ok_status();
}

}  // namespace hitcost::io
