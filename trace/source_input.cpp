#include "trace/source_input.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace hitcost::trace {
namespace {
constexpr size_t kReadBytes = 1 << 20;
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
}  // namespace

struct SourceInput::ZstdStream {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  std::vector<char> in = std::vector<char>(kReadBytes);
  ZSTD_inBuffer input{nullptr, 0, 0};
  size_t last_result = 0;  // 0 when the last frame ended cleanly
  ~ZstdStream() { ZSTD_freeDCtx(ctx); }
};

SourceInput::SourceInput(std::string path, UniqueFd fd, bool zstd) : path_(std::move(path)), fd_(std::move(fd)) {
  if (zstd) zstd_ = std::make_unique<ZstdStream>();
}
SourceInput::SourceInput(SourceInput&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::move(o.fd_)),
      zstd_(std::move(o.zstd_)),
      buf_(std::move(o.buf_)),
      pos_(o.pos_),
      eof_(o.eof_),
      file_bytes_read_(o.file_bytes_read_) {}
SourceInput::~SourceInput() = default;

Result<SourceInput> SourceInput::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Error{Errc::io_error, path + ": open: " + std::strerror(errno)};
  unsigned char magic[4] = {};
  const ssize_t n = ::pread(fd.get(), magic, sizeof magic, 0);
  if (n < 0) return Error{Errc::io_error, path + ": read: " + std::strerror(errno)};
  const bool zstd = n == 4 && std::memcmp(magic, kZstdMagic, 4) == 0;
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return SourceInput(path, std::move(fd), zstd);
}

Result<bool> SourceInput::refill() {
  if (eof_) return false;
  // Drop what was consumed.
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  auto read_file = [&](char* into, size_t cap) -> Result<size_t> {
    for (;;) {
      const ssize_t n = ::read(fd_.get(), into, cap);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{Errc::io_error, path_ + ": read: " + std::strerror(errno)};
      file_bytes_read_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  };
  if (!zstd_) {
    const size_t old = buf_.size();
    buf_.resize(old + kReadBytes);
    auto n = read_file(buf_.data() + old, kReadBytes);
    if (!n) return n.error();
    buf_.resize(old + *n);
    if (*n == 0) eof_ = true;
    return *n > 0;
  }
  ZstdStream& z = *zstd_;
  for (;;) {
    if (z.input.pos == z.input.size) {
      auto n = read_file(z.in.data(), z.in.size());
      if (!n) return n.error();
      if (*n == 0) {
        eof_ = true;
        if (z.last_result != 0)
          return Error{Errc::decompress_failed, path_ + ": the zstd stream is cut short (the file is incomplete)"};
        return false;
      }
      z.input = ZSTD_inBuffer{z.in.data(), *n, 0};
    }
    const size_t old = buf_.size();
    buf_.resize(old + kReadBytes);
    ZSTD_outBuffer output{buf_.data() + old, kReadBytes, 0};
    const size_t r = ZSTD_decompressStream(z.ctx, &output, &z.input);
    buf_.resize(old + output.pos);
    if (ZSTD_isError(r)) return Error{Errc::decompress_failed, path_ + ": zstd: " + ZSTD_getErrorName(r)};
    z.last_result = r;
    if (output.pos > 0) return true;
  }
}

Result<bool> SourceInput::next_line(std::string_view& line) {
  size_t searched = pos_;
  for (;;) {
    const size_t nl = buf_.find('\n', searched);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buf_[end - 1] == '\r') --end;
      line = std::string_view(buf_).substr(pos_, end - pos_);
      pos_ = nl + 1;
      return true;
    }
    const size_t scanned = buf_.size() - pos_;  // after pos_, searched: no '\n' there
    auto more = refill();                       // moves the unconsumed bytes to the front
    if (!more) return more.error();
    if (!*more) {
      if (pos_ == buf_.size()) return false;
      line = std::string_view(buf_).substr(pos_);
      pos_ = buf_.size();
      return true;
    }
    searched = pos_ + scanned;
  }
}

Result<bool> SourceInput::next_record(void* out, size_t n, size_t& partial_bytes) {
  partial_bytes = 0;
  while (buf_.size() - pos_ < n) {
    auto more = refill();
    if (!more) return more.error();
    if (!*more) {
      partial_bytes = buf_.size() - pos_;
      pos_ = buf_.size();
      return false;
    }
  }
  std::memcpy(out, buf_.data() + pos_, n);
  pos_ += n;
  return true;
}

}  // namespace hitcost::trace
