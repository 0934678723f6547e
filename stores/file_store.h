#pragma once
// FileStore: the engine shared by MmapStore and PreadStore — one file format
// (store_file.h), one index, one writer; subclasses supply only the read path, so the two
// differ in exactly one thing: memcpy from a mapping against preadv(2).
//
// Concurrency and locks (order: writer_mu_ before any shard lock; shards in index order):
//  - Index: kShards shards, each a shared_mutex + hash map key -> {ring offset, seq, length}.
//    A get holds its shard *shared* while it looks up AND copies the record out, then
//    verifies the copy (both CRCs, key, seq) after unlocking.
//  - Writers serialize on writer_mu_ (ring head, FIFO of records in ring order, seq).
//    Before the ring head overwrites a region, every record in it is evicted from the
//    index under its shard's *exclusive* lock, which waits for readers copying it. So in
//    one process a reader never copies bytes a writer is changing; the CRC/seq checks
//    still catch other writers (a second process or Store on the file), disk damage and a
//    truncated file, and such a read returns Errc::corrupt (counted) rather than bad data.
//  - Remap / re-creation after damage holds writer_mu_ and every shard exclusively.
//  - Durability (FileStoreOptions::sync, core/durable_sync.h): each syncs inside the set,
//    under writer_mu_ (the set returns once its record is on the device). interval runs an
//    IntervalSyncer thread that calls fdatasync *without* writer_mu_: it reads written_seq_
//    first, syncs, then publishes that number as synced_seq_, so sets never wait for a sync
//    and a sync covers every write acknowledged before it began. fd_ is fixed after open()
//    (re-creation truncates the same descriptor, it never replaces it), so the syncer needs
//    no lock to use it; ~FileStore stops the syncer (one last sync) before fd_ closes.
// Opening never writes over what is not ours: an existing path is opened only when it is a
// store file of this format (magic, version, a whole header) and, when ?size= is given, of that
// size; anything else — a text file, another version, a damaged header, another size — is
// refused with the reason and left byte for byte as it was. A new store file is made only with
// FileStoreOptions::create (?create=1, hitcost-server --store-create): at a path that does not
// exist (written under a temporary name, then linked: never half-made at the path) or in an
// empty file.
// Damage: a SIGBUS in the mapping (see sigbus_guard.h), a short pread, or a file found
// shorter than expected marks the store damaged; the next call re-creates the file empty
// (a cache may lose its contents; the file is the one this store opened and checked) and
// counts "reinits". A file *replaced* by rename is not noticed: the store keeps using the
// inode it opened.
// Several Stores/processes writing one file do not crash or return foreign data, but they
// overwrite each other's records (reads then miss): give each writer its own file.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/counter.h"
#include "core/durable_sync.h"
#include "core/string_hash.h"
#include "core/io_util.h"
#include "stores/store.h"
#include "stores/store_file.h"

namespace hitcost {

enum class Advice { none, normal, random, sequential, willneed };

// Ring sizes a store file accepts (bytes, a multiple of storefile::kAlign): room for a few
// records at least, and at most what keeps the file's length (header + ring) an off_t.
inline constexpr uint64_t kMinRingBytes = 64 * 1024;
inline constexpr uint64_t kMaxRingBytes =
    (uint64_t{INT64_MAX} - storefile::kFileHeaderBytes) & ~(storefile::kAlign - 1);

struct FileStoreOptions {
  std::string path;
  uint64_t size = 64ull << 20;   // ring bytes (the file is 4 KiB larger); see kMinRingBytes
  bool size_given = false;       // false: an existing valid file keeps its own capacity
  Advice advise = Advice::none;  // madvise (mmap) / posix_fadvise (pread) on the whole file
  bool populate = false;         // mmap only: MAP_POPULATE
  SyncPolicy sync;               // fdatasync: none | each set/remove | every interval:MS (docs/formats.md)
  bool cold = false;             // before every get, drop the record's pages from the cache
  bool create = false;           // may make a new store file (missing path, or an empty file)
};

class FileStore : public Store {
 public:
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  Status get(std::string_view key, std::string& value, uint32_t& flags) override;
  Status set(std::string_view key, std::string_view value, uint32_t flags) override;
  Status remove(std::string_view key) override;
  StoreStats stats() override;
  std::string describe() const override;

  // Drops the whole file from the page cache (mmap: MADV_DONTNEED on the mapping first,
  // else mapped pages stay). Dirty pages are written back first and may survive the call.
  Status drop_page_cache();
  uint64_t capacity() const { return capacity_; }
  const FileStoreOptions& options() const { return opts_; }
  // Records dropped by the recovery scan at open (torn / incomplete writes).
  uint64_t dropped_on_open() const { return dropped_on_open_; }
  // Writes acknowledged since open (each set/remove that succeeded, each re-creation of the
  // file), and how many of them a completed fdatasync covered (each: all; interval: those
  // acknowledged before the last completed sync began; none: 0). stats() reports both as
  // extra "sync.written_seq" / "sync.synced_seq".
  uint64_t written_seq() const { return written_seq_.load(std::memory_order_acquire); }
  uint64_t synced_seq() const { return synced_seq_.load(std::memory_order_acquire); }

