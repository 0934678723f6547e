#include "stores/file_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "stores/residency.h"
#include "stores/sigbus_guard.h"

namespace hitcost {

using storefile::kFileHeaderBytes;
using storefile::kRecordHeaderBytes;
using storefile::RecordHeader;
using storefile::RecordType;

namespace {

uint32_t random_salt() {
  uint32_t s = 0;
  while (s == 0) {
    if (::getrandom(&s, sizeof s, 0) != static_cast<ssize_t>(sizeof s))
      s = static_cast<uint32_t>(::getpid()) ^ static_cast<uint32_t>(::time(nullptr));
  }
  return s;
}

// Holds every shard exclusively (in index order) for the lifetime of the object.
template <class Shard, size_t N>
class AllShardsLock {
 public:
  explicit AllShardsLock(Shard (&s)[N]) : s_(s) {
    for (auto& sh : s_) sh.mu.lock();
  }
  ~AllShardsLock() {
    for (auto& sh : s_) sh.mu.unlock();
  }
  AllShardsLock(const AllShardsLock&) = delete;
  AllShardsLock& operator=(const AllShardsLock&) = delete;

 private:
  Shard (&s_)[N];
};

// Undoes what a failed open did to the path: a file it created is removed, an empty file it
// filled is made empty again. A store file that was there is never removed or changed here.
struct UndoIfFailed {
  const std::string& path;
  int fd = -1;
  bool created = false, filled_empty = false;
  bool failed = true;
  ~UndoIfFailed() {
    if (!failed) return;
    if (created) ::unlink(path.c_str());
    if (filled_empty && fd >= 0) {
      const int rc = ::ftruncate(fd, 0);  // best effort: the open reports its own error
      (void)rc;
    }
  }
};

// "64M", "256K" or a byte count: a size as the spec's ?size= takes it, for messages.
std::string size_text(uint64_t bytes) {
  if (bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + "G";
  if (bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

// The first bytes of a file as text a message can quote: printable ASCII as is, the rest \xHH.
std::string quoted_start(const unsigned char* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
      out += static_cast<char>(p[i]);
    } else {
      out += "\\x";
      out += kHex[p[i] >> 4];
      out += kHex[p[i] & 15];
    }
  }
  return out + "\"";
}

// A refusal to open `path`: io_error, like a file that cannot be opened (hitcost-server exits 1).
Error refuse(const std::string& path, const std::string& why) {
  return Error{Errc::io_error, "store file " + path + ": " + why};
}

}  // namespace

FileStore::FileStore(FileStoreOptions opts, const char* kind) : opts_(std::move(opts)), kind_(kind) {}

// Subclasses detach() in their destructors. The syncer only uses fd_ and counters, so it may
// run until here; it makes its last sync before fd_ closes.
FileStore::~FileStore() { syncer_.reset(); }

std::string FileStore::describe() const { return std::string(kind_) + ":" + opts_.path; }

Status FileStore::count_error(const Error& e) {
  switch (e.code) {
    case Errc::corrupt: err_corrupt_.add(); break;
    case Errc::io_error: err_io_.add(); break;
    case Errc::too_large: err_too_large_.add(); break;
    case Errc::invalid_argument: err_invalid_.add(); break;
    default: err_io_.add(); break;
  }
  return e;
}

Status FileStore::validate_key(std::string_view key) {
  if (key.empty() || key.size() > storefile::kMaxKeyBytes)
    return count_error(Errc::invalid_argument, "key must be 1.." + std::to_string(storefile::kMaxKeyBytes) + " bytes");
  return ok_status();
}

Status FileStore::open() {
  // Options first: a refused size must not leave a file behind.
  if (opts_.size < kMinRingBytes || opts_.size > kMaxRingBytes || opts_.size % storefile::kAlign != 0)
    return Error{Errc::invalid_argument,
                 "size must be 64K.." + std::to_string(kMaxRingBytes) + " bytes and a multiple of 64"};
  const std::string& path = opts_.path;
  bool created = false;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    if (!opts_.create)
      return refuse(path,
                    "does not exist; ?create=1 in the store spec (or hitcost-server --store-create) makes a "
                    "new store file there");
    auto made = create_new_file();
    if (!made) return made.error();
    fd = *made;  // -1: another process made the path meanwhile; opened below like any existing file
    created = fd >= 0;
    if (fd < 0) fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  }
  if (fd < 0) return refuse(path, std::strerror(errno));
  fd_.reset(fd);
  UndoIfFailed undo{path, fd, created};  // every return below but the last fails
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{Errc::io_error, io::errno_text("fstat", errno)};
  if (!S_ISREG(st.st_mode)) return refuse(path, "not a regular file: left as it is");
  // created: create_new_file wrote the header and the ring, a store file of opts_.size, empty.
  if (!created && st.st_size == 0) {
    // An empty file holds nothing to lose (mktemp's, a crash before anything was written):
    // with create it becomes a store file, without it is refused like any other file.
    if (!opts_.create)
      return refuse(path, "is empty, not a hitcost store file: left as it is (?create=1 makes a store file of it)");
    capacity_ = opts_.size;
    undo.filled_empty = true;
    if (auto s = create_fresh(); !s) return s;
  } else if (!created) {
    if (auto s = check_existing(static_cast<uint64_t>(st.st_size)); !s) return s;
    if (static_cast<uint64_t>(st.st_size) < file_bytes() && ::ftruncate(fd, static_cast<off_t>(file_bytes())) != 0)
      return Error{Errc::io_error, io::errno_text("ftruncate", errno)};  // our file, cut short: made whole
    if (auto s = recover_index(); !s) return s;
  }
  if (opts_.advise != Advice::none || opts_.cold) {
    // posix_fadvise applies to both read paths (the page cache's readahead for this file).
    int adv = POSIX_FADV_NORMAL;
    switch (opts_.advise) {
      case Advice::random: adv = POSIX_FADV_RANDOM; break;
      case Advice::sequential: adv = POSIX_FADV_SEQUENTIAL; break;
      case Advice::willneed: adv = POSIX_FADV_WILLNEED; break;
      default: break;
    }
    ::posix_fadvise(fd, 0, 0, adv);
  }
  Status attached = attach();
  undo.failed = !attached;
  if (attached && opts_.sync.kind == SyncPolicy::Kind::interval)
    syncer_ = std::make_unique<IntervalSyncer>([ms = opts_.sync.interval_ms] { return ms; }, [this] { sync_tick(); });
  return attached;
}

Status FileStore::check_existing(uint64_t file_size) {
  const std::string& path = opts_.path;
  storefile::FileHeader h{};
  auto r = io::pread_full(fd_.get(), &h, sizeof h, 0);
  if (!r) return r.error();
  const auto* bytes = reinterpret_cast<const unsigned char*>(&h);
  const storefile::HeaderKind kind =
      *r == sizeof h ? storefile::check_file_header(h) : storefile::HeaderKind::not_a_store;
  const std::string left = ": left as it is";
  switch (kind) {
    case storefile::HeaderKind::ours: break;
    case storefile::HeaderKind::not_a_store:
      return refuse(path, "not a hitcost store file (" + std::to_string(file_size) + " bytes, starting " +
                              quoted_start(bytes, std::min<size_t>(*r, 16)) + ")" + left +
                              "; give the store a path of its own (with ?create=1)");
    case storefile::HeaderKind::other_version:
      return refuse(path, "a hitcost store file of format version " + std::to_string(h.version) +
                              "; this build reads version " + std::to_string(storefile::kFormatVersion) + left +
                              "; remove it (a cache) or give the store another path");
    case storefile::HeaderKind::damaged:
      return refuse(path,
                    "a hitcost store file whose header is damaged (its checksum, alignment or capacity do not "
                    "hold)" +
                        left + "; remove it (a cache) or give the store another path");
  }
  if (opts_.size_given && h.capacity != opts_.size)
    return refuse(path, "holds a store of " + size_text(h.capacity) + " (?size=" + size_text(h.capacity) +
                            "), the spec asks for ?size=" + size_text(opts_.size) +
                            ": a store file is never reshaped; drop ?size= to use it as it is, or give another path");
  capacity_ = h.capacity;
  salt_ = h.salt;
  return ok_status();
}

Result<int> FileStore::create_new_file() {
  // Written whole under a name of its own in the same directory, then linked to the path:
  // link(2) never replaces an existing file, and a crash mid-way leaves at most the temporary
  // file, never a half-written store file at the path (which a later open would refuse).
  const std::string& path = opts_.path;
  const std::string tmp = path + ".hitcost-new-" + std::to_string(::getpid()) + "-" + std::to_string(random_salt());
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return refuse(path, std::string("cannot create: ") + std::strerror(errno));
  fd_.reset(fd);
  capacity_ = opts_.size;
  Status made = create_fresh();
  const int link_err = made && ::link(tmp.c_str(), path.c_str()) != 0 ? errno : 0;
  ::unlink(tmp.c_str());
  if (!made) {
    fd_.reset();
    return made.error();
  }
  if (link_err == EEXIST) {  // another process created the path meanwhile: open theirs
    fd_.reset();
    return -1;
  }
  if (link_err != 0) {
    fd_.reset();
    return refuse(path, std::string("cannot create: ") + std::strerror(link_err));
  }
  return fd_.release();
}

Status FileStore::create_fresh() {
  const int fd = fd_.get();
  salt_ = random_salt();
  // Ring dropped, new header, ring back (zeros): a crash at any step leaves a file that opens as
  // an empty store (the old header or the new one, no records), not a file of zeros, which open
  // would refuse as not a store file.
  if (::ftruncate(fd, static_cast<off_t>(kFileHeaderBytes)) != 0)
    return Error{Errc::io_error, io::errno_text("ftruncate", errno)};
  std::string page(kFileHeaderBytes, '\0');
  auto h = storefile::make_file_header(salt_, capacity_);
  std::memcpy(page.data(), &h, sizeof h);
  if (auto s = io::pwrite_full(fd, page.data(), page.size(), 0); !s) return s;
  if (::ftruncate(fd, static_cast<off_t>(file_bytes())) != 0)
    return Error{Errc::io_error, io::errno_text("ftruncate", errno)};
  // each: the new header is durable before the store is used. Not timed into sync_stats_, so
  // that its calls stay one per acknowledged set/remove (open and re-creation are rare).
  if (opts_.sync.kind == SyncPolicy::Kind::each) {
    if (auto s = io::datasync(fd); !s) return s;
  }
  for (auto& sh : shards_) sh.map.clear();
  fifo_.clear();
  head_ = 0;
  return ok_status();
}

Status FileStore::recover_index() {
  const int fd = fd_.get();
  void* m = ::mmap(nullptr, file_bytes(), PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return Error{Errc::io_error, io::errno_text("mmap", errno)};
  std::atomic<uint64_t> faults{0};
  storefile::ScanResult scan;
  {
    SigbusRange guard(m, file_bytes(), &faults);  // file cut short during the scan: zeros
    ::madvise(m, file_bytes(), MADV_SEQUENTIAL);
    scan = storefile::scan_ring(static_cast<const unsigned char*>(m) + kFileHeaderBytes, capacity_, salt_);
  }
  ::munmap(m, file_bytes());
  if (faults.load() != 0) return Error{Errc::io_error, "store file shrank during open"};

  dropped_on_open_ = scan.dropped_records;
  dropped_bytes_on_open_ = scan.dropped_bytes;
  head_ = scan.head;
  next_seq_ = scan.max_seq + 1;

  // Cover invalid runs with pads (seq 0: they do not move the head) so the chain is whole.
  for (auto [b, e] : scan.holes) {
    auto h = storefile::make_record_header(RecordType::pad, salt_, 0, {}, 0, 0, 0, e - b);
    if (auto s = io::pwrite_full(fd, &h, sizeof h, static_cast<off_t>(kFileHeaderBytes + b)); !s) return s;
    scan.chain.push_back({b, e - b, 0, RecordType::pad, 0, {}});
  }
  std::sort(scan.chain.begin(), scan.chain.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });

  // Newest record per key decides; tombstones hide older values.
  std::unordered_map<std::string, const storefile::ChainEntry*> newest;
  for (const auto& c : scan.chain) {
    if (c.type == RecordType::pad) continue;
    auto& slot = newest[c.key];
    if (!slot || slot->seq < c.seq) slot = &c;
  }
  for (auto& [key, c] : newest) {
    if (c->type != RecordType::value) continue;
    shard_for(key).map.emplace(key, IndexEntry{c->offset, c->seq, c->value_len});
  }
  // FIFO in ring order starting at the head: the oldest record is overwritten first.
  auto push = [&](const storefile::ChainEntry& c) {
    bool indexed = c.type == RecordType::value && newest[c.key] == &c;
    fifo_.push_back({c.offset, c.total_len, indexed ? c.key : std::string()});
  };
  for (const auto& c : scan.chain)
    if (c.offset >= head_) push(c);
  for (const auto& c : scan.chain)
    if (c.offset < head_) push(c);
  return ok_status();
}

void FileStore::evict(const FifoEntry& f) {
  if (f.key.empty()) return;
  Shard& sh = shard_for(f.key);
  std::unique_lock lk(sh.mu);  // waits for readers still copying this record
  auto it = sh.map.find(f.key);
  if (it != sh.map.end() && it->second.offset == f.offset) {
    sh.map.erase(it);
    evictions_.add();
  }
}

Status FileStore::append(RecordType type, std::string_view key, std::string_view value, uint32_t flags) {
  const uint64_t total = storefile::record_total_len(key.size(), value.size());
  if (total > capacity_ / 2)
    return count_error(Errc::too_large,
                       "value of " + std::to_string(value.size()) + " bytes exceeds half the store's capacity");
  // Wrap: everything between the head and the ring's end goes; a pad covers it.
  if (head_ + total > capacity_) {
    while (!fifo_.empty() && fifo_.front().offset >= head_) {
      evict(fifo_.front());
      fifo_.pop_front();
    }
    if (head_ < capacity_) {
      auto pad = storefile::make_record_header(RecordType::pad, salt_, next_seq_++, {}, 0, 0, 0, capacity_ - head_);
      if (auto s = io::pwrite_full(fd_.get(), &pad, sizeof pad, static_cast<off_t>(kFileHeaderBytes + head_)); !s)
        return count_error(s.error());
      fifo_.push_back({head_, capacity_ - head_, {}});
    }
    head_ = 0;
  }
  const uint64_t at = head_, end = head_ + total;
  while (!fifo_.empty() && fifo_.front().offset >= at && fifo_.front().offset < end) {
    evict(fifo_.front());
    fifo_.pop_front();
  }
  // The next chain element after the new record: the oldest survivor ahead of us in this
  // lap, else the ring's end. Anything in between is covered by a pad (seq 0).
  const uint64_t boundary = (!fifo_.empty() && fifo_.front().offset >= at) ? fifo_.front().offset : capacity_;

  const uint64_t seq = next_seq_++;
  const uint32_t crc = storefile::body_crc(key, value);
  auto h = storefile::make_record_header(type, salt_, seq, key, static_cast<uint32_t>(value.size()), flags, crc, total);
  wbuf_.clear();
  storefile::encode_record(wbuf_, h, key, value);
  if (boundary > end) {
    wbuf_.resize(total, '\0');
    auto pad = storefile::make_record_header(RecordType::pad, salt_, 0, {}, 0, 0, 0, boundary - end);
    wbuf_.append(reinterpret_cast<const char*>(&pad), sizeof pad);
  }
  if (auto s = io::pwrite_full(fd_.get(), wbuf_.data(), wbuf_.size(), static_cast<off_t>(kFileHeaderBytes + at)); !s)
    return count_error(s.error());
  if (auto s = written(); !s) return s;
  {
    Shard& sh = shard_for(key);
    std::unique_lock lk(sh.mu);
    if (type == RecordType::value) {
      auto it = sh.map.find(key);
      if (it == sh.map.end())
        sh.map.emplace(std::string(key), IndexEntry{at, seq, static_cast<uint32_t>(value.size())});
      else
        it->second = IndexEntry{at, seq, static_cast<uint32_t>(value.size())};
    } else {
      if (auto it = sh.map.find(key); it != sh.map.end()) sh.map.erase(it);
    }
  }
  fifo_.push_back({at, total, type == RecordType::value ? std::string(key) : std::string()});
  head_ = end;
  return ok_status();
}

Status FileStore::written() {
  const uint64_t seq = written_seq_.load(std::memory_order_relaxed) + 1;
  if (opts_.sync.kind == SyncPolicy::Kind::each) {
    if (int err = timed_datasync(fd_.get(), sync_stats_); err != 0)
      return count_error(Errc::io_error, io::errno_text("fdatasync", err));
    written_seq_.store(seq, std::memory_order_release);
    synced_seq_.store(seq, std::memory_order_release);
    return ok_status();
  }
  written_seq_.store(seq, std::memory_order_release);  // the syncer's acquire sees the pwrite done
  return ok_status();
}

void FileStore::sync_tick() {
  // Read before the sync: every write up to `upto` has returned from pwrite, so it is in the
  // page cache and this fdatasync takes it to the device. Writes during the sync are the
  // next tick's.
  const uint64_t upto = written_seq_.load(std::memory_order_acquire);
  if (upto == synced_seq_.load(std::memory_order_relaxed)) return;  // nothing new: idle stays idle
  if (timed_datasync(fd_.get(), sync_stats_) != 0) {
    // Counted in sync.errors and errors.io_error; synced_seq_ stays. Linux may drop the
    // failed pages' dirty state after reporting the error once, so a later successful sync
    // does not prove these writes durable: a non-zero sync.errors voids the promise.
    err_io_.add();
    return;
  }
  synced_seq_.store(upto, std::memory_order_release);
}

Status FileStore::repair_if_damaged(bool writer_locked) {
  std::unique_lock wl(writer_mu_, std::defer_lock);
  if (!writer_locked) wl.lock();
  const uint64_t faults = faults_.load(std::memory_order_relaxed);
  struct stat st {};
  bool bad = damage_pending();
  if (::fstat(fd_.get(), &st) != 0) return count_error(Errc::io_error, "fstat failed");
  if (static_cast<uint64_t>(st.st_size) < file_bytes()) bad = true;
  if (!bad) return ok_status();
  // The file was cut short (or a read faulted): its contents cannot be trusted. Start over.
  AllShardsLock all(shards_);
  detach();
  Status s = create_fresh();
  damaged_.store(false, std::memory_order_relaxed);
  faults_seen_.store(faults, std::memory_order_relaxed);
  reinits_.add();
  if (!s) {
    damaged_.store(true, std::memory_order_relaxed);
    return count_error(s.error());
  }
  if (auto a = attach(); !a) {
    damaged_.store(true, std::memory_order_relaxed);
    return count_error(a.error());
  }
  // The new header is a write like any other: interval syncs it; each already did (create_fresh).
  const uint64_t seq = written_seq_.load(std::memory_order_relaxed) + 1;
  written_seq_.store(seq, std::memory_order_release);
  if (opts_.sync.kind == SyncPolicy::Kind::each) synced_seq_.store(seq, std::memory_order_release);
  return ok_status();
}

Status FileStore::get(std::string_view key, std::string& value, uint32_t& flags) {
  gets_.add();
  if (auto s = validate_key(key); !s) return s;
  if (damage_pending()) {
    if (auto s = repair_if_damaged(false); !s) return s;
  }
  Shard& sh = shard_for(key);
  for (int attempt = 0; attempt < 2; ++attempt) {
    IndexEntry e{};
    RecordHeader h{};
    Status st = ok_status();
    uint32_t salt = 0;  // salt_ changes when the file is re-created (all shards held)
    {
      std::shared_lock lk(sh.mu);
      salt = salt_;
      auto it = sh.map.find(key);
      if (it == sh.map.end()) {
        misses_.add();
        return Error{Errc::not_found, {}};
      }
      e = it->second;
      value.resize(e.value_len);
      st = read_record(e, key, h, value);
    }
    if (!st && st.error().code == Errc::io_error) {
      mark_damaged();
      return count_error(st.error());
    }
    // Verify what was copied: a writer elsewhere or a shrinking file shows up here.
    if (st && storefile::record_header_valid(h, salt, e.offset, capacity_) &&
        h.type == static_cast<uint8_t>(RecordType::value) && h.seq == e.seq && h.key_len == key.size() &&
        h.value_len == e.value_len && storefile::body_crc(key, value) == h.body_crc) {
      flags = h.flags;
      hits_.add();
      bytes_read_.add(value.size());
      return ok_status();
    }
    if (damage_pending()) return count_error(Errc::io_error, "store file damaged (truncated?)");
    torn_retries_.add();
    if (attempt == 1) {  // still wrong: forget the entry so later gets miss cleanly
      std::unique_lock lk(sh.mu);
      auto it = sh.map.find(key);
      if (it != sh.map.end() && it->second.seq == e.seq) sh.map.erase(it);
    }
  }
  value.clear();
  return count_error(Errc::corrupt, "record failed its checksum");
}

Status FileStore::set(std::string_view key, std::string_view value, uint32_t flags) {
  sets_.add();
  if (auto s = validate_key(key); !s) return s;
  if (value.size() > UINT32_MAX) return count_error(Errc::too_large, "value over 4 GiB");
  std::lock_guard wl(writer_mu_);
  if (auto s = repair_if_damaged(true); !s) return s;  // one fstat per write
  if (auto s = append(RecordType::value, key, value, flags); !s) return s;
  bytes_written_.add(value.size());
  return ok_status();
}

Status FileStore::remove(std::string_view key) {
  removes_.add();
  if (auto s = validate_key(key); !s) return s;
  std::lock_guard wl(writer_mu_);
  if (auto s = repair_if_damaged(true); !s) return s;
  {
    Shard& sh = shard_for(key);
    std::shared_lock lk(sh.mu);
    if (sh.map.find(key) == sh.map.end()) return Error{Errc::not_found, {}};
  }
  return append(RecordType::tombstone, key, {}, 0);
}

void FileStore::drop_range(uint64_t file_off, uint64_t len) {
  ::posix_fadvise(fd_.get(), static_cast<off_t>(file_off), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
}

Status FileStore::drop_page_cache() {
  std::lock_guard wl(writer_mu_);
  AllShardsLock all(shards_);
  drop_range(0, file_bytes());
  return ok_status();
}

StoreStats FileStore::stats() {
  StoreStats s;
  s.gets = gets_.get();
  s.hits = hits_.get();
  s.misses = misses_.get();
  s.sets = sets_.get();
  s.removes = removes_.get();
  const uint64_t corrupt = err_corrupt_.get(), io = err_io_.get(), big = err_too_large_.get(),
                 inval = err_invalid_.get();
  s.errors = corrupt + io + big + inval;
  s.bytes_read = bytes_read_.get();
  s.bytes_written = bytes_written_.get();
  uint64_t records = 0;
  for (auto& sh : shards_) {
    std::shared_lock lk(sh.mu);
    records += sh.map.size();
  }
  s.sync_policy = opts_.sync.to_string();
  s.sync = sync_stats_.figures();
  auto& x = s.extra;
  // synced first: a synced_seq was a written_seq before, so read in this order synced <= written.
  const uint64_t synced = synced_seq();
  x["sync.synced_seq"] = static_cast<double>(synced);
  x["sync.written_seq"] = static_cast<double>(written_seq());
  x["records"] = static_cast<double>(records);
  x["capacity_bytes"] = static_cast<double>(capacity_);
  x["dropped_on_open"] = static_cast<double>(dropped_on_open_);
  x["dropped_bytes_on_open"] = static_cast<double>(dropped_bytes_on_open_);
  x["torn_retries"] = static_cast<double>(torn_retries_.get());
  x["evictions"] = static_cast<double>(evictions_.get());
  x["reinits"] = static_cast<double>(reinits_.get());
  x["sigbus_faults"] = static_cast<double>(faults_.load(std::memory_order_relaxed));
  x["errors.corrupt"] = static_cast<double>(corrupt);
  x["errors.io_error"] = static_cast<double>(io);
  x["errors.too_large"] = static_cast<double>(big);
  x["errors.invalid_argument"] = static_cast<double>(inval);
  if (auto r = file_residency(fd_.get())) {
    x["resident_bytes"] = static_cast<double>(r->resident_bytes);
    x["file_bytes"] = static_cast<double>(r->file_bytes);
    x["dirty_bytes"] = static_cast<double>(r->dirty_bytes);
  }
  return s;
}

}  // namespace hitcost
