#include "stores/pread_store.h"

#include <sys/uio.h>

#include <cstring>

namespace hitcost {

Result<std::unique_ptr<PreadStore>> PreadStore::open(FileStoreOptions opts) {
  std::unique_ptr<PreadStore> s(new PreadStore(std::move(opts)));
  if (auto st = s->FileStore::open(); !st) return st.error();
  return s;
}

Status PreadStore::read_record(const IndexEntry& e, std::string_view key, storefile::RecordHeader& h,
                               std::string& value) {
  const uint64_t off = storefile::kFileHeaderBytes + e.offset;
  const size_t want = sizeof h + key.size() + e.value_len;
  if (options().cold) drop_range(off, want);
  thread_local std::string key_buf;
  key_buf.resize(key.size());
  iovec iov[3] = {{&h, sizeof h}, {key_buf.data(), key.size()}, {value.data(), e.value_len}};
  auto r = io::preadv_full(fd(), iov, 3, static_cast<off_t>(off));
  if (!r) return r.error();
  if (*r != want) return Error{Errc::io_error, "short read: store file truncated"};
  if (std::memcmp(key_buf.data(), key.data(), key.size()) != 0) return Error{Errc::corrupt, "key mismatch"};
  return ok_status();
}

}  // namespace hitcost
