// The corpus file (corpus/corpus_file.h): what is written reads back byte for byte, and every
// kind of damage (cut, flipped byte, foreign file, lying manifest, full disk) is refused with
// where it is, never read as a smaller corpus.
#include "corpus/corpus_file.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/stores/test_util.h"

namespace hitcost::corpus {
namespace {

using hitcost::testing::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// (A fresh file each time: ext4 flushes a file truncated and rewritten on close, which made
// the every-offset loops take seconds.)
void spit(const std::string& path, const std::string& bytes) {
  std::filesystem::remove(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Manifest sample_manifest() {
  Manifest m;
  m.source = "memcached:127.0.0.1:11211,127.0.0.1:11212";
  m.nodes = {"127.0.0.1:11211", "127.0.0.1:11212"};
  m.sampled_at_unix_s = 1733150000;
  m.scheme = "php-memcached";
  m.sampling = "recency";
  m.seed = 42;
  m.keys_seen = 1000;
  m.keys_eligible = 990;
  m.requested_count = 10;
  m.byte_budget = 1u << 20;
  m.gone = 3;
  m.too_large = 10;
  m.redacted = true;
  m.redact_note = "strings replaced by same-length filler";
  m.notes = {"first note", "second note"};
  return m;
}

std::vector<CorpusRecord> small_records() {
  std::vector<CorpusRecord> rs;
  for (int i = 0; i < 5; ++i)
    rs.push_back(CorpusRecord{"key:" + std::to_string(i), static_cast<uint32_t>(i * 7), 1733150000u + i,
                              static_cast<uint32_t>(i % 2), std::string(static_cast<size_t>(10 + i * 13), 'a' + i)});
  return rs;
}

// Writes `records` and `manifest` to `path`, asserting success; returns what finish() stored.
void write_corpus(const std::string& path, const std::vector<CorpusRecord>& records, const Manifest& manifest) {
  auto w = CorpusWriter::create(path);
  ASSERT_TRUE(w.ok()) << w.error().message;
  for (const auto& r : records) ASSERT_TRUE(w->add(r).ok());
  auto s = w->finish(manifest);
  ASSERT_TRUE(s.ok()) << s.error().message;
}

// Byte offset where record `n` starts in a file written by write_corpus (header included).
uint64_t record_offset(const std::vector<CorpusRecord>& records, size_t n) {
  uint64_t off = kCorpusMagic.size();
  for (size_t i = 0; i < n; ++i)
    off += kRecordHeaderBytes + kRecordFixedBytes + records[i].key.size() + records[i].value.size();
  return off;
}

void put_u32_at(std::string& bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

TEST(CorpusFile, RoundTripKeepsBinaryKeysEmptyAndLargeValuesAndTheManifest) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  std::string big(1u << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::vector<CorpusRecord> records = {
      {std::string("bin\0key\xff", 8), 0xffffffffu, 0, 1, all_bytes},
      {"empty", 4, 1733150001, 0, ""},
      {"big", 16, 1733150002, 1, big},
      {std::string(65535, 'k'), 1, UINT64_MAX, 0, "x"},
  };
  write_corpus(path, records, sample_manifest());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  auto c = read_corpus(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(c->records[i], records[i]) << "record " << i;
  Manifest want = sample_manifest();
  want.values = 4;
  want.value_bytes = 256 + 0 + (1u << 20) + 1;
  EXPECT_EQ(c->manifest, want);
  EXPECT_EQ(c->manifest.format, "hitcost-corpus");
  EXPECT_EQ(c->manifest.version, 1u);
  EXPECT_EQ(std::filesystem::file_size(path),
            record_offset(records, 4) + manifest_to_json(want).size() + kFooterTrailerBytes);
}

TEST(CorpusFile, AnEmptyCorpusRoundTrips) {
  TempDir dir;
  const std::string path = dir.file("empty.corpus");
  write_corpus(path, {}, Manifest{});
  auto c = read_corpus(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->records.empty());
  EXPECT_EQ(c->manifest.values, 0u);
  EXPECT_EQ(c->manifest.scheme, "php-memcached");
}

TEST(CorpusFile, AKeyOver65535BytesIsRefusedAndTheWriterGoesOn) {
  TempDir dir;
  auto w = CorpusWriter::create(dir.file("c"));
  ASSERT_TRUE(w.ok());
  auto s = w->add(CorpusRecord{std::string(65536, 'k'), 0, 0, 0, "v"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::invalid_argument);
  EXPECT_TRUE(w->add(CorpusRecord{"k", 0, 0, 0, "v"}).ok());
  EXPECT_TRUE(w->finish(Manifest{}).ok());
  auto c = read_corpus(dir.file("c"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->records.size(), 1u);
}

TEST(CorpusFile, ACutAtEveryOffsetIsRefusedAsTruncated) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  write_corpus(path, small_records(), sample_manifest());
  const std::string whole = slurp(path);
  ASSERT_GT(whole.size(), 400u);
  const std::string cut_path = dir.file("cut.corpus");
  size_t refused = 0;
  for (size_t len = 0; len < whole.size(); ++len) {
    spit(cut_path, whole.substr(0, len));
    auto c = read_corpus(cut_path);
    ASSERT_FALSE(c.ok()) << "a file cut to " << len << " bytes was read";
    EXPECT_EQ(c.error().code, Errc::corrupt) << len;
    EXPECT_NE(c.error().message.find("truncated"), std::string::npos) << len << ": " << c.error().message;
    ++refused;
  }
  EXPECT_EQ(refused, whole.size());
  spit(cut_path, whole);
  EXPECT_TRUE(read_corpus(cut_path).ok()) << "the uncut copy reads";
}

TEST(CorpusFile, AFlippedByteInARecordIsRefusedNamingTheRecordAndOffset) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  const auto records = small_records();
  write_corpus(path, records, sample_manifest());
  std::string bytes = slurp(path);
  const uint64_t rec2 = record_offset(records, 2);
  bytes[rec2 + kRecordHeaderBytes + kRecordFixedBytes + records[2].key.size() + 3] ^= 0x20;  // in the value
  spit(path, bytes);
  auto c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::corrupt);
  EXPECT_NE(c.error().message.find("record 2 at byte " + std::to_string(rec2) + ": crc mismatch"), std::string::npos)
      << c.error().message;
}

TEST(CorpusFile, AFlippedByteInTheManifestIsRefusedNamingItsOffset) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  const auto records = small_records();
  write_corpus(path, records, sample_manifest());
  std::string bytes = slurp(path);
  const uint64_t manifest_at = record_offset(records, records.size());
  ASSERT_EQ(bytes[manifest_at], '{');
  bytes[manifest_at + 20] ^= 0x01;
  spit(path, bytes);
  auto c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::corrupt);
  EXPECT_NE(c.error().message.find("manifest at byte " + std::to_string(manifest_at) + ": crc mismatch"),
            std::string::npos)
      << c.error().message;
}

TEST(CorpusFile, AFlippedByteAnywhereIsRefused) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  write_corpus(path, small_records(), sample_manifest());
  const std::string whole = slurp(path);
  const std::string bad_path = dir.file("bad.corpus");
  size_t refused = 0;
  for (size_t at = 0; at < whole.size(); ++at) {
    std::string bytes = whole;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
    spit(bad_path, bytes);
    auto c = read_corpus(bad_path);
    ASSERT_FALSE(c.ok()) << "byte " << at << " flipped, still read";
    EXPECT_EQ(c.error().code, Errc::corrupt) << at;
    EXPECT_NE(c.error().message.find("byte"), std::string::npos) << at << ": " << c.error().message;
    ++refused;
  }
  EXPECT_EQ(refused, whole.size());
}

TEST(CorpusFile, AFileWithoutTheMagicIsNotACorpus) {
  TempDir dir;
  const std::string path = dir.file("other");
  spit(path, "{\"format\": \"something else\", \"padding\": \"0123456789\"}");
  auto c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::corrupt);
  EXPECT_NE(c.error().message.find("not a hitcost corpus"), std::string::npos) << c.error().message;
  spit(path, "HC");  // a prefix of the magic: a cut corpus, not another format
  c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("truncated"), std::string::npos) << c.error().message;
}

