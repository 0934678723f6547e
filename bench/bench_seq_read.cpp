// Seed 002, sequential half: one 64 MiB file read front to back, through a shared
// read-only mapping against read(2) into a buffer, per block size (4 KiB .. 1 MiB).
//
//   BM_SeqReadHot/block:B   pages resident (read once and mapped with MAP_POPULATE before
//                           timing; checked with file_residency). The mapping is made once,
//                           outside the timed passes.
//   BM_SeqReadCold/block:B  the file's pages evicted before every pass (fdatasync, then
//                           posix_fadvise(DONTNEED): no root needed) and checked to be gone;
//                           the mmap pass maps, reads and unmaps inside its time (a live
//                           mapping would keep the pages from being evicted).
//
// Both paths do the same consumer work: a checksum of every byte, block by block (the mmap
// path straight from the mapping, the read path from its buffer). Before timing, every block
// read(2) returns is compared with the mapping (memcmp) and both checksums with the one taken
// when the file was written; every timed pass is checked against it again. Disagreement is
// SkipWithError.
//
// One benchmark iteration = one mmap pass then one read pass (A B A B ...), so drift on a
// shared machine hits both. Time (manual) is the pair's; bytes/s counts both passes.
// Counters: mmap_ns_per_MiB and read_ns_per_MiB are medians over the passes,
// read_calls_per_MiB the read(2) calls actually made, speedup the median mmap/read speed
// ratio (only when conclusive). The label is bench/speed_verdict.h's verdict over the
// repeats: "mmap/read speed 2.60x [2.40..2.85]" or "inconclusive: ...". Cold reads in a VM
// scatter widely (the host caches the guest's disk), so expect "inconclusive" there.
//
//   build/bench/bench/hitcost-bench --benchmark_filter=Seq
//
// The file lives in bench_dir() (under TMPDIR); on tmpfs the cold benchmark skips, since
// its pages cannot leave the page cache.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/speed_verdict.h"
#include "stores/residency.h"

namespace {

constexpr size_t kFileBytes = 64u << 20;
constexpr double kFileMiB = static_cast<double>(kFileBytes) / (1u << 20);

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Order-sensitive checksum over 64-bit words (Fletcher-style), fed block by block: the
// same bytes in the same order give the same value whatever the block size.
struct Checksum {
  uint64_t a = 0, b = 0;
  void add(const unsigned char* p, size_t n) noexcept {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      a += w;
      b += a;
    }
    for (; i < n; ++i) {
      a += p[i];
      b += a;
    }
  }
  uint64_t value() const noexcept { return a ^ (b * 0x9E3779B97F4A7C15ull); }
};

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct Mapping {
  const unsigned char* p = nullptr;  // nullptr when mmap failed
  size_t len = 0;
  Mapping(int fd, size_t n, int extra_flags) : len(n) {
    void* m = ::mmap(nullptr, n, PROT_READ, MAP_SHARED | extra_flags, fd, 0);
    if (m != MAP_FAILED) p = static_cast<const unsigned char*>(m);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (p) ::munmap(const_cast<unsigned char*>(p), len);
  }
};

// A page-aligned buffer of one block.
struct Buffer {
  std::unique_ptr<unsigned char, decltype(&std::free)> p{nullptr, &std::free};
  explicit Buffer(size_t n) : p(static_cast<unsigned char*>(std::aligned_alloc(4096, n)), &std::free) {}
};

// The file both benchmarks read: written once per process with pseudo-random bytes, its
// checksum taken from the bytes written. The fd stays open (read-write, for fdatasync).
class SeqFile {
 public:
  static SeqFile& instance() {
    static SeqFile f;
    return f;
  }
  const std::string& error() const { return error_; }
  int fd() const { return fd_->fd; }
  uint64_t sum() const { return sum_; }

