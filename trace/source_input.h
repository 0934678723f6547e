#pragma once
// A public trace's file, read in order in bounded memory: plain, or zstd-compressed (found by
// the frame's magic bytes, not the name; libzstd's streaming decoder, so a 10^9-line part never
// sits in memory). Lines for the CSV formats, fixed records for the binary ones.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::trace {

class SourceInput {
 public:
  static Result<SourceInput> open(const std::string& path);
  SourceInput(SourceInput&&) noexcept;
  SourceInput& operator=(SourceInput&&) = delete;
  ~SourceInput();

  // The next line without its "\n" (and "\r"), valid until the next call: true with one; false
  // at the end. A last line
  // without "\n" is a line. io_error / decompress_failed (a damaged or cut zstd stream).
  Result<bool> next_line(std::string_view& line);
  // Exactly n bytes: true; false at a clean end; a partial record at the end sets
  // partial_bytes (the caller reports it) and returns false.
  Result<bool> next_record(void* out, size_t n, size_t& partial_bytes);
  bool compressed() const noexcept { return zstd_ != nullptr; }
  uint64_t bytes_read() const noexcept { return file_bytes_read_; }

 private:
  SourceInput(std::string path, UniqueFd fd, bool zstd);
  // Appends more decoded bytes to buf_; false at the end of the input.
  Result<bool> refill();

  struct ZstdStream;
  std::string path_;
  UniqueFd fd_;
  std::unique_ptr<ZstdStream> zstd_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  uint64_t file_bytes_read_ = 0;
};

}  // namespace hitcost::trace