TEST(CorpusFile, AMissingFileIsAnIoErrorNamingIt) {
  TempDir dir;
  auto c = read_corpus(dir.file("nope"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::io_error);
  EXPECT_NE(c.error().message.find(dir.file("nope")), std::string::npos);
  EXPECT_NE(c.error().message.find(std::strerror(ENOENT)), std::string::npos);
}

TEST(CorpusFile, AManifestCountingOtherThanTheRecordsIsRefused) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  const auto records = small_records();
  write_corpus(path, records, sample_manifest());
  // Rewrite the footer with a well-formed, checksummed manifest that claims one value more.
  std::string bytes = slurp(path);
  const uint64_t manifest_at = record_offset(records, records.size());
  Manifest lying = sample_manifest();
  lying.values = records.size() + 1;
  const std::string text = manifest_to_json(lying);
  bytes.resize(manifest_at);
  bytes += text;
  bytes += std::string(8, '\0');
  put_u32_at(bytes, bytes.size() - 8, static_cast<uint32_t>(text.size()));
  put_u32_at(bytes, bytes.size() - 4, corpus_crc32(text));
  bytes += kCorpusEndMagic;
  spit(path, bytes);
  auto c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::corrupt);
  EXPECT_NE(c.error().message.find("says 6 values, the file holds 5 records"), std::string::npos) << c.error().message;
}

