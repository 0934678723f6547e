#pragma once
// import_trace(): what `hitcost-corpus trace import` does. A public trace (FORMATS.md, "Access
// streams") streamed into the trace file `record` writes, in bounded memory.
//
//   twemcache      CSV: timestamp (s), anonymized key, key size, value size, client id, op, TTL.
//                  A read's outcome is its value size: found when > 0, not_found at 0 (the
//                  trace's convention); a write's is unknown. Keys are hashed like recorded ones.
//   oracleGeneral  24-byte records: u32 timestamp (s), u64 object id, u32 size, i64 next access.
//                  Every record is a get of unknown outcome; the id is hashed as its 8 bytes.
//
// Both have whole-second timestamps: events keep them (time_resolution_us = 10^6) and a replay
// spreads each second's requests over it. A line or record that cannot be read is counted by
// kind with the first line numbers of each kind, never dropped silently; the good ones are
// imported. A timestamp earlier than the one before is imported at the earlier one's time and
// counted (time_backwards): a trace's time never goes backwards.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "trace/trace_file.h"

namespace hitcost::trace {

enum class ImportFormat : uint8_t { twemcache, oracle_general };
const char* to_string(ImportFormat format) noexcept;
// "twemcache" | "oraclegeneral" (any case); invalid_argument otherwise.
Result<ImportFormat> parse_import_format(std::string_view text);

struct ImportOptions {
  ImportFormat format = ImportFormat::twemcache;
  std::string input_path;
  std::string output_path;
  WriterLimits limits{};
  bool keep_keys = false;
};

struct BadLines {
  uint64_t count = 0;
  std::vector<uint64_t> first_lines;  // 1-based line (or record) numbers, up to kBadLineExamples
};
inline constexpr size_t kBadLineExamples = 5;

struct ImportResult {
  uint64_t lines = 0;   // lines (or records) read
  uint64_t events = 0;  // written
  uint64_t time_backwards = 0;
  std::map<std::string, BadLines> bad;  // by kind: "fields", "timestamp", "op", "size", ...
  uint64_t bad_total() const noexcept;
  std::string stopped_by;  // "" at the end of the input; else the writer's reason
  bool compressed = false;
};

// Errors: the input or output cannot be opened, a damaged zstd stream (the events before it
// are not kept: the file is not finished), a failed write at the end.
Result<ImportResult> import_trace(const ImportOptions& options);

}  // namespace hitcost::trace