 private:
  SeqFile() {
    const std::string path = hitcost::bench::bench_dir() + "/seq.dat";
    fd_ = std::make_unique<Fd>(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (fd_->fd < 0) {
      error_ = errno_text(("open " + path).c_str());
      return;
    }
    std::vector<unsigned char> chunk(1u << 20);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    Checksum c;
    for (size_t off = 0; off < kFileBytes; off += chunk.size()) {
      for (size_t i = 0; i < chunk.size(); i += 8) {  // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(chunk.data() + i, &x, 8);
      }
      c.add(chunk.data(), chunk.size());
      if (::pwrite(fd_->fd, chunk.data(), chunk.size(), static_cast<off_t>(off)) !=
          static_cast<ssize_t>(chunk.size())) {
        error_ = errno_text("write the sequential-read file");
        return;
      }
    }
    sum_ = c.value();
  }
  std::unique_ptr<Fd> fd_;
  std::string error_;
  uint64_t sum_ = 0;
};

struct Pass {
  double ns = 0;
  uint64_t sum = 0;
  uint64_t calls = 0;  // read(2) calls (read path only)
  std::string error;   // empty when the pass went through
};

double since_ns(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

void checksum_mapping(const unsigned char* p, size_t block, Checksum& c) {
  for (size_t off = 0; off < kFileBytes; off += block) c.add(p + off, std::min(block, kFileBytes - off));
}

// Hot: the mapping already exists and is populated.
Pass mmap_pass(const Mapping& m, size_t block) {
  Pass r;
  Checksum c;
  const auto t0 = std::chrono::steady_clock::now();
  checksum_mapping(m.p, block, c);
  r.ns = since_ns(t0);
  r.sum = c.value();
  benchmark::DoNotOptimize(r.sum);
  return r;
}

// Cold: map, read, unmap, all inside the time.
Pass mmap_pass_fresh(int fd, size_t block) {
  Pass r;
  Checksum c;
  const auto t0 = std::chrono::steady_clock::now();
  {
    Mapping m(fd, kFileBytes, 0);
    if (!m.p) {
      r.error = errno_text("mmap");
      return r;
    }
    checksum_mapping(m.p, block, c);
  }
  r.ns = since_ns(t0);
  r.sum = c.value();
  benchmark::DoNotOptimize(r.sum);
  return r;
}

Pass read_pass(int fd, unsigned char* buf, size_t block) {
  Pass r;
  Checksum c;
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    r.error = errno_text("lseek");
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t done = 0; done < kFileBytes;) {
    const ssize_t n = ::read(fd, buf, std::min(block, kFileBytes - done));
    ++r.calls;
    if (n <= 0) {
      r.error = n == 0 ? std::string("read: unexpected end of file") : errno_text("read");
      return r;
    }
    c.add(buf, static_cast<size_t>(n));
    done += static_cast<size_t>(n);
  }
  r.ns = since_ns(t0);
  r.sum = c.value();
  benchmark::DoNotOptimize(r.sum);
  return r;
}

// Both paths see the same bytes: every block read(2) returns equals the mapping's, and both
// checksums equal the one taken when the file was written. Leaves the pages resident.
std::string verify(int fd, const unsigned char* map, unsigned char* buf, size_t block, uint64_t want) {
  if (::lseek(fd, 0, SEEK_SET) != 0) return errno_text("lseek");
  Checksum via_read, via_map;
  for (size_t off = 0; off < kFileBytes;) {
    const ssize_t n = ::read(fd, buf, std::min(block, kFileBytes - off));
    if (n <= 0) return n == 0 ? "read: unexpected end of file" : errno_text("read");
    if (std::memcmp(buf, map + off, static_cast<size_t>(n)) != 0) return "read(2) and the mapping disagree";
    via_read.add(buf, static_cast<size_t>(n));
    off += static_cast<size_t>(n);
  }
  checksum_mapping(map, block, via_map);
  if (via_read.value() != want || via_map.value() != want) return "checksum differs from the bytes written";
  return {};
}

// Drops the file's pages from the page cache and checks that they are gone (<= 1 % left).
std::string evict(int fd) {
  if (::fdatasync(fd) != 0) return errno_text("fdatasync");
  if (int e = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); e != 0) {
    errno = e;
    return errno_text("posix_fadvise(DONTNEED)");
  }
  auto res = hitcost::file_residency(fd);
  if (!res) return "file_residency: " + res.error().message;
  if (res->resident_bytes * 100 > res->file_bytes) {
    return "file still " + std::to_string(res->resident_bytes * 100 / res->file_bytes) +
           " % resident after POSIX_FADV_DONTNEED (tmpfs? set TMPDIR to a disk)";
  }
  return {};
}

double median(std::vector<double> v) {
  return hitcost::client::Range::of(std::move(v)).value_or(hitcost::client::Range{}).median;
}