 protected:
  struct IndexEntry {
    uint64_t offset;  // ring offset of the record header
    uint64_t seq;
    uint32_t value_len;
  };

  FileStore(FileStoreOptions opts, const char* kind);
  // Checks the options, then opens the store file (or makes one, with opts.create), recovers
  // the index and calls attach(). Call once. Bad options create nothing; a file that is not a
  // store file of this format and size is refused (io_error naming why) and never written; a
  // file this call created is removed again when the open fails.
  Status open();

  // Copies the record at e.offset out: header into h, value (e.value_len bytes) into
  // value; compares the stored key with `key` (mismatch: Errc::corrupt). Called with the
  // key's shard held shared. A short read / fault must return Errc::io_error.
  virtual Status read_record(const IndexEntry& e, std::string_view key, storefile::RecordHeader& h,
                             std::string& value) = 0;
  // (Re)binds the read path to the file; every lock is held exclusively.
  virtual Status attach() = 0;
  virtual void detach() = 0;
  // Cold mode and drop_page_cache(): drop [file_off, file_off+len) from the page cache.
  virtual void drop_range(uint64_t file_off, uint64_t len);

  int fd() const { return fd_.get(); }
  uint64_t file_bytes() const { return storefile::kFileHeaderBytes + capacity_; }
  void mark_damaged() { damaged_.store(true, std::memory_order_relaxed); }
  std::atomic<uint64_t>& fault_counter() { return faults_; }

 private:
  // 32: a remap holds every shard plus writer_mu_, and TSan tracks at most 64 held locks.
  static constexpr size_t kShards = 32;
  struct alignas(64) Shard {
    std::shared_mutex mu;
    std::unordered_map<std::string, IndexEntry, StringHash, StringEq> map;
  };
  struct FifoEntry {
    uint64_t offset;
    uint64_t total_len;
    std::string key;  // empty: pad or tombstone (never in the index)
  };

  Shard& shard_for(std::string_view key) { return shards_[(StringHash{}(key) >> 7) % kShards]; }
  Status validate_key(std::string_view key);
  Status create_fresh();  // writer_mu_ + all shards held (or open)
  // open(): whether the existing file of `file_size` bytes at fd_ is a store file this store
  // may open (then capacity_ and salt_ are its own); otherwise why not (io_error).
  Status check_existing(uint64_t file_size);
  // open(): makes a new store file at opts_.path; its descriptor, or -1 when another process
  // made the path meanwhile (the caller opens theirs).
  Result<int> create_new_file();
  Status recover_index();  // at open, before attach()
  Status append(storefile::RecordType type, std::string_view key, std::string_view value,
                uint32_t flags);   // writer_mu_ held
  void evict(const FifoEntry& f);  // writer_mu_ held
  bool damage_pending() const {
    return damaged_.load(std::memory_order_relaxed) ||
           faults_.load(std::memory_order_relaxed) != faults_seen_.load(std::memory_order_relaxed);
  }
  Status repair_if_damaged(bool writer_locked);  // re-creates the file empty if needed
  Status count_error(const Error& e);
  Status count_error(Errc c, std::string msg) { return count_error(Error{c, std::move(msg)}); }
  // A write reached the file (writer_mu_ held); each: sync it first. Error: not acknowledged.
  Status written();
  void sync_tick();  // interval: the syncer thread's tick (no lock held)

  FileStoreOptions opts_;
  const char* kind_;
  UniqueFd fd_;
  uint64_t capacity_ = 0;  // fixed after open
  uint32_t salt_ = 0;      // written with writer_mu_ + every shard held; read under any

  Shard shards_[kShards];

  std::mutex writer_mu_;  // guards everything below up to the counters
  uint64_t head_ = 0;
  uint64_t next_seq_ = 1;
  std::deque<FifoEntry> fifo_;
  std::string wbuf_;

  std::atomic<bool> damaged_{false};
  std::atomic<uint64_t> faults_{0};       // SIGBUS faults in our mapping (handler adds)
  std::atomic<uint64_t> faults_seen_{0};  // faults already handled by a repair
  uint64_t dropped_on_open_ = 0, dropped_bytes_on_open_ = 0;
  SharedCounter gets_, hits_, misses_, sets_, removes_, bytes_read_, bytes_written_;
  SharedCounter err_corrupt_, err_io_, err_too_large_, err_invalid_, torn_retries_, evictions_, reinits_;

  SyncStats sync_stats_;                    // every timed fdatasync (each and interval)
  std::atomic<uint64_t> written_seq_{0};    // stored under writer_mu_ (release), after the pwrite
  std::atomic<uint64_t> synced_seq_{0};     // each: under writer_mu_; interval: syncer thread only
  std::unique_ptr<IntervalSyncer> syncer_;  // interval only; started by open(), stopped first in ~FileStore
};

}  // namespace hitcost
