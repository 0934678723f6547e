#include "trace/trace_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include "core/crc32c.h"
#include "core/io_util.h"

namespace hitcost::trace {
namespace {

// Events per write(2): 64 KiB.
constexpr size_t kBufferEvents = 2048;
constexpr size_t kHeaderCrcBytes = offsetof(TraceHeader, header_crc);

TraceHeader make_header(const TraceInfo& info, uint64_t events, uint64_t duration_us, uint64_t keys_bytes,
                        uint32_t crc) {
  TraceHeader h{};
  std::memcpy(h.magic, kTraceMagic.data(), sizeof h.magic);
  h.version = kTraceVersion;
  h.header_bytes = kTraceHeaderBytes;
  h.event_count = events;
  h.start_unix_us = info.start_unix_us;
  h.duration_us = duration_us;
  h.time_resolution_us = info.time_resolution_us;
  h.flags = info.flags;
  h.source = static_cast<uint8_t>(info.source);
  h.dropped_events = info.dropped_events;
  h.missing_events = info.missing_events;
  h.malformed = info.malformed;
  h.keys_offset = keys_bytes > 0 ? kTraceHeaderBytes + events * sizeof(TraceEvent) : 0;
  h.keys_bytes = keys_bytes;
  h.events_crc = crc;
  std::memcpy(h.origin, info.origin.data(), std::min(info.origin.size(), sizeof h.origin - 1));
  h.header_crc = crc32c(0, &h, kHeaderCrcBytes);
  return h;
}

}  // namespace

const char* to_string(TraceSource source) noexcept {
  switch (source) {
    case TraceSource::record: return "memcached watch";
    case TraceSource::twemcache: return "twemcache";
    case TraceSource::oracle_general: return "oracleGeneral";
  }
  return "?";
}

// ---- writer ----

TraceWriter::TraceWriter(std::string path, UniqueFd fd, WriterLimits limits)
    : path_(std::move(path)), tmp_path_(path_ + ".tmp"), fd_(std::move(fd)), limits_(limits) {
  buffer_.reserve(kBufferEvents);
}

TraceWriter::TraceWriter(TraceWriter&& o) noexcept
    : path_(std::move(o.path_)),
      tmp_path_(std::exchange(o.tmp_path_, std::string())),
      fd_(std::move(o.fd_)),
      limits_(o.limits_),
      buffer_(std::move(o.buffer_)),
      events_(o.events_),
      events_on_disk_(o.events_on_disk_),
      crc_(o.crc_),
      last_time_on_disk_us_(o.last_time_on_disk_us_),
      write_failed_(o.write_failed_),
      finished_(o.finished_),
      stopped_reason_(std::move(o.stopped_reason_)),
      kept_keys_(std::move(o.kept_keys_)),
      kept_key_bytes_(o.kept_key_bytes_) {}

TraceWriter::~TraceWriter() {
  if (!finished_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

Result<TraceWriter> TraceWriter::create(std::string path, WriterLimits limits) {
  const std::string tmp = path + ".tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd) return Error{Errc::io_error, io::errno_text((tmp + ": open").c_str(), errno)};
  // The header's place, written for real by finish().
  const TraceHeader placeholder{};
  if (auto w = io::write_full(fd.get(), &placeholder, sizeof placeholder); !w) {
    ::unlink(tmp.c_str());
    return w.error();
  }
  return TraceWriter(std::move(path), std::move(fd), limits);
}

void TraceWriter::stop(std::string reason) {
  if (stopped_reason_.empty()) stopped_reason_ = std::move(reason);
}

bool TraceWriter::append(const TraceEvent& event) {
  if (!stopped_reason_.empty()) return false;
  if (limits_.max_events > 0 && events_ >= limits_.max_events) {
    stop("max-events reached");
    return false;
  }
  if (limits_.max_bytes > 0 && kTraceHeaderBytes + (events_ + 1) * sizeof(TraceEvent) > limits_.max_bytes) {
    stop("max-bytes reached");
    return false;
  }
  buffer_.push_back(event);
  ++events_;
  if (buffer_.size() == kBufferEvents) return flush();
  return true;
}

bool TraceWriter::flush() {
  if (buffer_.empty() || write_failed_) return !write_failed_;
  const size_t bytes = buffer_.size() * sizeof(TraceEvent);
  if (auto w = io::write_full(fd_.get(), buffer_.data(), bytes); !w) {
    // Keep what reached the disk, cut back to whole events: a full disk loses the events not
    // yet written, never the ones before them.
    write_failed_ = true;
    events_ = events_on_disk_;
    stop(w.error().message);
    buffer_.clear();
    return false;
  }
  crc_ = crc32c(crc_, buffer_.data(), bytes);
  events_on_disk_ += buffer_.size();
  last_time_on_disk_us_ = buffer_.back().time_us;
  buffer_.clear();
  return true;
}

void TraceWriter::keep_key(uint64_t hash, std::string_view key) {
  if (kept_keys_.try_emplace(hash, key).second) kept_key_bytes_ += 8 + 2 + key.size();
}

Status TraceWriter::finish(const TraceInfo& given) {
  flush();
  TraceInfo info = given;
  const uint64_t event_bytes_end = kTraceHeaderBytes + events_on_disk_ * sizeof(TraceEvent);
  if (write_failed_) {
    if (::ftruncate(fd_.get(), static_cast<off_t>(event_bytes_end)) != 0)
      return Error{Errc::io_error, io::errno_text((tmp_path_ + ": ftruncate").c_str(), errno)};
    if (::lseek(fd_.get(), static_cast<off_t>(event_bytes_end), SEEK_SET) < 0)
      return Error{Errc::io_error, io::errno_text((tmp_path_ + ": lseek").c_str(), errno)};
  }
  // The kept keys follow the events (only asked for with --keep-keys; not after a failed write).
  uint64_t keys_bytes = 0;
  if ((info.flags & kKeysKept) != 0 && !write_failed_) {
    std::string section;
    section.reserve(kept_key_bytes_);
    for (const auto& [hash, key] : kept_keys_) {
      const auto len = static_cast<uint16_t>(std::min<size_t>(key.size(), UINT16_MAX));
      section.append(reinterpret_cast<const char*>(&hash), 8);
      section.append(reinterpret_cast<const char*>(&len), 2);
      section.append(key.data(), len);
    }
    if (auto w = io::write_full(fd_.get(), section.data(), section.size()); !w) {
      // No room for the keys: the events stand without them.
      if (::ftruncate(fd_.get(), static_cast<off_t>(event_bytes_end)) != 0)
        return Error{Errc::io_error, io::errno_text((tmp_path_ + ": ftruncate").c_str(), errno)};
      stop("kept keys not written: " + w.error().message);
      info.flags &= ~kKeysKept;
    } else {
      crc_ = crc32c(crc_, section.data(), section.size());
      keys_bytes = section.size();
    }
  } else {
    info.flags &= ~kKeysKept;
  }
  const TraceHeader header = make_header(info, events_on_disk_, last_time_on_disk_us_, keys_bytes, crc_);
  if (auto w = io::pwrite_full(fd_.get(), &header, sizeof header, 0); !w) return w.error();
  if (auto s = io::datasync(fd_.get()); !s) return s.error();
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    return Error{Errc::io_error, io::errno_text((tmp_path_ + ": rename to " + path_).c_str(), errno)};
  finished_ = true;
  return ok_status();
}

// ---- reader ----

TraceReader::TraceReader(TraceReader&& o) noexcept
    : path_(std::move(o.path_)), base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)) {}

TraceReader::~TraceReader() {
  if (base_ != nullptr) ::munmap(const_cast<unsigned char*>(base_), size_);
}

Result<TraceReader> TraceReader::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Error{Errc::io_error, io::errno_text((path + ": open").c_str(), errno)};
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error{Errc::io_error, io::errno_text((path + ": fstat").c_str(), errno)};
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < kTraceHeaderBytes)
    return Error{Errc::corrupt,
                 path + ": not a trace file (" + std::to_string(size) + " bytes, shorter than its header)"};
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (map == MAP_FAILED) return Error{Errc::io_error, io::errno_text((path + ": mmap").c_str(), errno)};
  TraceReader reader(path, static_cast<const unsigned char*>(map), size);
  const TraceHeader& h = reader.header();
  if (std::memcmp(h.magic, kTraceMagic.data(), sizeof h.magic) != 0)
    return Error{Errc::corrupt, path + ": not a trace file (no HCTRACE magic)"};
  if (h.version != kTraceVersion)
    return Error{Errc::corrupt, path + ": trace format version " + std::to_string(h.version) + ", this build reads " +
                                    std::to_string(kTraceVersion)};
  if (h.header_bytes != kTraceHeaderBytes || crc32c(0, &h, kHeaderCrcBytes) != h.header_crc)
    return Error{Errc::corrupt, path + ": the trace header is damaged (its checksum fails)"};
  const uint64_t events_end = kTraceHeaderBytes + h.event_count * sizeof(TraceEvent);
  const uint64_t expected = events_end + h.keys_bytes;
  if (h.event_count > (size - kTraceHeaderBytes) / sizeof(TraceEvent) || expected != size)
    return Error{Errc::corrupt, path + ": truncated or extended: " + std::to_string(size) + " bytes, the header says " +
                                    std::to_string(expected)};
  if (h.keys_bytes > 0 && h.keys_offset != events_end)
    return Error{Errc::corrupt, path + ": the kept-keys section is not where the header says"};
  if (crc32c(0, reader.base_ + kTraceHeaderBytes, size - kTraceHeaderBytes) != h.events_crc)
    return Error{Errc::corrupt, path + ": the events' checksum fails (the file was changed or damaged)"};
  // Sequential reads from here on: tell the kernel to read ahead.
  ::madvise(const_cast<unsigned char*>(reader.base_), size, MADV_SEQUENTIAL);
  return reader;
}

