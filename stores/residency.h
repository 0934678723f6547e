#pragma once
// How much of a file sits in the page cache, without root.
// cachestat(2) (Linux >= 6.5, syscall 451) answers in one call for the whole file; on older
// kernels (ENOSYS) the file is mapped briefly and mincore(2) counts resident pages.
// Thread-safety: stateless, safe from any thread.
#include <cstdint>

#include "core/result.h"

namespace hitcost {

struct Residency {
  uint64_t file_bytes = 0;      // st_size
  uint64_t resident_bytes = 0;  // bytes of the file in the page cache
  uint64_t dirty_bytes = 0;     // cachestat only (0 with mincore)
  bool via_cachestat = false;
};

Result<Residency> file_residency(int fd);

}  // namespace hitcost
