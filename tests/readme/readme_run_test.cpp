// The blocks marked <!-- readme-test: run --> in README.md (the quick start by hand) and in
// docs/*.md (journey 5's, chained) run as a user would paste them: bash -euo pipefail in the source folder, with
// build/release/ pointed at this build and port 8080 at a free port. Each must exit 0 within 60 s and leave nothing
// running (what it leaves is killed and named).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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

// README.md, then docs/*.md by name.
std::vector<Doc> docs() {
  const std::string source = HITCOST_SOURCE_DIR;
  std::vector<Doc> out{{"README.md", slurp(source + "/README.md")}};
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(source + "/docs"))
    if (e.path().extension() == ".md") names.push_back("docs/" + e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& n : names) out.push_back({n, slurp(source + "/" + n)});
  return out;
}

// Each of the doc's `count` scripts, as a user would paste them.
void run_blocks(const Doc& doc, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    // Fresh ports per block (the server's 8080, memcached's 11211): a previous block's
    // processes may still hold their own, and another test's memcached may hold 11211.
    const int port = hitcost::testing::free_loopback_port();
    int memcached_port = hitcost::testing::free_loopback_port();
    while (memcached_port == port) memcached_port = hitcost::testing::free_loopback_port();
    const auto block = runnable_blocks(doc.text, HITCOST_BINARY_DIR, port, memcached_port)[i];
    // 60 s for each block of the script (a journey's blocks run as one).
    const int timeout_ms = 60'000 * static_cast<int>(block.fence_lines.size());
    const auto r = hitcost::testing::run_command(
        {"bash", "-euo", "pipefail", "-c", block.script},
        {.timeout_ms = timeout_ms, .cwd = HITCOST_SOURCE_DIR, .own_session = true, .grace_ms = 10'000});
    std::string lines;
    for (int l : block.fence_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(l);
    const std::string what = doc.path + ":" + lines + ": the block" + (block.fence_lines.size() > 1 ? "s" : "") +
                             " run as\n" + block.script + "--- stdout:\n" + tail(r.out) + "\n--- stderr:\n" +
                             tail(r.err);
    EXPECT_FALSE(r.timed_out) << "still running after " << timeout_ms / 1000 << " s (killed): " << what;
    EXPECT_EQ(r.exit_code, 0) << "exit status " << r.exit_code << " (signal " << r.term_signal << "): " << what;
    EXPECT_TRUE(r.left_running.empty()) << "left running 10 s after it ended (now killed):\n"
                                        << hitcost::testing::describe(r.left_running) << what;
  }
}

TEST(ReadmeRun, MarkedBlocksRunAndExitZero) {
  size_t total = 0;
  for (const Doc& doc : docs()) {
    const size_t count = runnable_blocks(doc.text, HITCOST_BINARY_DIR, 8080, 11211).size();
    if (doc.path == "README.md") {
      EXPECT_GE(count, 1u) << "README.md: no code block is preceded by the line `<!-- readme-test: run -->`: "
                              "the quick start by hand must be marked so that it is run here";
    }
    total += count;
    run_blocks(doc, count);
  }
  EXPECT_GE(total, 2u) << "README.md's quick start and journey 5's chained blocks (docs/journeys.md): "
                          "fewer scripts were marked to run";
}

}  // namespace
}  // namespace hitcost::readme
