#pragma once
// The trace file: what `hitcost-corpus record` and `trace import` write, and what `trace show`
// and `hitcost-load replay` read. Little-endian, made to be mapped and read in place:
//
//   TraceHeader    256 bytes (its last 4 bytes: crc32c of the 252 before)
//   TraceEvent*    32 bytes each (trace/trace_event.h), in time order as the source gave them
//   kept keys      only with --keep-keys: per distinct key, u64 hash, u16 length, the key's bytes
//
// header.events_crc is the crc32c of every byte after the header, so a flipped bit anywhere is
// found before a replay trusts the file. The writer streams events to PATH.tmp through a fixed
// buffer (bounded memory: nothing per event is kept) and renames it to PATH once the header is
// written and the file is durable, so a PATH that exists is whole. A write that fails midway (a
// full disk) keeps the events already on disk: the file is cut back to whole events, its
// header written over them (in place: no new space needed), and the writer says how many it
// holds and why it stopped.
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "trace/trace_event.h"

namespace hitcost::trace {

static_assert(std::endian::native == std::endian::little, "trace files are read in place: little-endian hosts only");

inline constexpr std::string_view kTraceMagic{"HCTRACE\0", 8};
inline constexpr uint32_t kTraceVersion = 1;
inline constexpr size_t kTraceHeaderBytes = 256;

// Where the events came from.
enum class TraceSource : uint8_t { record = 1, twemcache = 2, oracle_general = 3 };
const char* to_string(TraceSource source) noexcept;

inline constexpr uint32_t kKeysHashed = 1u << 0;  // TraceEvent::key is a keyed hash (secret not kept)
inline constexpr uint32_t kKeysKept = 1u << 1;    // the kept-keys section maps hashes to keys

struct TraceHeader {
  char magic[8];                // kTraceMagic
  uint32_t version;             // kTraceVersion
  uint32_t header_bytes;        // kTraceHeaderBytes
  uint64_t event_count;         //
  uint64_t start_unix_us;       // the first event's wall-clock time (0: the source has none)
  uint64_t duration_us;         // the last event's time_us
  uint32_t time_resolution_us;  // 1 (watch: µs); 1,000,000 (twemcache, oracleGeneral: seconds)
  uint32_t flags;               // kKeysHashed | kKeysKept
  uint8_t source;               // TraceSource
  uint8_t pad0[7];
  uint64_t dropped_events;  // events the source said it dropped (watch `skipped` lines)
  uint64_t missing_events;  // events missing by sequence number (watch `gid` gaps)
  uint64_t malformed;       // lines or records of the source that could not be read
  uint64_t keys_offset;     // the kept-keys section's offset (0: none)
  uint64_t keys_bytes;      //
  uint32_t events_crc;      // crc32c of every byte after the header
  uint32_t pad1;
  char origin[96];  // "memcached:HOST:PORT", or the imported file's name (NUL-padded, cut)
  uint8_t pad2[52];
  uint32_t header_crc;  // crc32c of the 252 bytes above
};
static_assert(sizeof(TraceHeader) == kTraceHeaderBytes);

struct TraceInfo {
  TraceSource source = TraceSource::record;
  std::string origin;
  uint64_t start_unix_us = 0;
  uint32_t time_resolution_us = 1;
  uint32_t flags = kKeysHashed;
  uint64_t dropped_events = 0;
  uint64_t missing_events = 0;
  uint64_t malformed = 0;
};

struct WriterLimits {
  uint64_t max_events = 0;  // 0: no limit
  uint64_t max_bytes = 0;   // the file's size, header included; 0: no limit
};

class TraceWriter {
 public:
  // Creates PATH.tmp (mode 0600: it may hold keys in clear). io_error naming the path.
  static Result<TraceWriter> create(std::string path, WriterLimits limits = {});
  TraceWriter(TraceWriter&&) noexcept;
  TraceWriter& operator=(TraceWriter&&) = delete;
  TraceWriter(const TraceWriter&) = delete;
  ~TraceWriter();  // unfinished: PATH.tmp removed

  // Appends one event; `time_us` must not go backwards (the caller orders them). false once a
  // limit is reached or a write failed (stopped_reason() says which): nothing more is taken.
  bool append(const TraceEvent& event);
  // With kKeysKept: the key behind `hash` (the first one seen is kept).
  void keep_key(uint64_t hash, std::string_view key);
  // Writes the header (info + counts + checksum), syncs, renames PATH.tmp to PATH.
  Status finish(const TraceInfo& info);

  uint64_t events() const noexcept { return events_; }
  // "" while taking events; else "max-events reached", "max-bytes reached", or the write error.
  const std::string& stopped_reason() const noexcept { return stopped_reason_; }
  const std::string& path() const noexcept { return path_; }

 private:
  TraceWriter(std::string path, UniqueFd fd, WriterLimits limits);
  bool flush();
  void stop(std::string reason);

  std::string path_, tmp_path_;
  UniqueFd fd_;
  WriterLimits limits_;
  std::vector<TraceEvent> buffer_;
  uint64_t events_ = 0;                // appended (on disk once flushed)
  uint64_t events_on_disk_ = 0;        //
  uint32_t crc_ = 0;                   // over the events on disk
  uint64_t last_time_on_disk_us_ = 0;  // the header's duration
  bool write_failed_ = false;
  bool finished_ = false;
  std::string stopped_reason_;
  std::unordered_map<uint64_t, std::string> kept_keys_;
  uint64_t kept_key_bytes_ = 0;
};

// A trace file mapped read-only; events() points into the mapping.
class TraceReader {
 public:
  // Errors: io_error (open, map), corrupt (not a trace, another version, a damaged header, a
  // size that does not match the header: "truncated: N of M bytes", a checksum that fails).
  static Result<TraceReader> open(const std::string& path);
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) = delete;
  ~TraceReader();

  const TraceHeader& header() const noexcept { return *reinterpret_cast<const TraceHeader*>(base_); }
  TraceInfo info() const;
  std::span<const TraceEvent> events() const noexcept {
    return {reinterpret_cast<const TraceEvent*>(base_ + kTraceHeaderBytes), header().event_count};
  }
  // The kept keys (empty without kKeysKept); corrupt if the section does not parse.
  Result<std::unordered_map<uint64_t, std::string>> kept_keys() const;
  const std::string& path() const noexcept { return path_; }
  uint64_t file_bytes() const noexcept { return size_; }

 private:
  TraceReader(std::string path, const unsigned char* base, uint64_t size)
      : path_(std::move(path)), base_(base), size_(size) {}
  std::string path_;
  const unsigned char* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace hitcost::trace
