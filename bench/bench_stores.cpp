// Store microbenchmarks: get/set per backend and value size, a set under each sync policy, and
// the seed experiment — 1M random 64-byte reads of a hot file, pread(2) against memcpy from a
// mapping. Every benchmark checks what it reads before it starts timing.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "stores/store.h"

namespace {

using hitcost::Store;
using hitcost::bench::bench_dir;

// ---- a memcached of our own, on a free loopback port, killed at exit ---------------------
class BenchMemcached {
 public:
  static BenchMemcached& instance() {
    static BenchMemcached m;
    return m;
  }
  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  ~BenchMemcached() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

 private:
  BenchMemcached() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    ::close(fd);
    const int port = ntohs(a.sin_port);
    pid_ = ::fork();
    if (pid_ == 0) {
      std::string p = std::to_string(port);
      int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) ::dup2(devnull, 2);
      if (::geteuid() == 0)
        ::execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", p.c_str(), "-U", "0", "-m", "512", "-t", "1", "-u",
                 "root", nullptr);
      else
        ::execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", p.c_str(), "-U", "0", "-m", "512", "-t", "1",
                 nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 200 && pid_ > 0; ++i) {  // wait until it accepts
      int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      a.sin_port = htons(static_cast<uint16_t>(port));
      bool up = ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(c);
      if (up) {
        port_ = port;
        return;
      }
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  pid_t pid_ = -1;
  int port_ = -1;
};

// Opened stores are cached per spec so repetitions reuse the warm store.
hitcost::Result<Store*> store_for(const std::string& kind) {
  static std::map<std::string, std::unique_ptr<Store>> stores;
  auto& slot = stores[kind];
  if (slot) return slot.get();
  std::string spec;
  if (kind == "memory")
    spec = "memory";
  else if (kind == "mmap")
    spec = "mmap:" + bench_dir() + "/mmap.dat?size=256M&create=1";
  else if (kind == "pread")
    spec = "pread:" + bench_dir() + "/pread.dat?size=256M&create=1";
  else if (kind == "memcached") {
    auto& mc = BenchMemcached::instance();
    if (!mc.ok()) return hitcost::Error{hitcost::Errc::connection, "memcached not available"};
    spec = "memcached:127.0.0.1:" + std::to_string(mc.port());
  }
  auto s = hitcost::open_store(spec);
  if (!s) return s.error();
  slot = std::move(*s);
  return slot.get();
}

const char* kKinds[] = {"memory", "mmap", "pread", "memcached"};

// The store of the benchmark's first argument; nullptr when there is none, the benchmark then
// skipped with the reason.
Store* store_or_skip(benchmark::State& state) {
  auto s = store_for(kKinds[state.range(0)]);
  if (!s) {
    state.SkipWithError(s.error().message.c_str());
    return nullptr;
  }
  return *s;
}

std::string value_of(size_t size, size_t i) {
  std::string v(size, '\0');
  for (size_t j = 0; j < size; ++j) v[j] = static_cast<char>('a' + (i * 131 + j * 7) % 26);
  return v;
}

// "PREFIX:0" .. "PREFIX:N-1".
std::vector<std::string> keys_of(const std::string& prefix, size_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) keys.push_back(prefix + ":" + std::to_string(i));
  return keys;
}

// Sets `key` and reads it back before any timing: false (the benchmark skipped) when the
// value or flags read back differ from those written.
bool set_and_read_back(benchmark::State& state, Store& s, const std::string& key, const std::string& value,
                       uint32_t flags) {
  std::string v;
  uint32_t f = 0;
  if (s.set(key, value, flags) && s.get(key, v, f) && v == value && f == flags) return true;
  state.SkipWithError("value read back differs from the value written");
  return false;
}

