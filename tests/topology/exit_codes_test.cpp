// Every row of README.md's "Exit codes" table, walked for hitcost-load, hitcost-corpus and the
// scripts (hitcost-server's column is tests/server's): each cell the table fills is produced
// here by at least one real command — the programs and scripts as a user runs them, against a
// real hitcost-server and memcached — and the code it ends with is checked, with a phrase of
// what it says. The table is read from README.md, so a row added there without a command here
// fails, and so does a command here whose row is gone.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus_file.h"
#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

namespace {
namespace fs = std::filesystem;
using hitcost::testing::CommandOptions;
using hitcost::testing::CommandResult;
using hitcost::testing::run_command;

const std::string kSource = HITCOST_SOURCE_DIR;
const std::string kBinary = HITCOST_BINARY_DIR;

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("exit-codes", name); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The shell's view of how a command ended: a signal counts as 128 + its number.
int shell_status(const CommandResult& r) { return r.term_signal != 0 ? 128 + r.term_signal : r.exit_code; }

// The cells of README.md's exit-code table: (column, code) for every cell that is not "—",
// in the columns named by `columns` (a header cell starting with one of them).
std::set<std::pair<std::string, int>> table_cells(const std::vector<std::string>& columns) {
  std::istringstream in(read_file(kSource + "/README.md"));
  std::string line;
  bool in_section = false;
  std::vector<std::string> header;
  std::set<std::pair<std::string, int>> cells;
  auto split = [](const std::string& row) {
    std::vector<std::string> out;
    std::string cell;
    for (size_t i = 1; i < row.size(); ++i) {
      if (row[i] == '|') {
        const size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        cell.clear();
      } else {
        cell += row[i];
      }
    }
    return out;
  };
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line.find("Exit codes") != std::string::npos;
      continue;
    }
    if (!in_section || line.rfind("|", 0) != 0) continue;
    const std::vector<std::string> row = split(line);
    if (row.empty()) continue;
    if (row[0] == "code") {
      header = row;
      continue;
    }
    if (row[0].empty() || row[0].find_first_not_of("0123456789") != std::string::npos) continue;  // |---|
    for (size_t i = 1; i < row.size() && i < header.size(); ++i)
      for (const std::string& column : columns)
        if (header[i].rfind(column, 0) == 0 && row[i] != "—") cells.insert({column, std::stoi(row[0])});
  }
  return cells;
}

struct Case {
  std::string column;  // "hitcost-load", "hitcost-corpus", "scripts"
  int code;
  std::string what;
  std::vector<std::string> argv;
  std::string says;  // a phrase of stdout + stderr
  CommandOptions options{};
};

std::vector<std::string> bash(std::vector<std::string> argv) {
  argv.insert(argv.begin(), "/bin/bash");
  return argv;
}

// A corpus of one string value, written as hitcost-corpus sample would.
void write_corpus(const std::string& path) {
  auto w = hitcost::corpus::CorpusWriter::create(path);
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE(w->add(hitcost::corpus::CorpusRecord{"k", 0, 0, 0, "<p>a value of a few words</p>"}).ok());
  hitcost::corpus::Manifest m;
  m.source = "memcached:127.0.0.1:1";
  m.nodes = {"127.0.0.1:1"};
  ASSERT_TRUE(w->finish(m).ok());
}

