#pragma once
// The on-disk format shared by MmapStore and PreadStore, and its crash recovery.
//
// File = 4 KiB file header + a data ring of `capacity` bytes (a multiple of 64).
// The ring is a chain of records, each starting at a 64-byte-aligned ring offset:
//
//   RecordHeader (40 bytes, little-endian) | key (key_len) | value (value_len) | slack
//   total_len = align64(40 + key_len + value_len); the slack bytes are never read.
//
// Records are appended at the write head; when one does not fit before the ring's end a
// pad record covers the rest and the head wraps to 0. Records the head runs over are
// evicted (the oldest data goes first); if the new record ends inside an older one, a pad
// record covers the remainder, so the chain always parses from offset 0 to the end of the
// written area. Every record carries a sequence number (strictly increasing per file), the
// file's random salt (bytes from other files never parse as ours), a CRC-32C of its 36
// header bytes and a CRC-32C of key+value. Removes append tombstones so a removed key
// does not come back after a restart.
//
// Recovery (scan at open): walk the chain; a record whose header CRC fails starts an
// invalid run that is skipped 64 bytes at a time until a valid header appears; a record
// whose header is valid but whose body CRC fails is dropped. Both count as dropped. The
// newest record (highest seq) fixes the write head; for every key the highest-seq record
// wins. Invalid runs are then covered by pad records so the chain is whole again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hitcost::storefile {

inline constexpr uint64_t kFileHeaderBytes = 4096;
inline constexpr uint64_t kAlign = 64;
inline constexpr uint32_t kRecordMagic = 0x31524348;  // "HCR1"
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kMaxKeyBytes = 4096;

enum class RecordType : uint8_t { value = 1, tombstone = 2, pad = 3 };

struct RecordHeader {
  uint32_t magic;    // kRecordMagic
  uint8_t type;      // RecordType
  uint8_t reserved;  // 0
  uint16_t key_len;
  uint32_t salt;       // FileHeader::salt
  uint32_t total_len;  // record bytes including header and slack, multiple of kAlign
  uint64_t seq;        // >= 1 for records written in order; 0 for pads written at repair
  uint32_t value_len;
  uint32_t flags;       // the caller's flags word, kept verbatim
  uint32_t body_crc;    // crc32c(key + value)
  uint32_t header_crc;  // crc32c of the 36 bytes above
};
static_assert(sizeof(RecordHeader) == 40);
inline constexpr size_t kRecordHeaderBytes = sizeof(RecordHeader);

struct FileHeader {
  char magic[8];        // "HCSTORE\0"
  uint32_t version;     // kFormatVersion
  uint32_t salt;        // random per file (re)creation
  uint64_t capacity;    // ring bytes following the header
  uint32_t align;       // kAlign
  uint32_t header_crc;  // crc32c of the bytes above
};

inline constexpr uint64_t align_up(uint64_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }
inline uint64_t record_total_len(size_t key_len, size_t value_len) {
  return align_up(kRecordHeaderBytes + key_len + value_len);
}

FileHeader make_file_header(uint32_t salt, uint64_t capacity);
bool file_header_valid(const FileHeader& h);

// What the first bytes of a file are, for the open that must never rewrite a file it does not
// own: a store file of this format, something else entirely (no "HCSTORE" magic), a store file
// of another format version, or a store file whose header is damaged (its CRC, alignment or
// capacity do not hold). Only `ours` may be opened; `ours` iff file_header_valid.
enum class HeaderKind { ours, not_a_store, other_version, damaged };
HeaderKind check_file_header(const FileHeader& h);

// Fills the header's CRCs. `body_crc` must be body_crc(key, value).
RecordHeader make_record_header(RecordType type, uint32_t salt, uint64_t seq, std::string_view key, uint32_t value_len,
                                uint32_t flags, uint32_t body_crc, uint64_t total_len);
uint32_t body_crc(std::string_view key, std::string_view value);
// A header parses as a record of this file that fits in [offset, capacity).
bool record_header_valid(const RecordHeader& h, uint32_t salt, uint64_t offset, uint64_t capacity);

// Appends header + key + value (no slack) to `out`.
void encode_record(std::string& out, const RecordHeader& h, std::string_view key, std::string_view value);

// One element of the chain found by a scan (pads and tombstones included).
struct ChainEntry {
  uint64_t offset;
  uint64_t total_len;
  uint64_t seq;
  RecordType type;
  uint32_t value_len;
  std::string key;  // empty for pads
};
struct ScanResult {
  std::vector<ChainEntry> chain;                     // in ring-offset order
  std::vector<std::pair<uint64_t, uint64_t>> holes;  // [begin, end) runs to cover with pads
  uint64_t dropped_records = 0;                      // torn/incomplete records and invalid runs
  uint64_t dropped_bytes = 0;
  uint64_t max_seq = 0;
  uint64_t head = 0;  // ring offset after the highest-seq record
};
// Scans `capacity` ring bytes (the data region, already readable in memory).
ScanResult scan_ring(const unsigned char* ring, uint64_t capacity, uint32_t salt);

}  // namespace hitcost::storefile