// A store call that failed in the timed loop skips the benchmark: a miss or an error returns
// early and would look fast. `op` ("get", "set") names the call. Returns whether it failed.
bool failed_in_loop(benchmark::State& state, const char* op, const hitcost::Status& r) {
  if (r) return false;
  state.SkipWithError(
      (std::string(op) + " in the timed loop: " + hitcost::to_string(r.error().code) + " " + r.error().message)
          .c_str());
  return true;
}

// The get/set benchmarks' arguments (store kind, value bytes), their store (nullptr when there
// is none: the benchmark then skipped) and their keys ("OP:SIZE:I"; fewer for large values).
struct StoreArgs {
  StoreArgs(benchmark::State& state, const char* op)
      : kind(kKinds[state.range(0)]),
        size(static_cast<size_t>(state.range(1))),
        store(store_or_skip(state)),
        keys(keys_of(std::string(op) + ":" + std::to_string(size), size >= 100000 ? 256 : 1024)) {}
  std::string kind;
  size_t size;
  Store* store;
  std::vector<std::string> keys;
  // Bytes per iteration and the store's name, once the timed loop is done.
  void report(benchmark::State& state) const {
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
    state.SetLabel(kind);
  }
};

void BM_StoreGet(benchmark::State& state) {
  const StoreArgs a(state, "get");
  if (!a.store) return;
  const size_t n = a.keys.size();
  for (size_t i = 0; i < n; ++i)
    if (!set_and_read_back(state, *a.store, a.keys[i], value_of(a.size, i), static_cast<uint32_t>(i))) return;
  std::mt19937 rng(1);
  std::vector<uint32_t> order(4096);
  for (auto& o : order) o = static_cast<uint32_t>(rng() % n);
  std::string v;
  uint32_t f = 0;
  size_t i = 0;
  for (auto _ : state) {
    if (failed_in_loop(state, "get", a.store->get(a.keys[order[i++ & 4095]], v, f))) return;
    benchmark::DoNotOptimize(v.data());
  }
  a.report(state);
}

void BM_StoreSet(benchmark::State& state) {
  const StoreArgs a(state, "set");
  if (!a.store) return;
  const std::string value = value_of(a.size, 3);
  if (!set_and_read_back(state, *a.store, a.keys[0], value, 9)) return;
  const size_t n = a.keys.size();
  size_t i = 0;
  for (auto _ : state)
    if (failed_in_loop(state, "set", a.store->set(a.keys[i++ % n], value, 9))) return;
  a.report(state);
}

void store_args(benchmark::internal::Benchmark* b) {
  for (int k = 0; k < 4; ++k)
    for (int size : {64, 1024, 10 * 1024, 100 * 1024}) b->Args({k, size});
  b->ArgNames({"store", "bytes"});
}
BENCHMARK(BM_StoreGet)->Apply(store_args);
BENCHMARK(BM_StoreSet)->Apply(store_args);

// ---- durable writes: a 4 KiB set under each sync policy (pread store) ------------------------
// One file per policy under the scratch directory, opened once and kept (repetitions reuse it).
// Counters: syncs per set (each: 1; interval: syncs in the timed loop / sets, which shrinks as
// sets get cheaper) and the mean fdatasync (ms) over the store's life. On tmpfs fdatasync does
// nothing: run with TMPDIR on a disk to see what durability costs.
const char* kSyncPolicies[] = {"none", "each", "interval:10", "interval:100"};

