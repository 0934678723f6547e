#include "stores/store_file.h"

#include <cstring>

#include "core/crc32c.h"

namespace hitcost::storefile {
namespace {

constexpr char kFileMagic[8] = {'H', 'C', 'S', 'T', 'O', 'R', 'E', '\0'};
constexpr size_t kHeaderCrcBytes = offsetof(RecordHeader, header_crc);

bool all_zero(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

FileHeader make_file_header(uint32_t salt, uint64_t capacity) {
  FileHeader h{};
  std::memcpy(h.magic, kFileMagic, sizeof h.magic);
  h.version = kFormatVersion;
  h.salt = salt;
  h.capacity = capacity;
  h.align = static_cast<uint32_t>(kAlign);
  h.header_crc = crc32c(0, &h, offsetof(FileHeader, header_crc));
  return h;
}

HeaderKind check_file_header(const FileHeader& h) {
  if (std::memcmp(h.magic, kFileMagic, sizeof h.magic) != 0) return HeaderKind::not_a_store;
  if (h.version != kFormatVersion) return HeaderKind::other_version;
  const bool whole = h.align == kAlign && h.capacity % kAlign == 0 && h.capacity > 0 &&
                     h.header_crc == crc32c(0, &h, offsetof(FileHeader, header_crc));
  return whole ? HeaderKind::ours : HeaderKind::damaged;
}

bool file_header_valid(const FileHeader& h) { return check_file_header(h) == HeaderKind::ours; }

uint32_t body_crc(std::string_view key, std::string_view value) {
  return crc32c(crc32c(0, key.data(), key.size()), value.data(), value.size());
}

RecordHeader make_record_header(RecordType type, uint32_t salt, uint64_t seq, std::string_view key, uint32_t value_len,
                                uint32_t flags, uint32_t crc, uint64_t total_len) {
  RecordHeader h{};
  h.magic = kRecordMagic;
  h.type = static_cast<uint8_t>(type);
  h.key_len = static_cast<uint16_t>(key.size());
  h.salt = salt;
  h.total_len = static_cast<uint32_t>(total_len);
  h.seq = seq;
  h.value_len = value_len;
  h.flags = flags;
  h.body_crc = crc;
  h.header_crc = crc32c(0, &h, kHeaderCrcBytes);
  return h;
}

bool record_header_valid(const RecordHeader& h, uint32_t salt, uint64_t offset, uint64_t capacity) {
  if (h.magic != kRecordMagic || h.salt != salt || h.reserved != 0) return false;
  if (h.type < 1 || h.type > 3) return false;
  if (h.total_len < kAlign || h.total_len % kAlign != 0) return false;
  if (offset + h.total_len > capacity) return false;
  if (kRecordHeaderBytes + uint64_t{h.key_len} + h.value_len > h.total_len) return false;
  return h.header_crc == crc32c(0, &h, kHeaderCrcBytes);
}

void encode_record(std::string& out, const RecordHeader& h, std::string_view key, std::string_view value) {
  out.append(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(key);
  out.append(value);
}

ScanResult scan_ring(const unsigned char* ring, uint64_t capacity, uint32_t salt) {
  ScanResult r;
  uint64_t off = 0;
  uint64_t bad_begin = UINT64_MAX;  // start of the current invalid run
  uint64_t max_seq_end = 0;
  bool bad_has_data = false;
  auto close_bad = [&](uint64_t end) {
    if (bad_begin == UINT64_MAX) return;
    if (bad_has_data) {
      ++r.dropped_records;
      r.dropped_bytes += end - bad_begin;
    }
    r.holes.emplace_back(bad_begin, end);
    bad_begin = UINT64_MAX;
    bad_has_data = false;
  };
  while (off + kAlign <= capacity) {
    RecordHeader h;
    std::memcpy(&h, ring + off, sizeof h);
    if (!record_header_valid(h, salt, off, capacity)) {
      if (bad_begin == UINT64_MAX) bad_begin = off;
      if (!all_zero(ring + off, kAlign)) bad_has_data = true;
      off += kAlign;
      continue;
    }
    const auto type = static_cast<RecordType>(h.type);
    const unsigned char* body = ring + off + kRecordHeaderBytes;
    if (type != RecordType::pad && crc32c(0, body, size_t{h.key_len} + h.value_len) != h.body_crc) {
      // Header complete, body torn (killed mid-write): drop the record, keep its length.
      if (bad_begin == UINT64_MAX) bad_begin = off;
      bad_has_data = true;
      off += h.total_len;
      continue;
    }
    close_bad(off);
    ChainEntry e{off, h.total_len, h.seq, type, h.value_len, {}};
    if (type != RecordType::pad) e.key.assign(reinterpret_cast<const char*>(body), h.key_len);
    if (h.seq > r.max_seq) {
      r.max_seq = h.seq;
      max_seq_end = off + h.total_len;
    }
    r.chain.push_back(std::move(e));
    off += h.total_len;
  }
  // A trailing run of zeros is free space, not a hole; a trailing run with data is.
  if (bad_begin != UINT64_MAX) {
    if (bad_has_data) close_bad(off);
  }
  r.head = max_seq_end >= capacity ? 0 : max_seq_end;
  return r;
}

}  // namespace hitcost::storefile
