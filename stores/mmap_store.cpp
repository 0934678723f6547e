#include "stores/mmap_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hitcost {

Result<std::unique_ptr<MmapStore>> MmapStore::open(FileStoreOptions opts) {
  std::unique_ptr<MmapStore> s(new MmapStore(std::move(opts)));
  if (auto st = s->FileStore::open(); !st) return st.error();
  return s;
}

MmapStore::~MmapStore() { detach(); }

Status MmapStore::attach() {
  int flags = MAP_SHARED | (options().populate ? MAP_POPULATE : 0);
  void* m = ::mmap(nullptr, file_bytes(), PROT_READ, flags, fd(), 0);
  if (m == MAP_FAILED) return Error{Errc::io_error, io::errno_text("mmap", errno)};
  map_ = static_cast<const unsigned char*>(m);
  map_len_ = file_bytes();
  guard_ = SigbusRange(map_, map_len_, &fault_counter());
  int adv = -1;
  switch (options().advise) {
    case Advice::normal: adv = MADV_NORMAL; break;
    case Advice::random: adv = MADV_RANDOM; break;
    case Advice::sequential: adv = MADV_SEQUENTIAL; break;
    case Advice::willneed: adv = MADV_WILLNEED; break;
    case Advice::none: break;
  }
  if (adv >= 0) ::madvise(m, map_len_, adv);
  return ok_status();
}

void MmapStore::detach() {
  guard_.reset();
  if (map_) ::munmap(const_cast<unsigned char*>(map_), map_len_);
  map_ = nullptr;
  map_len_ = 0;
}

void MmapStore::drop_range(uint64_t file_off, uint64_t len) {
  // Mapped pages are not dropped by fadvise: unmap them from this process first.
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t b = file_off & ~(page - 1);
  const uint64_t e = std::min<uint64_t>((file_off + len + page - 1) & ~(page - 1), map_len_);
  if (map_ && e > b) ::madvise(const_cast<unsigned char*>(map_) + b, e - b, MADV_DONTNEED);
  FileStore::drop_range(file_off, len);
}

Status MmapStore::read_record(const IndexEntry& e, std::string_view key, storefile::RecordHeader& h,
                              std::string& value) {
  if (!map_) return Error{Errc::io_error, "store file not mapped"};
  const uint64_t off = storefile::kFileHeaderBytes + e.offset;
  if (options().cold) drop_range(off, storefile::kRecordHeaderBytes + key.size() + e.value_len);
  const unsigned char* p = map_ + off;
  std::memcpy(&h, p, sizeof h);
  if (std::memcmp(p + sizeof h, key.data(), key.size()) != 0) return Error{Errc::corrupt, "key mismatch"};
  std::memcpy(value.data(), p + sizeof h + key.size(), e.value_len);
  return ok_status();
}

}  // namespace hitcost
