// /stats "memory" and /metrics hitcost_memory_bytes against a real hitcost-server: an mmap
// store's file shows in RSS but not in process_own_kb; a pread store's file is resident
// without being in RSS; a memory store has no file figure.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "server/process_stats.h"
#include "tests/support/http_client.h"
#include "tests/support/no_skip.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;

namespace {

// hitcost_memory_bytes samples of a /metrics body, by kind.
std::map<std::string, double> memory_samples(const std::string& metrics) {
  std::map<std::string, double> out;
  std::istringstream in(metrics);
  std::string line;
  const std::string prefix = "hitcost_memory_bytes{kind=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t q = line.find('"', prefix.size());
    out[line.substr(prefix.size(), q - prefix.size())] = std::stod(line.substr(line.find(' ', q) + 1));
  }
  return out;
}

// Under the build tree, not TMPDIR: many CI images mount /tmp as tmpfs, where the file's pages
// are shmem (counted in process_own_kb) and the mmap test could not run.
struct StoreFile {
  std::filesystem::path path = [] {
    const std::filesystem::path dir = std::filesystem::path(HITCOST_BINARY_DIR) / "tests" / "tmp";
    std::filesystem::create_directories(dir);
    return dir / ("hitcost-memory-" + std::to_string(::getpid()) + ".dat");
  }();
  ~StoreFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST(MemoryStats, MmapStoreFileCountsInRssButNotInProcessOwn) {
  StoreFile file;
  struct statfs fs {};
  ASSERT_EQ(::statfs(file.path.parent_path().c_str(), &fs), 0);
  if (fs.f_type == TMPFS_MAGIC)  // the file's pages would be shmem, part of process_own_kb
    GTEST_SKIP() << file.path.parent_path() << " is tmpfs; build on a disk directory";

  // 64 MiB ring + the 4 KiB file header, every page mapped and faulted in at start-up.
  ServerProcess server({"--store", "mmap:" + file.path.string() + "?size=64M&populate=1&create=1"});
  const double file_kb = (64.0 * 1024 * 1024 + 4096) / 1024;
  ASSERT_EQ(std::filesystem::file_size(file.path), static_cast<uintmax_t>(file_kb * 1024));
  HttpConnection conn(server.port());
  const json s = json::parse(conn.get("/stats").body);
  ASSERT_TRUE(s.contains("memory")) << s.dump();
  const json& m = s.at("memory");
  for (const char* k :
       {"rss_kb", "pss_kb", "pss_anon_kb", "pss_file_kb", "pss_shmem_kb", "process_own_kb", "store_file_resident_kb"})
    ASSERT_TRUE(m.contains(k) && m.at(k).is_number_unsigned()) << k << " in " << m.dump();
  const auto kb = [&](const char* k) { return m.at(k).get<double>(); };

  // The whole file sits in the page cache (5 % slack for pages reclaimed meanwhile) ...
  EXPECT_GE(kb("store_file_resident_kb"), 0.95 * file_kb);
  EXPECT_LE(kb("store_file_resident_kb"), file_kb);
  // ... and is mapped by the server alone, so RSS and the file share of PSS count it.
  EXPECT_GE(kb("rss_kb"), 0.95 * file_kb);
  EXPECT_EQ(m.at("rss_kb"), s.at("rss_kb"));
  EXPECT_GE(kb("pss_file_kb"), 0.95 * file_kb);
  // The process's own memory leaves it out: what RSS holds apart from the file is an upper
  // bound, and an idle server's heap and stacks are far below the file's size.
  EXPECT_EQ(kb("process_own_kb"), kb("pss_anon_kb") + kb("pss_shmem_kb"));
  EXPECT_LE(kb("process_own_kb"), kb("rss_kb") - 0.95 * file_kb);
  EXPECT_LT(kb("process_own_kb"), file_kb / 4);
  // Pss is the sum of its three parts (each rounded down to KiB by the kernel on its own).
  EXPECT_NEAR(kb("pss_kb"), kb("pss_anon_kb") + kb("pss_file_kb") + kb("pss_shmem_kb"), 3);

  // /metrics says the same in bytes (read a moment later: RSS may move by a few pages).
  const std::string metrics = conn.get("/metrics").body;
  const auto samples = memory_samples(metrics);
  ASSERT_EQ(samples.size(), 7u) << metrics;
  EXPECT_GE(samples.at("store_file_resident"), 0.95 * file_kb * 1024);
  EXPECT_GE(samples.at("rss"), 0.95 * file_kb * 1024);
  EXPECT_LT(samples.at("process_own"), file_kb / 4 * 1024);
  std::printf("file %.0f KiB: rss %.0f, pss_file %.0f, process_own %.0f, resident %.0f KiB\n", file_kb, kb("rss_kb"),
              kb("pss_file_kb"), kb("process_own_kb"), kb("store_file_resident_kb"));
}

TEST(MemoryStats, MemoryStoreHasNoStoreFileFigure) {
  ServerProcess server({"--store", "memory"});
  HttpConnection conn(server.port());
  const json s = json::parse(conn.get("/stats").body);
  ASSERT_TRUE(s.contains("memory")) << s.dump();
  const json& m = s.at("memory");
  ASSERT_TRUE(m.contains("store_file_resident_kb")) << m.dump();
  EXPECT_TRUE(m.at("store_file_resident_kb").is_null()) << m.dump();
  EXPECT_EQ(m.at("rss_kb"), s.at("rss_kb"));
  EXPECT_GT(m.at("rss_kb").get<uint64_t>(), 0u);
  // The server runs on this kernel: what this process's smaps_rollup has, its has too.
  const server::ProcessMemory mine = server::process_memory();
  ASSERT_TRUE(mine.pss_kb.has_value()) << "no /proc/self/smaps_rollup here";
  ASSERT_TRUE(m.at("pss_kb").is_number_unsigned()) << m.dump();
  EXPECT_GT(m.at("pss_kb").get<uint64_t>(), 0u);
  if (mine.pss_anon_kb && mine.pss_shmem_kb) {
    ASSERT_TRUE(m.at("process_own_kb").is_number_unsigned()) << m.dump();
    EXPECT_EQ(m.at("process_own_kb").get<uint64_t>(),
              m.at("pss_anon_kb").get<uint64_t>() + m.at("pss_shmem_kb").get<uint64_t>());
    EXPECT_GT(m.at("process_own_kb").get<uint64_t>(), 0u);  // a heap and stacks at least
  } else {
    EXPECT_TRUE(m.at("process_own_kb").is_null()) << m.dump();
    hitcost::testing::unchecked("no Pss_Anon/Pss_Shmem in this kernel's smaps_rollup: process_own_kb's sum");
  }
  const auto samples = memory_samples(conn.get("/metrics").body);
  EXPECT_EQ(samples.count("store_file_resident"), 0u) << "null figures have no sample";
  EXPECT_EQ(samples.count("rss"), 1u);
}

TEST(MemoryStats, PreadStoreFileIsResidentWithoutBeingInRss) {
  StoreFile file;
  ServerProcess server({"--store", "pread:" + file.path.string() + "?size=64M", "--store-create"});
  const double file_kb = (64.0 * 1024 * 1024 + 4096) / 1024;
  {  // read the whole file here: its pages enter the page cache, not the server's RSS
    std::FILE* f = std::fopen(file.path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::vector<char> buf(1 << 20);
    size_t total = 0, n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) total += n;
    std::fclose(f);
    ASSERT_EQ(total, static_cast<size_t>(file_kb * 1024));
  }
  const json s = json::parse(http_get(server.port(), "/stats").body);
  ASSERT_TRUE(s.contains("memory")) << s.dump();
  const json& m = s.at("memory");
  ASSERT_TRUE(m.at("store_file_resident_kb").is_number_unsigned()) << m.dump();
  EXPECT_GE(m.at("store_file_resident_kb").get<double>(), 0.95 * file_kb);
  EXPECT_LE(m.at("store_file_resident_kb").get<double>(), file_kb);
  EXPECT_LT(m.at("rss_kb").get<double>(), file_kb / 4) << "the server maps none of it";
}
