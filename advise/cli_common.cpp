#include "advise/cli_common.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <random>

#include "report/exit_code.h"

namespace hitcost::corpus_cli {
namespace {
char g_partial_output[4096] = "";
}  // namespace

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kWho, message.c_str());
  return code;
}

std::string bytes_text(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
    return buf;
  }
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes) / 1024.0;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(units)) v /= 1024.0, ++u;
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

extern "C" void on_stop_signal(int) {
  if (g_partial_output[0] != '\0') ::unlink(g_partial_output);
  ::_exit(client::kExitInterrupted);
}

void remove_on_signal(const std::string& tmp_path) {
  if (tmp_path.size() < sizeof g_partial_output) std::memcpy(g_partial_output, tmp_path.c_str(), tmp_path.size() + 1);
}

uint64_t random_secret() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

}  // namespace hitcost::corpus_cli