TEST(CorpusFile, ARecordLengthRunningPastTheRecordsEndIsRefused) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  const auto records = small_records();
  write_corpus(path, records, sample_manifest());
  std::string bytes = slurp(path);
  const uint64_t rec3 = record_offset(records, 3);
  put_u32_at(bytes, rec3, 0xfffffff0u);  // the length is outside the crc: only bounds catch it
  spit(path, bytes);
  auto c = read_corpus(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::corrupt);
  EXPECT_NE(c.error().message.find("record 3 at byte " + std::to_string(rec3) + ": body length 4294967280 runs past"),
            std::string::npos)
      << c.error().message;
}

TEST(CorpusFile, AWriterDroppedWithoutFinishLeavesNoFile) {
  TempDir dir;
  const std::string path = dir.file("c.corpus");
  {
    auto w = CorpusWriter::create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(CorpusRecord{"k", 0, 0, 0, std::string(3u << 20, 'v')}).ok());
    EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
  }
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(CorpusFile, CreatingInAMissingDirectoryIsAnIoErrorNamingThePath) {
  TempDir dir;
  auto w = CorpusWriter::create(dir.file("no/such/dir/c.corpus"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, Errc::io_error);
  EXPECT_NE(w.error().message.find("no/such/dir/c.corpus.tmp"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find(std::strerror(ENOENT)), std::string::npos) << w.error().message;
}

TEST(CorpusFile, ManifestJsonRoundTripsAndAMissingFieldIsNamed) {
  const Manifest m = sample_manifest();
  auto back = manifest_from_json(manifest_to_json(m));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, m);
  auto bad = manifest_from_json(R"({"format":"hitcost-corpus","version":1})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::parse_error);
  EXPECT_NE(bad.error().message.find("source"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(manifest_from_json("[1,2").ok());
}

// A full disk: a 64 KiB tmpfs in a mount namespace of a child's own (as root; otherwise a file
// size limit, which fails the same writes with EFBIG). The child writes until the writer fails
// and reports the error and whether the tmp file is still there, through a pipe.
TEST(CorpusFile, AFullDiskIsAnIoErrorAndLeavesNoTmpFile) {
  TempDir dir;
  const std::string mount_point = dir.file("small");
  std::filesystem::create_directory(mount_point);
  const std::string path = mount_point + "/c.corpus";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string report;
    bool tmpfs = false;
    if (::unshare(CLONE_NEWNS) == 0 && ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
        ::mount("hitcost-corpus-test", mount_point.c_str(), "tmpfs", 0, "size=64k") == 0) {
      tmpfs = true;
    } else {
      std::signal(SIGXFSZ, SIG_IGN);
      rlimit lim{65536, 65536};
      ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    report += tmpfs ? "tmpfs\n" : "rlimit\n";
    auto w = CorpusWriter::create(path);
    Status st = ok_status();
    if (!w.ok()) {
      st = w.error();
    } else {
      for (int i = 0; i < 64 && st.ok(); ++i)
        st = w->add(CorpusRecord{"k" + std::to_string(i), 0, 0, 0, std::string(16384, 'v')});
      if (st.ok()) st = w->finish(Manifest{});
      if (!st.ok()) {
        Status again = w->add(CorpusRecord{"after", 0, 0, 0, "v"});
        report += again.ok() ? "add after failure ok\n" : "add after failure refused\n";
      }
    }
    report += st.ok() ? "ok\n" : std::string(to_string(st.error().code)) + "\n" + st.error().message + "\n";
    report += std::filesystem::exists(path + ".tmp") ? "tmp left\n" : "no tmp\n";
    report += std::filesystem::exists(path) ? "file left\n" : "no file\n";
    (void)!::write(fds[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0);
    report.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report;
  const bool tmpfs = report.rfind("tmpfs\n", 0) == 0;
  if (::geteuid() == 0) {
    EXPECT_TRUE(tmpfs) << "root, yet no tmpfs could be mounted: " << report;
  }
  EXPECT_NE(report.find("\nio_error\n"), std::string::npos) << report;
  EXPECT_NE(report.find(path + ".tmp: write: " + std::strerror(tmpfs ? ENOSPC : EFBIG)), std::string::npos) << report;
  EXPECT_NE(report.find("add after failure refused"), std::string::npos) << report;
  EXPECT_NE(report.find("no tmp\n"), std::string::npos) << report;
  EXPECT_NE(report.find("no file\n"), std::string::npos) << report;
}

}  // namespace
}  // namespace hitcost::corpus
