// The in-process probe of tests/support/sync_probe.h: linked with -Wl,--wrap=fdatasync
// -Wl,--wrap=fsync, so the libraries' calls land here first. Any thread may sync.
#include <sys/stat.h>

#include <map>
#include <mutex>
#include <utility>

#include "tests/support/sync_probe.h"

extern "C" int __real_fdatasync(int fd);
extern "C" int __real_fsync(int fd);

namespace {

std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::map<std::pair<dev_t, ino_t>, uint64_t>& calls() {
  static std::map<std::pair<dev_t, ino_t>, uint64_t> c;
  return c;
}

void record(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return;  // a bad descriptor: the call fails, nothing is synced
  std::lock_guard lk(mu());
  ++calls()[{st.st_dev, st.st_ino}];
}

}  // namespace

extern "C" int __wrap_fdatasync(int fd) {
  record(fd);
  return __real_fdatasync(fd);
}

extern "C" int __wrap_fsync(int fd) {
  record(fd);
  return __real_fsync(fd);
}

namespace hitcost::testing {

uint64_t syncs_on(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  std::lock_guard lk(mu());
  const auto it = calls().find({st.st_dev, st.st_ino});
  return it == calls().end() ? 0 : it->second;
}

void forget_syncs() {
  std::lock_guard lk(mu());
  calls().clear();
}

}  // namespace hitcost::testing
