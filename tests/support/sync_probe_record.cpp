// The reading side of the preloaded probe (tests/support/sync_probe.h).
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/sync_probe.h"

namespace hitcost::testing {

std::vector<std::string> sync_probe_wrapper(const std::string& record) {
  std::string preload = HITCOST_SYNC_PROBE_PRELOAD;
  if (const char* p = std::getenv("LD_PRELOAD"); p != nullptr && *p != '\0') preload += std::string(":") + p;
  // A server built with ASan under GCC has the runtime as a shared library, which then no longer
  // comes first: tell it that is meant.
  std::string asan = "verify_asan_link_order=0";
  if (const char* a = std::getenv("ASAN_OPTIONS"); a != nullptr && *a != '\0') asan = std::string(a) + ":" + asan;
  return {"env", "LD_PRELOAD=" + preload, "HITCOST_SYNC_PROBE=" + record, "ASAN_OPTIONS=" + asan};
}

uint64_t recorded_syncs_on(const std::string& record, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  const std::string want = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::ifstream in(record);
  uint64_t n = 0;
  for (std::string l; std::getline(in, l);) n += l == want ? 1 : 0;
  return n;
}

}  // namespace hitcost::testing
