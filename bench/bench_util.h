#pragma once
// Helpers shared by the bench_*.cpp files of hitcost-bench (header-only, no state beyond
// the one scratch directory).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hitcost::bench {

// One scratch directory per process under TMPDIR (std::filesystem::temp_directory_path),
// created on first use and removed at exit. Where it lives matters for file benchmarks: on
// tmpfs a file's pages cannot leave the page cache, so "cold" reads are impossible there.
inline std::string bench_dir() {
  static std::string dir = [] {
    std::string t = (std::filesystem::temp_directory_path() / "hitcost-bench-XXXXXX").string();
    if (!::mkdtemp(t.data())) std::abort();
    std::atexit([] { std::filesystem::remove_all(bench_dir()); });
    return t;
  }();
  return dir;
}

}  // namespace hitcost::bench
