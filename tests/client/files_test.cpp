// Outputs are whole or absent, and every failure names the path and the OS's reason.
#include "client/files.h"

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace hitcost::client;

namespace {
fs::path fresh_dir() {
  const fs::path d = fs::temp_directory_path() / ("hitcost-files-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

TEST(Files, WriteReplacesTheFileWhole) {
  const fs::path d = fresh_dir();
  std::string err;
  ASSERT_TRUE(write_output((d / "a.json").string(), "first", &err)) << err;
  ASSERT_TRUE(write_output((d / "a.json").string(), "second", &err)) << err;
  EXPECT_EQ(slurp(d / "a.json"), "second");
  EXPECT_FALSE(fs::exists(d / "a.json.tmp"));
}

TEST(Files, MissingDirectoryNamesPathAndReason) {
  std::string err;
  EXPECT_FALSE(write_output("/nonexistent-hitcost-dir/a.json", "x", &err));
  EXPECT_EQ(err, "cannot write /nonexistent-hitcost-dir/a.json: No such file or directory");
}

// A file size limit stands in for a full disk: the write fails part-way (EFBIG), the old file
// stays as it was and no temporary file is left.
TEST(Files, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path d = fresh_dir();
  std::string err;
  ASSERT_TRUE(write_output((d / "a.json").string(), "old", &err)) << err;
  std::signal(SIGXFSZ, SIG_IGN);  // write returns EFBIG instead of killing the process
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const bool ok = write_output((d / "a.json").string(), std::string(100'000, 'x'), &err);
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_FALSE(ok);
  EXPECT_EQ(err, "cannot write " + (d / "a.json").string() + ": File too large");
  EXPECT_EQ(slurp(d / "a.json"), "old");
  EXPECT_FALSE(fs::exists(d / "a.json.tmp"));
}

TEST(Files, LoadNamesPathAndReason) {
  const fs::path d = fresh_dir();
  std::string err;
  EXPECT_FALSE(load_json_file((d / "none.json").string(), &err));
  EXPECT_EQ(err, (d / "none.json").string() + ": No such file or directory");
  std::ofstream((d / "list.json")) << "[1,2]";
  EXPECT_FALSE(load_json_file((d / "list.json").string(), &err));
  EXPECT_EQ(err, (d / "list.json").string() + ": not a JSON object");
  std::ofstream((d / "ok.json")) << R"({"requests": 3})";
  const auto j = load_json_file((d / "ok.json").string(), &err);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["requests"], 3);
}