void report(benchmark::State& state, const std::vector<double>& mmap_ns, const std::vector<double>& read_ns,
            uint64_t read_calls) {
  state.SetBytesProcessed(static_cast<int64_t>(2 * kFileBytes * mmap_ns.size()));
  state.counters["mmap_ns_per_MiB"] = median(mmap_ns) / kFileMiB;
  state.counters["read_ns_per_MiB"] = median(read_ns) / kFileMiB;
  state.counters["read_calls_per_MiB"] =
      read_ns.empty() ? 0 : static_cast<double>(read_calls) / (kFileMiB * static_cast<double>(read_ns.size()));
  state.counters["repeats"] = static_cast<double>(mmap_ns.size());
  const auto v = hitcost::bench::judge_speed("mmap", mmap_ns, "read", read_ns);
  if (v.conclusive) state.counters["speedup"] = v.ratio;
  state.SetLabel(v.label);
}

// Runs the loop body's two passes and records them; false (after SkipWithError) on failure.
bool record(benchmark::State& state, const Pass& m, const Pass& r, uint64_t want, std::vector<double>& mmap_ns,
            std::vector<double>& read_ns, uint64_t& read_calls) {
  if (!m.error.empty() || !r.error.empty()) {
    state.SkipWithError((m.error.empty() ? r.error : m.error).c_str());
    return false;
  }
  if (m.sum != want || r.sum != want) {
    state.SkipWithError("a timed pass read other bytes than the file holds");
    return false;
  }
  state.SetIterationTime((m.ns + r.ns) * 1e-9);
  mmap_ns.push_back(m.ns);
  read_ns.push_back(r.ns);
  read_calls += r.calls;
  return true;
}

void BM_SeqReadHot(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  SeqFile& f = SeqFile::instance();
  if (!f.error().empty()) return state.SkipWithError(f.error().c_str());
  Mapping map(f.fd(), kFileBytes, MAP_POPULATE);
  Buffer buf(block);
  if (!map.p || !buf.p) return state.SkipWithError(!map.p ? "mmap failed" : "out of memory");
  if (std::string e = verify(f.fd(), map.p, buf.p.get(), block, f.sum()); !e.empty())
    return state.SkipWithError(e.c_str());
  auto res = hitcost::file_residency(f.fd());
  if (!res || res->resident_bytes < res->file_bytes)
    return state.SkipWithError("the file is not fully in the page cache after reading it");

  std::vector<double> mmap_ns, read_ns;
  uint64_t calls = 0;
  for (auto _ : state) {
    Pass m = mmap_pass(map, block);
    Pass r = read_pass(f.fd(), buf.p.get(), block);
    if (!record(state, m, r, f.sum(), mmap_ns, read_ns, calls)) break;
  }
  report(state, mmap_ns, read_ns, calls);
}

void BM_SeqReadCold(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  SeqFile& f = SeqFile::instance();
  if (!f.error().empty()) return state.SkipWithError(f.error().c_str());
  Buffer buf(block);
  if (!buf.p) return state.SkipWithError("out of memory");
  {
    Mapping map(f.fd(), kFileBytes, 0);
    if (!map.p) return state.SkipWithError("mmap failed");
    if (std::string e = verify(f.fd(), map.p, buf.p.get(), block, f.sum()); !e.empty())
      return state.SkipWithError(e.c_str());
  }  // unmapped: mapped pages would survive DONTNEED

  std::vector<double> mmap_ns, read_ns;
  uint64_t calls = 0;
  for (auto _ : state) {
    std::string e = evict(f.fd());
    Pass m = e.empty() ? mmap_pass_fresh(f.fd(), block) : Pass{};
    if (e.empty()) e = evict(f.fd());
    Pass r = e.empty() ? read_pass(f.fd(), buf.p.get(), block) : Pass{};
    if (!e.empty()) {
      state.SkipWithError(e.c_str());
      break;
    }
    if (!record(state, m, r, f.sum(), mmap_ns, read_ns, calls)) break;
  }
  report(state, mmap_ns, read_ns, calls);
}

void block_sizes(benchmark::internal::Benchmark* b) {
  for (int kib : {4, 16, 64, 256, 1024}) b->Arg(kib << 10);
  b->ArgName("block");
}

// Fixed repeat counts: enough for the verdict (kMinRepeats = 5), few enough for cold reads.
BENCHMARK(BM_SeqReadHot)->Apply(block_sizes)->Iterations(11)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SeqReadCold)->Apply(block_sizes)->Iterations(7)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