TEST(ExitCodes, EveryCellOfTheReadmeTableIsWalkedForTheLoadTheCorpusAndTheScripts) {
  for (const char* tool : {"memcached", "curl", "jq"})
    ASSERT_EQ(std::system((std::string("command -v ") + tool + " >/dev/null").c_str()), 0) << tool << " missing";
  const std::vector<std::string> columns = {"hitcost-load", "hitcost-corpus", "scripts"};
  const auto cells = table_cells(columns);
  ASSERT_GE(cells.size(), 17u) << "the README's table lost rows or columns";

  const fs::path dir = fresh_dir("walk");
  hitcost::testing::ServerProcess server({"--store", "memory", "--threads", "1"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const int closed = hitcost::testing::free_loopback_port();  // nothing listens there
  const std::string load = hitcost::testing::load_binary(), corpus = hitcost::testing::corpus_binary();
  const std::vector<std::string> quick = {"--warmup", "100ms", "--idle", "0", "-c", "2", "--keys", "50", "-q"};
  auto load_run = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {load, "--url", url, "-d", "300ms"};
    argv.insert(argv.end(), quick.begin(), quick.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  };
  const std::string good = (dir / "good.hcorpus").string(), cut = (dir / "cut.hcorpus").string();
  write_corpus(good);
  {
    const std::string bytes = read_file(good);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  }
  fs::create_directories(dir / "r.json.tmp");
  fs::create_directories(dir / "c.json.tmp");
  CommandOptions interrupt;
  interrupt.signal = SIGINT;
  // Scripts: prebuilt binaries, each in a session of its own; Ctrl-C as a terminal sends it, to
  // the whole foreground group.
  const std::vector<std::string> prebuilt = {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary,
                                             "HITCOST_OUT=" + (dir / "out").string()};
  auto script = [&](std::vector<std::string> env, int max_s) {
    CommandOptions o;
    o.env = env;
    o.timeout_ms = max_s * 1000;
    o.own_session = true;
    return o;
  };
  CommandOptions ctrl_c = script(prebuilt, 60);
  ctrl_c.signal = SIGINT;
  ctrl_c.signal_group = true;
  // The sweep has warmed and is in its first 5 s run.
  ctrl_c.signal_after_output = "html: warmed";
  ctrl_c.signal_after_ms = 2000;
  const std::string run_sh = kSource + "/run.sh", topology = kSource + "/scripts/topology.sh";
  // run.sh passes its arguments to hitcost-load sweep: one short run of each strategy.
  auto run_sh_with = [&](const std::string& strategies, std::vector<std::string> extra) {
    std::vector<std::string> argv = {
        run_sh,  "--strategies", strategies, "--repeat", "1",     "--latency-rate",       "0", "-d",
        "300ms", "--idle",       "0",        "--warmup", "100ms", "--retry-contaminated", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return bash(argv);
  };

  std::vector<Case> cases = {
      // hitcost-load
      {"hitcost-load", 0, "a clean run", load_run({}), "closed-loop"},
      {"hitcost-load",
       1,
       "nothing listens",
       {load, "--url", "http://127.0.0.1:" + std::to_string(closed)},
       "Connection refused: nothing measured"},
      {"hitcost-load", 2, "an unknown option", {load, "--url", url, "--nope"}, "--nope"},
      {"hitcost-load", 2, "a path in --url", {load, "--url", url + "/page/{id}"}, "--path-template"},
      {"hitcost-load", 2, "a port out of range", {load, "--url", "http://127.0.0.1:70000"}, "'70000' (want 1..65535)"},
      {"hitcost-load", 2, "a strategy the server refuses", load_run({"--strategy", "struct:jsn"}),
       "unknown serializer 'jsn'"},
      {"hitcost-load", 2, "an output that cannot be written", load_run({"--json", (dir / "none/r.json").string()}),
       "--json " + (dir / "none/r.json").string() + ": directory"},
      {"hitcost-load", 3, "every answer a 404", load_run({"--path-template", "/pages/{id}"}), "status 404"},
      // The directory is there (the check before the run passes); a directory in the way of the
      // temporary file makes the write at the end fail.
      {"hitcost-load", 4, "the output cannot be written at the end", load_run({"--json", (dir / "r.json").string()}),
       "cannot write " + (dir / "r.json").string() + ": Is a directory"},
      {"hitcost-load",
       130,
       "Ctrl-C during the run",
       {load, "--url", url, "-d", "5s", "--warmup", "100ms", "--idle", "0", "-c", "2"},
       "INTERRUPTED",
       [&] {
         CommandOptions o = interrupt;
         o.signal_after_ms = 1000;
         return o;
       }()},
      // hitcost-corpus
      {"hitcost-corpus", 0, "show", {corpus, "show", good}, "stored as (flags)"},
      {"hitcost-corpus", 1, "a truncated corpus", {corpus, "show", cut}, "truncated"},
      {"hitcost-corpus",
       1,
       "memcached unreachable",
       {corpus, "sample", "--from", "memcached:127.0.0.1:" + std::to_string(closed), "-o", (dir / "s.hcorpus").string(),
        "-q"},
       "127.0.0.1:" + std::to_string(closed)},
      {"hitcost-corpus", 2, "an unknown subcommand", {corpus, "frobnicate"}, "A subcommand is required"},
      {"hitcost-corpus",
       2,
       "--from without memcached:",
       {corpus, "sample", "--from", "127.0.0.1:11211", "-o", (dir / "s.hcorpus").string()},
       "want memcached:HOST:PORT"},
      {"hitcost-corpus",
       2,
       "a port out of range",
       {corpus, "sample", "--from", "memcached:127.0.0.1:70000", "-o", (dir / "s.hcorpus").string()},
       "1-65535"},
      {"hitcost-corpus",
       2,
       "an output that cannot be written",
       {corpus, "compare", good, "--json", (dir / "none/c.json").string()},
       "--json"},
      {"hitcost-corpus", 2, "redact over its input", {corpus, "redact", good, "-o", good}, "is the corpus to redact"},
      {"hitcost-corpus",
       4,
       "the output cannot be written at the end",
       {corpus, "compare", good, "--rounds", "2", "--min-time-us", "1", "--json", (dir / "c.json").string()},
       "cannot write " + (dir / "c.json").string() + ": Is a directory"},
      {"hitcost-corpus",
       130,
       "Ctrl-C during compare",
       {corpus, "compare", good, "--rounds", "5", "--min-time-us", "50000"},
       "",
       [&] {
         CommandOptions o = interrupt;
         o.signal_after_ms = 700;
         return o;
       }()},
      // scripts
      {"scripts", 0, "topology.sh, one short step",
       bash({topology, "--out", (dir / "topo").string(), "--nodes", "1", "--clients", "1", "--strategies", "html",
             "--duration", "300ms", "--warmup", "100ms", "--keys", "50", "--connections", "2", "--time-limit", "60"}),
       "summary (median", script(prebuilt, 90)},
      {"scripts", 1, "topology.sh --server where nothing listens",
       bash({topology, "--server", "http://127.0.0.1:" + std::to_string(closed), "--memcached",
             "127.0.0.1:" + std::to_string(closed), "--out", (dir / "topo-1").string()}),
       "no answer from",
       script({"HITCOST_LOAD_BIN=" + load, "HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary}, 30)},
      {"scripts", 2, "php-compare.sh, an unknown option", bash({kSource + "/scripts/php-compare.sh", "--nope"}),
       "unknown option --nope", script(prebuilt, 30)},
      {"scripts", 2, "php-stack.sh, a port out of range",
       bash({kSource + "/scripts/php-stack.sh", "--memcached", "127.0.0.1:11211", "--origin", "http://127.0.0.1:8080",
             "--port", "70000"}),
       "'70000' is not a port", script({}, 30)},
      {"scripts", 2, "run.sh, hitcost-load's 2 (a strategy the server refuses)", run_sh_with("html,struct:jsn", {}),
       "unknown serializer 'jsn'", script(prebuilt, 60)},
      {"scripts", 3, "run.sh, hitcost-load's 3 (every answer a 404)",
       run_sh_with("html", {"--path-template", "/pages/{id}"}), "errors above", script(prebuilt, 60)},
      {"scripts", 4, "topology.sh, an --out it cannot create",
       bash({topology, "--out", "/proc/hitcost-cannot-be-here"}), "cannot create --out", script(prebuilt, 30)},
      {"scripts", 130, "run.sh, Ctrl-C during the sweep",
       bash({run_sh, "--strategies", "html", "--repeat", "3", "-d", "5s", "--latency-rate", "0", "--idle", "0"}),
       "server configuration restored", ctrl_c},
  };

  std::set<std::pair<std::string, int>> walked;
  size_t ran = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.column + " " + std::to_string(c.code) + ": " + c.what);
    const CommandResult r = run_command(c.argv, c.options);
    ++ran;
    ASSERT_FALSE(r.timed_out) << r.out << r.err;
    EXPECT_EQ(shell_status(r), c.code) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_NE((r.out + r.err).find(c.says), std::string::npos) << "wanted: " << c.says << "\nstdout:\n"
                                                               << r.out << "\nstderr:\n"
                                                               << r.err;
    EXPECT_TRUE(r.left_running.empty()) << "left running:\n" << hitcost::testing::describe(r.left_running);
    EXPECT_EQ(cells.count({c.column, c.code}), 1u) << "README's table has no such cell";
    walked.insert({c.column, c.code});
  }
  EXPECT_EQ(ran, cases.size());
  // hitcost-corpus's 3 is a codec bug (a value that does not read back as written): no input
  // makes it on purpose; advise/compare.cpp's round_trip_problem is the check, and
  // PhpFilled.CompareRoundTripsEveryValueUnderEveryStrategyAndListsTheRefusedOne holds every
  // value PHP writes to it.
  const std::set<std::pair<std::string, int>> not_walkable = {{"hitcost-corpus", 3}};
  for (const auto& cell : cells) {
    if (not_walkable.count(cell)) continue;
    EXPECT_EQ(walked.count(cell), 1u) << cell.first << " " << cell.second << ": no command here makes it";
  }
  EXPECT_EQ(walked.size() + not_walkable.size(), cells.size());
  EXPECT_EQ(walked.size(), 17u);
  if (!HasFailure()) fs::remove_all(dir.parent_path());
}

}  // namespace
