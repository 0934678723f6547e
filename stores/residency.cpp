#include "stores/residency.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "core/io_util.h"

namespace hitcost {
namespace {

constexpr long kSysCachestat = 451;  // x86_64 / generic, since Linux 6.5

struct CachestatRange {
  uint64_t off, len;  // len 0 = to end of file
};
struct Cachestat {
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

}  // namespace

Result<Residency> file_residency(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{Errc::io_error, io::errno_text("fstat", errno)};
  Residency r;
  r.file_bytes = static_cast<uint64_t>(st.st_size);
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  CachestatRange range{0, 0};
  Cachestat cs{};
  if (::syscall(kSysCachestat, fd, &range, &cs, 0) == 0) {
    r.resident_bytes = cs.nr_cache * page;
    r.dirty_bytes = cs.nr_dirty * page;
    r.via_cachestat = true;
    return r;
  }
  if (errno != ENOSYS && errno != EPERM) return Error{Errc::io_error, io::errno_text("cachestat", errno)};
  if (r.file_bytes == 0) return r;
  void* m = ::mmap(nullptr, r.file_bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return Error{Errc::io_error, io::errno_text("mmap", errno)};
  std::vector<unsigned char> vec((r.file_bytes + page - 1) / page);
  int rc = ::mincore(m, r.file_bytes, vec.data());
  int err = errno;
  ::munmap(m, r.file_bytes);
  if (rc != 0) return Error{Errc::io_error, io::errno_text("mincore", err)};
  for (unsigned char v : vec) r.resident_bytes += (v & 1) ? page : 0;
  if (r.resident_bytes > r.file_bytes) r.resident_bytes = r.file_bytes;
  return r;
}

}  // namespace hitcost
