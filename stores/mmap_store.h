#pragma once
// MmapStore: the store file (store_file.h) read through a shared read-only mapping.
// A get is a hash lookup plus memcpy out of the mapping — no system call — so it costs
// tens of ns for small values while the pages are resident. Writes go through pwrite
// (FileStore), which the mapping sees through the page cache.
// A file truncated underneath cannot kill the process: faults in the mapping read zeros
// (sigbus_guard.h), the record fails its checksum, the get returns Errc::io_error, and
// the next call re-creates the file. Options: advise= (madvise), populate=1 (MAP_POPULATE),
// cold=1 (MADV_DONTNEED + POSIX_FADV_DONTNEED on the record before each get).
#include <memory>

#include "stores/file_store.h"
#include "stores/sigbus_guard.h"

namespace hitcost {

class MmapStore final : public FileStore {
 public:
  static Result<std::unique_ptr<MmapStore>> open(FileStoreOptions opts);
  ~MmapStore() override;

 protected:
  Status read_record(const IndexEntry& e, std::string_view key, storefile::RecordHeader& h,
                     std::string& value) override;
  Status attach() override;
  void detach() override;
  void drop_range(uint64_t file_off, uint64_t len) override;

 private:
  explicit MmapStore(FileStoreOptions opts) : FileStore(std::move(opts), "mmap") {}
  const unsigned char* map_ = nullptr;  // whole file; changed only with every lock held
  size_t map_len_ = 0;
  SigbusRange guard_;
};

}  // namespace hitcost