void BM_StoreSetSync(benchmark::State& state) {
  const std::string policy = kSyncPolicies[state.range(0)];
  static std::map<std::string, std::unique_ptr<Store>> stores;
  auto& s = stores[policy];
  if (!s) {
    auto o = hitcost::open_store("pread:" + bench_dir() + "/sync-" + std::to_string(state.range(0)) +
                                 ".dat?size=64M&create=1&sync=" + policy);
    if (!o) {
      state.SkipWithError(o.error().message.c_str());
      return;
    }
    s = std::move(*o);
  }
  if (s->stats().sync_policy != policy) {
    state.SkipWithError(("store reports sync policy " + s->stats().sync_policy).c_str());
    return;
  }
  constexpr size_t kSize = 4096, kKeys = 1024;
  const std::vector<std::string> keys = keys_of("sync", kKeys);
  const std::string value = value_of(kSize, 11);
  if (!set_and_read_back(state, *s, keys[0], value, 7)) return;
  const auto before = s->stats().sync.value_or(hitcost::SyncStats::Figures{});
  size_t i = 0;
  for (auto _ : state)
    if (failed_in_loop(state, "set", s->set(keys[i++ % kKeys], value, 7))) return;
  const auto after = s->stats().sync.value_or(hitcost::SyncStats::Figures{});
  const double syncs = static_cast<double>(after.calls - before.calls);
  state.counters["syncs_per_set"] = syncs / static_cast<double>(std::max<int64_t>(state.iterations(), 1));
  state.counters["sync_ms_mean"] =
      after.calls ? static_cast<double>(after.total_ns) / 1e6 / static_cast<double>(after.calls) : 0;
  state.counters["sync_errors"] = static_cast<double>(after.errors);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kSize));
  state.SetLabel(policy);
}
BENCHMARK(BM_StoreSetSync)->DenseRange(0, 3)->ArgName("policy")->UseRealTime();

// ---- the seed experiment -------------------------------------------------------------------
// 1M random 64-byte reads of a hot 64 MiB file: pread(2) into a buffer vs memcpy out of a
// shared read-only mapping (pages faulted in before timing). One iteration = both loops;
// counters report ns per read and the ratio.
void BM_SeedPreadVsMmap64(benchmark::State& state) {
  constexpr size_t kFile = 64u << 20, kReads = 1u << 20, kRead = 64;
  const std::string path = bench_dir() + "/seed.dat";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  std::string chunk = value_of(1 << 20, 5);
  for (size_t off = 0; off < kFile; off += chunk.size())
    if (::pwrite(fd, chunk.data(), chunk.size(), static_cast<off_t>(off)) != static_cast<ssize_t>(chunk.size()))
      state.SkipWithError("cannot write the seed file");
  auto* map = static_cast<const char*>(::mmap(nullptr, kFile, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0));
  std::vector<uint64_t> offs(kReads);
  std::mt19937_64 rng(7);
  for (auto& o : offs) o = (rng() % (kFile / kRead)) * kRead;
  char buf[kRead];
  for (size_t i = 0; i < 1000; ++i) {  // both paths read the same bytes
    if (::pread(fd, buf, kRead, static_cast<off_t>(offs[i])) != kRead || std::memcmp(buf, map + offs[i], kRead) != 0) {
      state.SkipWithError("pread and mmap disagree");
      break;
    }
  }
  double pread_ns = 0, mmap_ns = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t o : offs) {
      if (::pread(fd, buf, kRead, static_cast<off_t>(o)) != kRead) std::abort();
      benchmark::DoNotOptimize(buf);
      benchmark::ClobberMemory();
    }
    auto t1 = std::chrono::steady_clock::now();
    for (uint64_t o : offs) {
      std::memcpy(buf, map + o, kRead);
      benchmark::DoNotOptimize(buf);
      benchmark::ClobberMemory();
    }
    auto t2 = std::chrono::steady_clock::now();
    pread_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    mmap_ns += std::chrono::duration<double, std::nano>(t2 - t1).count();
  }
  const double iters = static_cast<double>(state.iterations()) * kReads;
  state.counters["pread_ns"] = pread_ns / iters;
  state.counters["mmap_ns"] = mmap_ns / iters;
  state.counters["pread_over_mmap"] = mmap_ns > 0 ? pread_ns / mmap_ns : 0;
  ::munmap(const_cast<char*>(map), kFile);
  ::close(fd);
}
BENCHMARK(BM_SeedPreadVsMmap64)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
