#pragma once
// The corpus file: a sample of a user's cached values with their flags, as `hitcost-corpus
// sample` wrote it and `hitcost-corpus compare` reads it. One file, little-endian throughout:
//
//   "HCORPUS1"                                   8 bytes of magic
//   record*                                      one per sampled value, in sample order
//     u32 body_length, u32 crc32(body)           zlib's crc32 (the one in gzip/PNG)
//     body = u32 flags, u64 last_access_unix_s (0 = unknown), u32 node (index into
//            manifest.nodes), u16 key_length, key, u32 value_length, value
//            (the value's bytes exactly as memcached stored them)
//   footer
//     manifest JSON, u32 its length, u32 its crc32, "HCORPEND"
//
// The footer is found from the end, so a file cut anywhere loses its "HCORPEND" and reads as
// truncated; the writer writes to PATH.tmp and renames it to PATH only once the footer is
// durable (fdatasync), so a PATH that exists is complete.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/strategy.h"
#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::corpus {

inline constexpr std::string_view kCorpusMagic = "HCORPUS1";
inline constexpr std::string_view kCorpusEndMagic = "HCORPEND";
inline constexpr uint32_t kCorpusVersion = 1;
inline constexpr std::string_view kCorpusFormat = "hitcost-corpus";
// Fixed part of a record body: flags 4, last access 8, node 4, key length 2, value length 4.
inline constexpr size_t kRecordFixedBytes = 22;
// u32 length + u32 crc before each body; u32 length + u32 crc + 8 magic after the manifest.
inline constexpr size_t kRecordHeaderBytes = 8;
inline constexpr size_t kFooterTrailerBytes = 16;
// A manifest is a few hundred bytes of JSON; anything this large is damage, not a manifest.
inline constexpr uint32_t kMaxManifestBytes = 16u << 20;

// zlib's crc32 of `bytes` (the checksum in every record and the footer).
uint32_t corpus_crc32(std::string_view bytes) noexcept;

struct CorpusRecord {
  std::string key;
  uint32_t flags = 0;
  uint64_t last_access_unix_s = 0;  // 0 = unknown (keys from a key file)
  uint32_t node = 0;                // index into Manifest::nodes
  std::string value;                // raw bytes, exactly as memcached stored them
  friend bool operator==(const CorpusRecord&, const CorpusRecord&) = default;
};

// What was sampled, from where and how; the JSON in the footer (every field always written).
struct Manifest {
  std::string format = std::string(kCorpusFormat);
  uint32_t version = kCorpusVersion;
  std::string source;              // e.g. "memcached:127.0.0.1:11211,127.0.0.1:11212"
  std::vector<std::string> nodes;  // host:port, in node-index order
  uint64_t sampled_at_unix_s = 0;
  std::string scheme = "php-memcached";  // what the user says the values' flags mean
  std::string sampling = "uniform";      // "uniform" | "recency"
  uint64_t seed = 0;
  uint64_t keys_seen = 0;      // keys the dump / key file listed
  uint64_t keys_eligible = 0;  // after the size filter (and unfetchable keys)
  uint64_t requested_count = 0;
  uint64_t byte_budget = 0;
  uint64_t values = 0;       // records in the file (CorpusWriter::finish sets it)
  uint64_t value_bytes = 0;  // sum of their value lengths (CorpusWriter::finish sets it)
  uint64_t gone = 0;         // listed, but absent when fetched
  uint64_t too_large = 0;    // listed or fetched larger than the value size limit
  bool redacted = false;
  std::string redact_note;
  std::vector<std::string> notes;
  friend bool operator==(const Manifest&, const Manifest&) = default;
};

// The manifest as compact JSON, and back. from_json refuses (parse_error, naming the field)
// text that is not JSON, lacks a field or holds one of the wrong type; unknown fields are
// ignored (a later version may add some).
std::string manifest_to_json(const Manifest& m);
Result<Manifest> manifest_from_json(std::string_view text);

struct Corpus {
  Manifest manifest;
  std::vector<CorpusRecord> records;
};

// Writes PATH.tmp record by record (buffered), then the footer; finish() makes it durable and
// renames it to PATH. Any failure removes PATH.tmp and says which file and strerror (a full
// disk: io_error "PATH.tmp: write: No space left on device"); after a failure every call
// returns that same error. Destroyed without a successful finish(): PATH.tmp is removed.
// Not thread-safe.
class CorpusWriter {
 public:
  static Result<CorpusWriter> create(const std::string& path);
  ~CorpusWriter();
  CorpusWriter(CorpusWriter&&) noexcept;
  CorpusWriter& operator=(CorpusWriter&&) noexcept;
  CorpusWriter(const CorpusWriter&) = delete;
  CorpusWriter& operator=(const CorpusWriter&) = delete;

  // invalid_argument for a key over 65535 bytes or a body over 4 GiB (the u16/u32 fields).
  Status add(const CorpusRecord& record);
  // Sets manifest.values / value_bytes to what was added, writes the footer, fdatasyncs,
  // renames PATH.tmp to PATH and syncs the directory.
  Status finish(Manifest manifest);

  uint64_t records() const noexcept { return records_; }
  uint64_t value_bytes() const noexcept { return value_bytes_; }
  const std::string& path() const noexcept { return path_; }
  const std::string& tmp_path() const noexcept { return tmp_path_; }

 private:
  CorpusWriter(std::string path, UniqueFd fd);
  Status write_out(std::string_view bytes);  // through the buffer
  Status flush();
  Status fail(Errc code, std::string message);  // removes the tmp file, remembers the error
  void abandon() noexcept;

  std::string path_, tmp_path_;
  UniqueFd fd_;
  std::string buffer_;
  uint64_t records_ = 0, value_bytes_ = 0;
  bool finished_ = false;
  bool failed_ = false;
  Error error_{Errc::io_error, ""};
};

// The flag scheme the manifest says the values were written under (for decode_stored):
// invalid_argument naming `path` and the scheme when it is not one hitcost reads.
Result<FlagScheme> manifest_flag_scheme(const Manifest& m, const std::string& path);

// Reads a whole corpus. Errc::io_error when the file cannot be opened or read; Errc::corrupt,
// with what and at which byte offset, for: a missing/wrong magic ("not a hitcost corpus"), a
// cut file ("truncated: ..."), a record or manifest crc mismatch, a record whose lengths run
// past the records' end or disagree with its body, a manifest that is not valid JSON, another
// format/version, or whose `values` differs from the records found.
Result<Corpus> read_corpus(const std::string& path);

}  // namespace hitcost::corpus
