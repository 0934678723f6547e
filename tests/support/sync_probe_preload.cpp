// The preloaded probe of tests/support/sync_probe.h (LD_PRELOAD into hitcost-server): every
// fdatasync and fsync appends "DEV:INO\n" to the file named by HITCOST_SYNC_PROBE, then is made.
// One write(2) per line on an O_APPEND descriptor, so threads' lines never mix. Built without the
// sanitizers (tests/CMakeLists.txt): it only forwards to the next definition (libc or the
// sanitizer's interceptor).
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

using SyncFn = int (*)(int);

void record(int fd) {
  const char* path = std::getenv("HITCOST_SYNC_PROBE");
  struct stat st {};
  if (path == nullptr || ::fstat(fd, &st) != 0) return;
  char line[64];
  const int n = std::snprintf(line, sizeof line, "%llu:%llu\n", static_cast<unsigned long long>(st.st_dev),
                              static_cast<unsigned long long>(st.st_ino));
  const int out = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (out < 0) return;
  if (::write(out, line, static_cast<size_t>(n)) != n) std::abort();  // a lost line would undercount
  ::close(out);
}

int forward(const char* name, int fd) {
  record(fd);
  const auto next = reinterpret_cast<SyncFn>(::dlsym(RTLD_NEXT, name));
  if (next == nullptr) std::abort();
  return next(fd);
}

}  // namespace

extern "C" int fdatasync(int fd) { return forward("fdatasync", fd); }
extern "C" int fsync(int fd) { return forward("fsync", fd); }
