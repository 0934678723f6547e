#pragma once
// An empty directory of this test process's own under the system's temporary directory:
// <tmp>/hitcost-<suite>-<pid>/<name>, emptied first. The pid keeps two suites running at once
// (ctest -j2) out of each other's files; the suite name says which test left it behind.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace hitcost::testing {

inline std::filesystem::path fresh_dir(const std::string& suite, const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hitcost-" + suite + "-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace hitcost::testing
