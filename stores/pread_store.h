#pragma once
// PreadStore: the store file (store_file.h) read with one preadv(2) per get (header and key
// into a small buffer, the value straight into the caller's string). Same format, index,
// locks and writer as MmapStore (file_store.h): the only difference is the read path.
// Options: advise= (posix_fadvise), cold=1 (POSIX_FADV_DONTNEED on the record before each
// get). A short read (file truncated underneath) returns Errc::io_error and the next call
// re-creates the file.
#include <memory>

#include "stores/file_store.h"

namespace hitcost {

class PreadStore final : public FileStore {
 public:
  static Result<std::unique_ptr<PreadStore>> open(FileStoreOptions opts);
  ~PreadStore() override = default;

 protected:
  Status read_record(const IndexEntry& e, std::string_view key, storefile::RecordHeader& h,
                     std::string& value) override;
  Status attach() override { return ok_status(); }
  void detach() override {}

 private:
  explicit PreadStore(FileStoreOptions opts) : FileStore(std::move(opts), "pread") {}
};

}  // namespace hitcost
