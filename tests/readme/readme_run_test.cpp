// The README's blocks marked <!-- readme-test: run --> (the quick start by hand) run as a
// user would paste them: bash -euo pipefail in the source folder, with build/release/
// pointed at this build and port 8080 at a free port. Each must exit 0 within 60 s and
// leave nothing running (what it leaves is killed and named).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/readme/readme_check.h"
#include "tests/support/command.h"
#include "tests/support/memcached_process.h"

namespace hitcost::readme {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const std::string& s, size_t n = 3000) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

TEST(ReadmeRun, MarkedBlocksRunAndExitZero) {
  const std::string readme = slurp(std::string(HITCOST_SOURCE_DIR) + "/README.md");
  const size_t count = runnable_blocks(readme, HITCOST_BINARY_DIR, 8080).size();
  ASSERT_GE(count, 1u) << "README.md: no code block is preceded by the line `<!-- readme-test: run -->`: "
                          "the quick start by hand must be marked so that it is run here";
  for (size_t i = 0; i < count; ++i) {
    // A fresh port per block: a previous block's server may still hold its own.
    const auto block = runnable_blocks(readme, HITCOST_BINARY_DIR, hitcost::testing::free_loopback_port())[i];
    const auto r = hitcost::testing::run_command(
        {"bash", "-euo", "pipefail", "-c", block.script},
        {.timeout_ms = 60'000, .cwd = HITCOST_SOURCE_DIR, .own_session = true, .grace_ms = 10'000});
    const std::string what = "README.md:" + std::to_string(block.fence_line) + ": the block run as\n" + block.script +
                             "--- stdout:\n" + tail(r.out) + "\n--- stderr:\n" + tail(r.err);
    EXPECT_FALSE(r.timed_out) << "still running after 60 s (killed): " << what;
    EXPECT_EQ(r.exit_code, 0) << "exit status " << r.exit_code << " (signal " << r.term_signal << "): " << what;
    EXPECT_TRUE(r.left_running.empty()) << "left running 10 s after it ended (now killed):\n"
                                        << hitcost::testing::describe(r.left_running) << what;
  }
}

}  // namespace
}  // namespace hitcost::readme