TraceInfo TraceReader::info() const {
  const TraceHeader& h = header();
  TraceInfo info;
  info.source = static_cast<TraceSource>(h.source);
  info.origin.assign(h.origin, strnlen(h.origin, sizeof h.origin));
  info.start_unix_us = h.start_unix_us;
  info.time_resolution_us = h.time_resolution_us;
  info.flags = h.flags;
  info.dropped_events = h.dropped_events;
  info.missing_events = h.missing_events;
  info.malformed = h.malformed;
  return info;
}

Result<std::unordered_map<uint64_t, std::string>> TraceReader::kept_keys() const {
  std::unordered_map<uint64_t, std::string> keys;
  const TraceHeader& h = header();
  const unsigned char* p = base_ + h.keys_offset;
  const unsigned char* end = p + h.keys_bytes;
  if (h.keys_bytes == 0) return keys;
  while (p < end) {
    if (end - p < 10) return Error{Errc::corrupt, path_ + ": the kept-keys section ends inside an entry"};
    uint64_t hash = 0;
    uint16_t len = 0;
    std::memcpy(&hash, p, 8);
    std::memcpy(&len, p + 8, 2);
    p += 10;
    if (end - p < len) return Error{Errc::corrupt, path_ + ": the kept-keys section ends inside a key"};
    keys.emplace(hash, std::string(reinterpret_cast<const char*>(p), len));
    p += len;
  }
  return keys;
}

}  // namespace hitcost::trace
