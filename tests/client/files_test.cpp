// Outputs are whole or absent, and every failure names the path and the OS's reason.
#include "report/files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace hitcost::client;
using hitcost::Errc;
using hitcost::Status;

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
  Status written = write_output((d / "a.json").string(), "first");
  ASSERT_TRUE(written) << written.error().message;
  written = write_output((d / "a.json").string(), "second");
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(slurp(d / "a.json"), "second");
  EXPECT_FALSE(fs::exists(d / "a.json.tmp"));
}

TEST(Files, MissingDirectoryNamesPathAndReason) {
  const Status written = write_output("/nonexistent-hitcost-dir/a.json", "x");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, Errc::io_error);
  EXPECT_EQ(written.error().message, "cannot write /nonexistent-hitcost-dir/a.json: No such file or directory");
}

// A file size limit stands in for a full disk: the write fails part-way (EFBIG), the old file
// stays as it was and no temporary file is left.
TEST(Files, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path d = fresh_dir();
  const Status first = write_output((d / "a.json").string(), "old");
  ASSERT_TRUE(first) << first.error().message;
  std::signal(SIGXFSZ, SIG_IGN);  // write returns EFBIG instead of killing the process
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status written = write_output((d / "a.json").string(), std::string(100'000, 'x'));
  setrlimit(RLIMIT_FSIZE, &old);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, Errc::io_error);
  EXPECT_EQ(written.error().message, "cannot write " + (d / "a.json").string() + ": File too large");
  EXPECT_EQ(slurp(d / "a.json"), "old");
  EXPECT_FALSE(fs::exists(d / "a.json.tmp"));
}

TEST(Files, LoadNamesPathAndReason) {
  const fs::path d = fresh_dir();
  const auto none = load_json_file((d / "none.json").string());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, (d / "none.json").string() + ": No such file or directory");
  std::ofstream((d / "list.json")) << "[1,2]";
  const auto list = load_json_file((d / "list.json").string());
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().message, (d / "list.json").string() + ": not a JSON object");
  std::ofstream((d / "ok.json")) << R"({"requests": 3})";
  const auto j = load_json_file((d / "ok.json").string());
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ((*j)["requests"], 3);
}

// A file that cannot be read is an OS failure; one that holds no JSON object is the file's
// fault: callers can tell the two apart by the kind, not by parsing the message.
TEST(Files, LoadTellsAMissingFileFromAnUnparsableOne) {
  const fs::path d = fresh_dir();
  const auto missing = load_json_file((d / "none.json").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Errc::io_error);
  EXPECT_NE(missing.error().message.find((d / "none.json").string()), std::string::npos);

  const auto unreadable = load_json_file(d.string() + "/none/run.json");  // no such directory
  ASSERT_FALSE(unreadable);
  EXPECT_EQ(unreadable.error().code, Errc::io_error);

  // A run JSON cut off part-way (a copy interrupted, a full disk before write_output existed).
  std::ofstream((d / "truncated.json")) << R"({"requests": 3, "latency": {"p50_us": 1)";
  const auto truncated = load_json_file((d / "truncated.json").string());
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, Errc::parse_error);
  EXPECT_EQ(truncated.error().message, (d / "truncated.json").string() + ": not a JSON object");

  std::ofstream((d / "empty.json")) << "";
  const auto empty = load_json_file((d / "empty.json").string());
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, Errc::parse_error);

  std::ofstream((d / "list.json")) << "[1,2]";
  const auto list = load_json_file((d / "list.json").string());
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().code, Errc::parse_error);
}

// Checked before a command measures: a path whose directory is missing, a directory, or a path
// through a file is refused naming the option, the path and the reason; what can be written
// passes; nothing is created, truncated or removed either way.
TEST(Files, OutputPathsAreCheckedBeforeAnythingIsWrittenAndNothingIsCreated) {
  const fs::path d = fresh_dir();
  std::ofstream(d / "kept.json") << "keep me";
  std::ofstream(d / "plain") << "a file, not a directory";
  struct Case {
    OutputPath out;
    std::string says;  // "" = passes
  };
  const std::vector<Case> cases = {
      {{"--json", (d / "none/r.json").string()},
       "--json " + (d / "none/r.json").string() + ": directory " + (d / "none").string() +
           ": No such file or directory"},
      {{"--html", d.string()}, "--html " + d.string() + ": is a directory (name a file in it)"},
      {{"--csv", (d / "plain/r.csv").string()}, "--csv " + (d / "plain/r.csv").string() + ": Not a directory"},
      {{"--json", (d / "kept.json").string()}, ""},  // replaced only at the end, by write_output
      {{"--hdr-out", (d / "new.txt").string()}, ""},
      {{"-o", "bare-name-in-the-working-directory.hcorpus"}, ""},
      {{"--json", ""}, ""},  // not asked for
  };
  size_t checked = 0;
  for (const Case& c : cases) {
    const Status st = check_output_paths({c.out});
    if (c.says.empty()) {
      EXPECT_TRUE(st) << c.out.path << ": " << st.error().message;
    } else {
      ASSERT_FALSE(st) << c.out.path;
      EXPECT_EQ(st.error().code, Errc::invalid_argument);
      EXPECT_EQ(st.error().message, c.says);
    }
    ++checked;
  }
  EXPECT_EQ(checked, cases.size());
  EXPECT_EQ(slurp(d / "kept.json"), "keep me");
  EXPECT_FALSE(fs::exists(d / "new.txt"));
  EXPECT_FALSE(fs::exists(d / "none"));
  EXPECT_FALSE(fs::exists("bare-name-in-the-working-directory.hcorpus"));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++entries;
  EXPECT_EQ(entries, 2u) << "only kept.json and plain";
}

// --json r.json --csv ./r.json would write one file twice, the second over the first.
TEST(Files, TwoOptionsNamingOneFileAreRefused) {
  const fs::path d = fresh_dir();
  const std::string a = (d / "r.out").string(), same = (d / "." / "r.out").string();
  const Status st = check_output_paths({{"--json", a}, {"--csv", same}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, Errc::invalid_argument);
  EXPECT_EQ(st.error().message, "--json and --csv both name " + same + ": one would overwrite the other");
  std::ofstream(a) << "x";  // there now: the same by inode
  EXPECT_FALSE(check_output_paths({{"--json", a}, {"--html", same}}));
  EXPECT_TRUE(check_output_paths({{"--json", a}, {"--csv", (d / "r.csv").string()}}));
  EXPECT_TRUE(same_file(a, same));
  EXPECT_FALSE(same_file(a, (d / "r.csv").string()));
}
