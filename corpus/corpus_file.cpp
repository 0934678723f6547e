#include "corpus/corpus_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace hitcost::corpus {
namespace {

using nlohmann::json;

// Writes are gathered into this much before a write(2); reads fetch this much at a time.
constexpr size_t kIoChunk = 1u << 20;

std::string errno_text(const std::string& what, int err) { return what + ": " + std::strerror(err); }

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

void put_u16(std::string& out, uint16_t v) {
  for (int i = 0; i < 2; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// write(2) until all of `bytes` is written; 0 or the errno.
int write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;  // a regular file never takes nothing; do not spin
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

int fdatasync_retry(int fd) {
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

}  // namespace

uint32_t corpus_crc32(std::string_view bytes) noexcept {
  // zlib takes uInt lengths: feed it in pieces so a value over 4 GiB is not cut short.
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t left = bytes.size();
  while (left > 0) {
    const uInt n = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
    crc = ::crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(crc);
}

// ---- manifest JSON: the one place that names the fields ----

void to_json(json& j, const Manifest& m) {
  j = json{{"format", m.format},
           {"version", m.version},
           {"source", m.source},
           {"nodes", m.nodes},
           {"sampled_at_unix_s", m.sampled_at_unix_s},
           {"scheme", m.scheme},
           {"sampling", m.sampling},
           {"seed", m.seed},
           {"keys_seen", m.keys_seen},
           {"keys_eligible", m.keys_eligible},
           {"requested_count", m.requested_count},
           {"byte_budget", m.byte_budget},
           {"values", m.values},
           {"value_bytes", m.value_bytes},
           {"gone", m.gone},
           {"too_large", m.too_large},
           {"redacted", m.redacted},
           {"redact_note", m.redact_note},
           {"notes", m.notes}};
}

// Throws nlohmann's exceptions (type_error, out_of_range) naming the field; manifest_from_json
// turns them into a parse_error.
void from_json(const json& j, Manifest& m) {
  j.at("format").get_to(m.format);
  j.at("version").get_to(m.version);
  j.at("source").get_to(m.source);
  j.at("nodes").get_to(m.nodes);
  j.at("sampled_at_unix_s").get_to(m.sampled_at_unix_s);
  j.at("scheme").get_to(m.scheme);
  j.at("sampling").get_to(m.sampling);
  j.at("seed").get_to(m.seed);
  j.at("keys_seen").get_to(m.keys_seen);
  j.at("keys_eligible").get_to(m.keys_eligible);
  j.at("requested_count").get_to(m.requested_count);
  j.at("byte_budget").get_to(m.byte_budget);
  j.at("values").get_to(m.values);
  j.at("value_bytes").get_to(m.value_bytes);
  j.at("gone").get_to(m.gone);
  j.at("too_large").get_to(m.too_large);
  j.at("redacted").get_to(m.redacted);
  j.at("redact_note").get_to(m.redact_note);
  j.at("notes").get_to(m.notes);
}

std::string manifest_to_json(const Manifest& m) {
  // Keys and notes are the user's bytes: replace invalid UTF-8 rather than throw.
  return json(m).dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<Manifest> manifest_from_json(std::string_view text) {
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{Errc::parse_error, "manifest is not valid JSON"};
  if (!j.is_object()) return Error{Errc::parse_error, "manifest is not a JSON object"};
  try {
    return j.get<Manifest>();
  } catch (const json::exception& e) {
    return Error{Errc::parse_error, std::string("manifest: ") + e.what()};
  }
}

// ---- writer ----

CorpusWriter::CorpusWriter(std::string path, UniqueFd fd)
    : path_(std::move(path)), tmp_path_(path_ + ".tmp"), fd_(std::move(fd)) {}

CorpusWriter::CorpusWriter(CorpusWriter&& o) noexcept
    : path_(std::move(o.path_)),
      tmp_path_(std::exchange(o.tmp_path_, std::string())),
      fd_(std::move(o.fd_)),
      buffer_(std::move(o.buffer_)),
      records_(o.records_),
      value_bytes_(o.value_bytes_),
      finished_(o.finished_),
      failed_(o.failed_),
      error_(std::move(o.error_)) {}

CorpusWriter& CorpusWriter::operator=(CorpusWriter&& o) noexcept {
  if (this != &o) {
    abandon();
    path_ = std::move(o.path_);
    tmp_path_ = std::exchange(o.tmp_path_, std::string());
    fd_ = std::move(o.fd_);
    buffer_ = std::move(o.buffer_);
    records_ = o.records_;
    value_bytes_ = o.value_bytes_;
    finished_ = o.finished_;
    failed_ = o.failed_;
    error_ = std::move(o.error_);
  }
  return *this;
}

CorpusWriter::~CorpusWriter() { abandon(); }

void CorpusWriter::abandon() noexcept {
  fd_.reset();
  if (!finished_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
  tmp_path_.clear();
}

Result<CorpusWriter> CorpusWriter::create(const std::string& path) {
  if (path.empty()) return Error{Errc::invalid_argument, "corpus path is empty"};
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{Errc::io_error, errno_text(tmp + ": open", errno)};
  CorpusWriter w(path, UniqueFd(fd));
  w.buffer_.reserve(kIoChunk);
  w.buffer_.append(kCorpusMagic);
  return w;
}

Status CorpusWriter::fail(Errc code, std::string message) {
  failed_ = true;
  error_ = Error{code, std::move(message)};
  abandon();
  return error_;
}

Status CorpusWriter::flush() {
  if (buffer_.empty()) return ok_status();
  const int err = write_all(fd_.get(), buffer_.data(), buffer_.size());
  buffer_.clear();
  if (err != 0) return fail(Errc::io_error, errno_text(tmp_path_ + ": write", err));
  return ok_status();
}

Status CorpusWriter::write_out(std::string_view bytes) {
  if (buffer_.size() + bytes.size() <= kIoChunk) {
    buffer_.append(bytes);
    return ok_status();
  }
  if (auto s = flush(); !s) return s;
  if (bytes.size() < kIoChunk) {
    buffer_.append(bytes);
    return ok_status();
  }
  // A large value goes straight to the file (no copy into the buffer).
  const int err = write_all(fd_.get(), bytes.data(), bytes.size());
  if (err != 0) return fail(Errc::io_error, errno_text(tmp_path_ + ": write", err));
  return ok_status();
}

Status CorpusWriter::add(const CorpusRecord& r) {
  if (failed_) return error_;
  if (finished_ || !fd_) return Error{Errc::invalid_argument, path_ + ": corpus already finished"};
  if (r.key.size() > std::numeric_limits<uint16_t>::max())
    return Error{Errc::invalid_argument, "key of " + std::to_string(r.key.size()) + " bytes: over 65535"};
  const uint64_t body_len = kRecordFixedBytes + r.key.size() + uint64_t{r.value.size()};
  if (body_len > std::numeric_limits<uint32_t>::max())
    return Error{Errc::invalid_argument, "value of " + std::to_string(r.value.size()) + " bytes: record over 4 GiB"};

  // The body's fixed part and key are small; the value is checksummed in place, not copied.
  std::string head;
  head.reserve(kRecordHeaderBytes + kRecordFixedBytes + r.key.size());
  put_u32(head, static_cast<uint32_t>(body_len));
  put_u32(head, 0);  // crc, filled in below
  put_u32(head, r.flags);
  put_u64(head, r.last_access_unix_s);
  put_u32(head, r.node);
  put_u16(head, static_cast<uint16_t>(r.key.size()));
  head.append(r.key);
  put_u32(head, static_cast<uint32_t>(r.value.size()));
  uLong crc = ::crc32(0L, Z_NULL, 0);
  crc = ::crc32(crc, reinterpret_cast<const Bytef*>(head.data() + kRecordHeaderBytes),
                static_cast<uInt>(head.size() - kRecordHeaderBytes));
  const std::string_view value = r.value;
  for (size_t off = 0; off < value.size();) {
    const uInt n = static_cast<uInt>(std::min<size_t>(value.size() - off, 1u << 30));
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(value.data() + off), n);
    off += n;
  }
  std::string crc_bytes;
  put_u32(crc_bytes, static_cast<uint32_t>(crc));
  head.replace(4, 4, crc_bytes);

  if (auto s = write_out(head); !s) return s;
  if (auto s = write_out(value); !s) return s;
  ++records_;
  value_bytes_ += r.value.size();
  return ok_status();
}

Status CorpusWriter::finish(Manifest manifest) {
  if (failed_) return error_;
  if (finished_ || !fd_) return Error{Errc::invalid_argument, path_ + ": corpus already finished"};
  manifest.values = records_;
  manifest.value_bytes = value_bytes_;
  const std::string text = manifest_to_json(manifest);
  if (text.size() > kMaxManifestBytes)
    return fail(Errc::invalid_argument, "manifest of " + std::to_string(text.size()) + " bytes: too large");
  std::string footer = text;
  put_u32(footer, static_cast<uint32_t>(text.size()));
  put_u32(footer, corpus_crc32(text));
  footer.append(kCorpusEndMagic);
  if (auto s = write_out(footer); !s) return s;
  if (auto s = flush(); !s) return s;
  if (const int err = fdatasync_retry(fd_.get()); err != 0)
    return fail(Errc::io_error, errno_text(tmp_path_ + ": fdatasync", err));
  // close(2) can report a deferred write error (NFS, quota): a file is not done until it says so.
  const int fd = fd_.release();
  if (::close(fd) != 0 && errno != EINTR) return fail(Errc::io_error, errno_text(tmp_path_ + ": close", errno));
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    return fail(Errc::io_error, errno_text(tmp_path_ + ": rename to " + path_, errno));
  finished_ = true;
  // The rename is durable once the directory is synced; a failure here leaves a complete file,
  // so it is not reported (some file systems refuse fsync on a directory).
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path_.substr(0, slash));
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return ok_status();
}

// ---- reader ----

namespace {

// Sequential reads of a file of known size through a 1 MiB window (large bodies are read
// straight into their string). Offsets are absolute, for the error messages.
class WindowReader {
 public:
  WindowReader(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  // Exactly n bytes at `offset` into `out` (replaced), or io_error (a short read here means the
  // file shrank under us: the caller checked n against the size).
  Status read(uint64_t offset, size_t n, std::string& out) {
    if (offset >= win_off_ && offset + n <= win_off_ + win_.size()) {
      out.assign(win_, static_cast<size_t>(offset - win_off_), n);
      return ok_status();
    }
    if (n >= kIoChunk) {
      out.resize(n);
      return pread_exact(offset, out.data(), n);
    }
    win_.resize(kIoChunk);
    Result<size_t> got = pread_some(offset, win_.data(), kIoChunk);
    if (!got) return got.error();
    win_.resize(*got);
    win_off_ = offset;
    if (*got < n)
      return Error{Errc::io_error, path_ + ": file shrank while being read (at byte " + std::to_string(offset) + ")"};
    out.assign(win_, 0, n);
    return ok_status();
  }

  Status pread_exact(uint64_t offset, char* p, size_t n) {
    Result<size_t> got = pread_some(offset, p, n);
    if (!got) return got.error();
    if (*got < n)
      return Error{Errc::io_error, path_ + ": file shrank while being read (at byte " + std::to_string(offset) + ")"};
    return ok_status();
  }

 private:
  // Up to n bytes (fewer only at end of file).
  Result<size_t> pread_some(uint64_t offset, char* p, size_t n) {
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Error{Errc::io_error, errno_text(path_ + ": read", errno)};
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }

  int fd_;
  std::string path_;
  std::string win_;
  uint64_t win_off_ = 0;
};

Error corrupt(const std::string& path, const std::string& what) { return Error{Errc::corrupt, path + ": " + what}; }

// Magic: a file that starts like it but is shorter was cut, one that does not is something else.
Status check_magic(WindowReader& in, const std::string& path, uint64_t size) {
  std::string buf;
  const size_t magic_len = kCorpusMagic.size();
  const size_t head_len = static_cast<size_t>(std::min<uint64_t>(size, magic_len));
  if (auto s = in.read(0, head_len, buf); !s) return s.error();
  if (buf != kCorpusMagic.substr(0, head_len))
    return corrupt(path, "not a hitcost corpus (no \"HCORPUS1\" magic at byte 0)");
  if (size < magic_len)
    return corrupt(path, "truncated: " + std::to_string(size) + " bytes, shorter than the magic" +
                             (size == 0 ? " (empty file)" : ""));
  if (size < magic_len + kFooterTrailerBytes)
    return corrupt(path, "truncated: " + std::to_string(size) + " bytes, no room for the footer");
  return ok_status();
}

struct Footer {
  Manifest manifest;
  uint64_t records_end = 0;  // byte offset where the records stop and the manifest starts
};

// The footer, from the end: trailer (manifest length, crc, end magic), then the manifest.
// The caller checked that the file holds the magic and a trailer.
Result<Footer> read_footer(WindowReader& in, const std::string& path, uint64_t size) {
  std::string buf;
  const size_t magic_len = kCorpusMagic.size();
  const uint64_t trailer_off = size - kFooterTrailerBytes;
  if (auto s = in.read(trailer_off, kFooterTrailerBytes, buf); !s) return s.error();
  if (std::string_view(buf).substr(8) != kCorpusEndMagic)
    return corrupt(path, "truncated: no footer (the file's last 8 bytes, at byte " + std::to_string(trailer_off + 8) +
                             ", are not \"HCORPEND\")");
  const uint32_t manifest_len = static_cast<uint32_t>(get_le(buf.data(), 4));
  const uint32_t manifest_crc = static_cast<uint32_t>(get_le(buf.data() + 4, 4));
  if (manifest_len > kMaxManifestBytes || manifest_len > trailer_off - magic_len)
    return corrupt(path, "manifest length " + std::to_string(manifest_len) + " (at byte " +
                             std::to_string(trailer_off) + ") runs past the start of the file's records");
  const uint64_t records_end = trailer_off - manifest_len;
  if (auto s = in.read(records_end, manifest_len, buf); !s) return s.error();
  if (const uint32_t crc = corpus_crc32(buf); crc != manifest_crc)
    return corrupt(path, "manifest at byte " + std::to_string(records_end) + ": crc mismatch (stored " +
                             hex32(manifest_crc) + ", computed " + hex32(crc) + ")");
  Result<Manifest> manifest = manifest_from_json(buf);
  if (!manifest)
    return corrupt(path, "manifest at byte " + std::to_string(records_end) + ": " + manifest.error().message);
  if (manifest->format != kCorpusFormat)
    return corrupt(path, "manifest format is \"" + manifest->format + "\", not \"hitcost-corpus\"");
  if (manifest->version != kCorpusVersion)
    return corrupt(path, "corpus version " + std::to_string(manifest->version) + " (this build reads version 1)");
  return Footer{std::move(*manifest), records_end};
}

// One record's body (its crc already matched, so a length that disagrees with the body is a
// writer's bug; still checked). `where` names the record for the error messages.
Result<CorpusRecord> parse_record_body(std::string_view body, const std::string& path, const std::string& where,
                                       const Manifest& manifest) {
  CorpusRecord r;
  const char* p = body.data();
  r.flags = static_cast<uint32_t>(get_le(p, 4));
  r.last_access_unix_s = get_le(p + 4, 8);
  r.node = static_cast<uint32_t>(get_le(p + 12, 4));
  const size_t key_len = static_cast<size_t>(get_le(p + 16, 2));
  if (key_len > body.size() - kRecordFixedBytes)
    return corrupt(path, where + ": key length " + std::to_string(key_len) + " runs past the body's end");
  r.key.assign(p + 18, key_len);
  const uint64_t value_len = get_le(p + 18 + key_len, 4);
  if (value_len != body.size() - kRecordFixedBytes - key_len)
    return corrupt(path, where + ": value length " + std::to_string(value_len) + " disagrees with the body length " +
                             std::to_string(body.size()));
  if (!manifest.nodes.empty() && r.node >= manifest.nodes.size())
    return corrupt(path, where + ": node index " + std::to_string(r.node) + " but the manifest lists " +
                             std::to_string(manifest.nodes.size()) + " nodes");
  r.value.assign(p + kRecordFixedBytes + key_len, static_cast<size_t>(value_len));
  return r;
}

// The records from after the magic to `records_end`, appended to corpus.records.
Status read_records(WindowReader& in, const std::string& path, uint64_t records_end, Corpus& corpus) {
  std::string buf;
  uint64_t off = kCorpusMagic.size();
  while (off < records_end) {
    const std::string where = "record " + std::to_string(corpus.records.size()) + " at byte " + std::to_string(off);
    if (records_end - off < kRecordHeaderBytes)
      return corrupt(path, where + ": header runs past the records' end (byte " + std::to_string(records_end) + ")");
    if (auto s = in.read(off, kRecordHeaderBytes, buf); !s) return s.error();
    const uint32_t body_len = static_cast<uint32_t>(get_le(buf.data(), 4));
    const uint32_t body_crc = static_cast<uint32_t>(get_le(buf.data() + 4, 4));
    const uint64_t body_off = off + kRecordHeaderBytes;
    if (body_len > records_end - body_off)
      return corrupt(path, where + ": body length " + std::to_string(body_len) + " runs past the records' end (byte " +
                               std::to_string(records_end) + ")");
    if (body_len < kRecordFixedBytes)
      return corrupt(path, where + ": body length " + std::to_string(body_len) + " is shorter than a record's fixed " +
                               std::to_string(kRecordFixedBytes) + " bytes");
    if (auto s = in.read(body_off, body_len, buf); !s) return s.error();
    if (const uint32_t crc = corpus_crc32(buf); crc != body_crc)
      return corrupt(path, where + ": crc mismatch (stored " + hex32(body_crc) + ", computed " + hex32(crc) + ")");
    Result<CorpusRecord> r = parse_record_body(buf, path, where, corpus.manifest);
    if (!r) return r.error();
    corpus.records.push_back(std::move(*r));
    off = body_off + body_len;
  }
  return ok_status();
}

}  // namespace

Result<Corpus> read_corpus(const std::string& path) {
  const int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) return Error{Errc::io_error, errno_text(path + ": open", errno)};
  UniqueFd fd(raw_fd);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error{Errc::io_error, errno_text(path + ": fstat", errno)};
  if (!S_ISREG(st.st_mode)) return Error{Errc::io_error, path + ": not a regular file"};
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  WindowReader in(fd.get(), path);

  if (auto s = check_magic(in, path, size); !s) return s.error();
  Result<Footer> footer = read_footer(in, path, size);
  if (!footer) return footer.error();
  const uint64_t records_end = footer->records_end;
  Corpus corpus;
  corpus.manifest = std::move(footer->manifest);
  // The manifest's count is checked only after the records; reserve no more than the bytes
  // could hold, whatever it claims.
  corpus.records.reserve(static_cast<size_t>(std::min<uint64_t>(
      corpus.manifest.values, (records_end - kCorpusMagic.size()) / (kRecordHeaderBytes + kRecordFixedBytes))));
  if (auto s = read_records(in, path, records_end, corpus); !s) return s.error();
  if (corpus.records.size() != corpus.manifest.values)
    return corrupt(path, "the manifest (at byte " + std::to_string(records_end) + ") says " +
                             std::to_string(corpus.manifest.values) + " values, the file holds " +
                             std::to_string(corpus.records.size()) + " records");
  return corpus;
}

Result<FlagScheme> manifest_flag_scheme(const Manifest& m, const std::string& path) {
  auto scheme = parse_flag_scheme(m.scheme);
  if (!scheme)
    return Error{Errc::invalid_argument, path + ": the manifest's flag scheme '" + m.scheme +
                                             "' is not one hitcost reads (" + scheme.error().message + ")"};
  return *scheme;
}

}  // namespace hitcost::corpus
