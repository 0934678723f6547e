// hitcost-load as a user runs it: the real binary against a real hitcost-server, judged by
// its exit status (client/exit_code.h), what it prints and what it writes. Interruptions are
// real signals sent while it runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/command.h"
#include "tests/support/cpu_flags_check.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"

namespace fs = std::filesystem;
using hitcost::testing::CommandOptions;
using hitcost::testing::CommandResult;
using hitcost::testing::ServerProcess;
using nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("hitcost-cli-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::string url(const ServerProcess& s) { return "http://127.0.0.1:" + std::to_string(s.port()); }

// hitcost-load [subcommand] with what every short run here shares: `duration` after 100 ms of
// warmup, no idle baseline, 4 connections over 100 keys; then `extra`.
std::vector<std::string> short_argv(const ServerProcess& s, const std::string& subcommand, const std::string& duration,
                                    const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {hitcost::testing::load_binary()};
  if (!subcommand.empty()) argv.push_back(subcommand);
  const std::vector<std::string> shared = {"--url",  url(s), "-d", duration, "--warmup", "100ms",
                                           "--idle", "0",    "-c", "4",      "--keys",   "100"};
  argv.insert(argv.end(), shared.begin(), shared.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// A short plain run: 300 ms, quiet.
std::vector<std::string> short_run(const ServerProcess& s, std::vector<std::string> extra) {
  extra.insert(extra.begin(), "-q");
  return short_argv(s, "", "300ms", extra);
}

// A sweep of short runs without a latency pass or contamination retries.
std::vector<std::string> short_sweep(const ServerProcess& s, const std::string& duration,
                                     std::vector<std::string> extra) {
  extra.insert(extra.begin(), {"--latency-rate", "0", "--retry-contaminated", "0"});
  return short_argv(s, "sweep", duration, extra);
}

std::string show(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.term_signal) + "\nstdout:\n" + r.out +
         "\nstderr:\n" + r.err;
}

json server_config(const ServerProcess& s) {
  return json::parse(hitcost::testing::http_post(s.port(), "/admin/config", "{}").body);
}

}  // namespace

TEST(LoadCli, CleanRunExitsZero) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const CommandResult r = hitcost::testing::run_command(short_run(server, {}));
  EXPECT_EQ(r.exit_code, 0) << show(r);
}

TEST(LoadCli, UnknownSubcommandIsAUsageError) {
  const CommandResult r =
      hitcost::testing::run_command({hitcost::testing::load_binary(), "run", "--url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("run"), std::string::npos) << show(r);
}

TEST(LoadCli, HelpIsASuccess) {
  const CommandResult r = hitcost::testing::run_command({hitcost::testing::load_binary(), "--help"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("--max-error-rate"), std::string::npos);
}

TEST(LoadCli, MisspeltStrategyExitsWithErrorsAndShowsTheServersReason) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("strategy");
  const CommandResult r = hitcost::testing::run_command(
      short_run(server, {"--strategy", "struct:jsn", "--json", (dir / "r.json").string()}));
  EXPECT_EQ(r.exit_code, 3) << show(r);
  EXPECT_NE(r.out.find("unknown serializer 'jsn'"), std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("unknown serializer 'jsn'"), r.out.rfind("unknown serializer 'jsn'")) << "printed once\n"
                                                                                             << r.out;
  const json j = read_json(dir / "r.json");
  ASSERT_EQ(j["error_samples"].size(), 1u) << j["error_samples"].dump();
  EXPECT_EQ(j["error_samples"][0]["kind"], "status 400");
  EXPECT_NE(j["error_samples"][0]["first"].get<std::string>().find("unknown serializer 'jsn'"), std::string::npos);
  EXPECT_TRUE(j["error_limit"]["exceeded"].is_string()) << j["error_limit"].dump();
  EXPECT_GT(j["errors"]["status"].get<uint64_t>(), 0u);
}

TEST(LoadCli, WrongPathTemplateExitsWithErrors) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const CommandResult r = hitcost::testing::run_command(short_run(server, {"--path-template", "/pages/{id}"}));
  EXPECT_EQ(r.exit_code, 3) << show(r);
  EXPECT_NE(r.out.find("status 404"), std::string::npos) << show(r);
}

TEST(LoadCli, ErrorsWithinMaxErrorRateAreAMeasurement) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const CommandResult r =
      hitcost::testing::run_command(short_run(server, {"--strategy", "struct:jsn", "--max-error-rate", "1"}));
  EXPECT_EQ(r.exit_code, 0) << show(r);
}

TEST(LoadCli, UnwritableOutputNamesPathAndReason) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const std::string bad = "/nonexistent-hitcost-dir/r.json";
  const CommandResult r = hitcost::testing::run_command(short_run(server, {"--json", bad}));
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("cannot write " + bad + ": No such file or directory"), std::string::npos) << show(r);
}

TEST(LoadCli, NothingListeningIsAFailureWithTheReason) {
  // Port 1: nothing listens there unless root put it there.
  const CommandResult r =
      hitcost::testing::run_command({hitcost::testing::load_binary(), "--url", "http://127.0.0.1:1", "-d", "300ms",
                                     "--warmup", "0", "--idle", "0", "--no-server-stats", "-q"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.out.find("Connection refused"), std::string::npos) << show(r);
}

TEST(LoadCli, CpuThatIsNotOnlineIsAUsageError) {
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "--url", "http://127.0.0.1:1", "--cpus", "4095", "-d", "300ms"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("4095"), std::string::npos) << show(r);
}

// Ctrl-C two seconds into a 10 s run: figures over the window that ran, marked, exit 130.
TEST(LoadCli, InterruptedRunReportsTheWindowThatRan) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("interrupted");
  CommandOptions o;
  o.signal = SIGINT;
  o.signal_after_ms = 2000;  // 100 ms warmup + ~1.9 s of the window
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "--url", url(server), "-d", "10s", "--warmup", "100ms", "--idle", "0", "-c",
       "4", "--keys", "100", "--json", (dir / "r.json").string(), "--csv", (dir / "r.csv").string(), "--html",
       (dir / "r.html").string()},
      o);
  EXPECT_EQ(r.exit_code, 130) << show(r);
  EXPECT_NE(r.out.find("INTERRUPTED"), std::string::npos) << show(r);
  const json j = read_json(dir / "r.json");
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_EQ(j["planned_duration_s"].get<double>(), 10.0);
  const double window = j["duration_s"].get<double>();
  EXPECT_GT(window, 1.0);
  EXPECT_LT(window, 5.0);
  const double requests = j["requests"].get<double>();
  ASSERT_GT(requests, 0);
  EXPECT_NEAR(j["throughput_rps"].get<double>(), requests / window, 1e-6 * requests / window);
  // One point per started second of the window that ran, not of the ten planned.
  EXPECT_EQ(j["series"].size(), size_t(std::ceil(window))) << j["series"].dump().substr(0, 200);
  // The CPU snapshots bracket the same window, not the ten planned seconds. They differ from
  // it by the /stats fetch before the first stamp and the main thread's wake-up after the stop
  // (<= 5 ms): tens of ms on a loaded machine under ASan (24 ms seen), so 0.1 s, still a
  // twentieth of the window.
  EXPECT_NEAR(j["system"]["window_s"].get<double>(), window, 0.1);
  std::ifstream csv(dir / "r.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  // The "interrupted" column, found by name (log_mode follows it).
  auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',')
        out.emplace_back();
      else
        out.back() += c;
    }
    return out;
  };
  const std::vector<std::string> names = cells(header), values = cells(row);
  ASSERT_EQ(names.size(), values.size()) << header << "\n" << row;
  const auto at = std::find(names.begin(), names.end(), "interrupted");
  ASSERT_NE(at, names.end()) << header;
  EXPECT_EQ(values[size_t(at - names.begin())], "1") << header << "\n" << row;
  std::ifstream html(dir / "r.html");
  const std::string page{std::istreambuf_iterator<char>(html), {}};
  EXPECT_NE(page.find("INTERRUPTED"), std::string::npos);
}

TEST(LoadCli, InterruptedDuringWarmupMeasuresNothingAndSaysSo) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("warmup");
  CommandOptions o;
  o.signal = SIGTERM;
  o.signal_after_ms = 500;
  const CommandResult r =
      hitcost::testing::run_command({hitcost::testing::load_binary(), "--url", url(server), "-d", "5s", "--warmup",
                                     "3s", "--idle", "0", "-c", "2", "--json", (dir / "r.json").string(), "-q"},
                                    o);
  EXPECT_EQ(r.exit_code, 130) << show(r);
  const json j = read_json(dir / "r.json");
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_EQ(j["duration_s"].get<double>(), 0.0);
  EXPECT_EQ(j["series"].size(), 0u);
}

// A sweep stopped in its second round writes what finished, and puts the server back.
TEST(LoadCli, InterruptedSweepWritesFinishedRunsAndRestoresTheServer) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  ASSERT_EQ(hitcost::testing::http_post(server.port(), "/admin/config",
                                        R"({"strategy":"struct:json","namespace":"mine","rows":7})")
                .status,
            200);
  const json before = server_config(server);
  const fs::path dir = fresh_dir("sweep");
  CommandOptions o;
  o.signal = SIGINT;
  o.signal_after_ms = 2500;
  const CommandResult r =
      hitcost::testing::run_command(short_sweep(server, "300ms",
                                                {"--repeat", "20", "--strategies", "html,html+zlib", "--json",
                                                 (dir / "s.json").string(), "--csv", (dir / "s.csv").string()}),
                                    o);
  EXPECT_EQ(r.exit_code, 130) << show(r);
  const json s = read_json(dir / "s.json");
  EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(s, "s.json"), s["runs"].size());
  EXPECT_TRUE(s["interrupted"].get<bool>());
  ASSERT_GE(s["runs"].size(), 2u) << show(r);
  EXPECT_LT(s["runs"].size(), 40u);
  size_t checked = 0;
  for (const json& run : s["runs"]) {
    EXPECT_FALSE(run["interrupted"].get<bool>()) << "a cut-short run is left out";
    EXPECT_NEAR(run["duration_s"].get<double>(), 0.3, 1e-9);
    ++checked;
  }
  EXPECT_EQ(checked, s["runs"].size());
  EXPECT_TRUE(fs::exists(dir / "s.csv"));
  const json after = server_config(server);
  for (const char* key : {"strategy", "namespace", "rows", "store", "flags"})
    EXPECT_EQ(after[key], before[key]) << key << ": " << after.dump() << " vs " << before.dump();
  EXPECT_NE(r.err.find("server configuration restored"), std::string::npos) << show(r);
}

TEST(LoadCli, SweepRestoresTheServerWhenItEnds) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  ASSERT_EQ(hitcost::testing::http_post(server.port(), "/admin/config", R"({"namespace":"before-sweep"})").status, 200);
  const json before = server_config(server);
  const CommandResult r =
      hitcost::testing::run_command(short_sweep(server, "200ms", {"--repeat", "1", "--strategies", "html+zlib", "-q"}));
  EXPECT_EQ(r.exit_code, 0) << show(r);
  const json after = server_config(server);
  EXPECT_EQ(after["namespace"], "before-sweep");
  EXPECT_EQ(after["strategy"], before["strategy"]);
}

TEST(LoadCli, SweepOfAStrategyTheServerRefusesIsAUsageError) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "sweep", "--url", url(server), "-d", "200ms", "--warmup", "100ms", "--idle",
       "0", "--keys", "100", "--repeat", "1", "--strategies", "struct:jsn", "--latency-rate", "0", "-q"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("unknown serializer 'jsn'"), std::string::npos) << show(r);
}

// A sweep with an idle baseline and a latency pass at 20 req/s: a window of 20 requests, where
// the idle rate can outweigh the run's own CPU. Whatever came out, no CPU figure that cannot be
// right is left unflagged, and every run carries its flags (client/cpu_accounting.h).
TEST(LoadCli, SweepJsonFlagsEveryCpuFigureThatCannotBeRight) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("flags");
  const CommandResult r = hitcost::testing::run_command({hitcost::testing::load_binary(),
                                                         "sweep",
                                                         "--url",
                                                         url(server),
                                                         "-d",
                                                         "1s",
                                                         "--warmup",
                                                         "100ms",
                                                         "--idle",
                                                         "300ms",
                                                         "-c",
                                                         "2",
                                                         "--keys",
                                                         "100",
                                                         "--repeat",
                                                         "1",
                                                         "--strategies",
                                                         "html,struct:json",
                                                         "--latency-rate",
                                                         "20",
                                                         "--retry-contaminated",
                                                         "0",
                                                         "-q",
                                                         "--json",
                                                         (dir / "s.json").string(),
                                                         "--html",
                                                         (dir / "s.html").string()});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const json s = read_json(dir / "s.json");
  ASSERT_EQ(s["runs"].size(), 4u) << "two capacity runs and two latency runs";
  EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(s, "s.json"), 4u);
  size_t with_flags = 0;
  for (const json& run : s["runs"])
    with_flags += run.contains(json::json_pointer("/cpu/flags")) && run["cpu"]["flags"].is_array();
  EXPECT_EQ(with_flags, 4u);
}

// The logging axis end to end: every strategy under every log mode, one summary row each,
// every run saying its mode, the server's log figures per run, the log file written, and the
// server's own mode put back.
TEST(LoadCli, SweepWithLogModesMeasuresEveryStrategyUnderEveryMode) {
  const fs::path dir = fresh_dir("log-modes");
  const fs::path log = dir / "access.log";
  ServerProcess server({"--store", "memory", "--threads", "1", "--access-log", log.string()});
  const json before = server_config(server);
  ASSERT_TRUE(before.contains("log")) << before.dump();
  const CommandResult r = hitcost::testing::run_command(
      short_sweep(server, "300ms",
                  {"--repeat", "1", "--strategies", "html,struct:json", "--log-modes", "off,line,buffered:64k",
                   "--json", (dir / "s.json").string(), "--csv", (dir / "s.csv").string()}));
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const json s = read_json(dir / "s.json");
  EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(s, "s.json"), s["runs"].size());
  const std::vector<std::string> labels = {"html log=off",          "html log=line",
                                           "html log=buffered:64k", "struct:json log=off",
                                           "struct:json log=line",  "struct:json log=buffered:64k"};
  ASSERT_EQ(s["summary"].size(), labels.size()) << s["summary"].dump();
  for (size_t i = 0; i < labels.size(); ++i) {
    EXPECT_EQ(s["summary"][i]["strategy"], labels[i]);
    EXPECT_EQ(s["summary"][i]["runs"], 1) << labels[i];
  }
  EXPECT_EQ(s["verdict_options"]["baseline"], "html log=off");
  // One capacity run per cell, each with its mode and the server's access-log figures.
  ASSERT_EQ(s["runs"].size(), labels.size());
  std::map<std::string, int> per_mode;
  for (const json& run : s["runs"]) {
    ASSERT_TRUE(run.contains("log_mode")) << run["strategy"];
    const std::string mode = run["log_mode"].get<std::string>();
    ++per_mode[mode];
    // The server ran the mode asked (its canonical name), and its log figures fit that mode.
    const std::map<std::string, std::string> canonical = {
        {"off", "off"}, {"line", "line"}, {"buffered:64k", "buffered:64K"}};
    ASSERT_TRUE(run.contains(json::json_pointer("/server/log/write_calls_per_req")))
        << "no /stats log figures in the run of " << mode;
    EXPECT_EQ(run.at(json::json_pointer("/server/log/mode")), canonical.at(mode));
    const double calls_per_req = run.at(json::json_pointer("/server/log/write_calls_per_req")).get<double>();
    if (mode == "off") {
      // No line of its own; at most the previous cell's buffer, written after the switch.
      EXPECT_LE(run.at(json::json_pointer("/server/log/bytes")).get<uint64_t>(), 64u * 1024u);
    } else if (mode == "line") {
      EXPECT_NEAR(calls_per_req, 1.0, 0.1) << "one write(2) per request";
    } else {
      EXPECT_LT(calls_per_req, 0.25) << "a 64k buffer holds hundreds of lines";
    }
  }
  EXPECT_EQ(per_mode, (std::map<std::string, int>{{"off", 2}, {"line", 2}, {"buffered:64k", 2}}));
  // The summary CSV names the same rows.
  std::ifstream csv(dir / "s.csv");
  std::string line;
  size_t csv_rows = 0;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1);  // store,strategy,...
    EXPECT_NE(std::find(labels.begin(), labels.end(), line.substr(a + 1, b - a - 1)), labels.end()) << line;
    ++csv_rows;
  }
  EXPECT_EQ(csv_rows, labels.size());
  // The server wrote its access log, and runs the mode it ran before the sweep.
  std::ifstream in(log);
  size_t log_lines = 0;
  while (std::getline(in, line)) ++log_lines;
  EXPECT_GT(log_lines, 0u) << log;
  const json after = server_config(server);
  EXPECT_EQ(after["log"], before["log"]);
  EXPECT_EQ(after["namespace"], before["namespace"]);
}

TEST(LoadCli, SweepWithLogModesOnAServerWithoutAccessLogIsAUsageError) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const json before = server_config(server);
  const fs::path dir = fresh_dir("log-modes-refused");
  const CommandResult r = hitcost::testing::run_command(short_sweep(
      server, "200ms",
      {"--repeat", "1", "--strategies", "html", "--log-modes", "off,line", "--json", (dir / "s.json").string()}));
  EXPECT_EQ(r.exit_code, 2) << show(r);
  // The server's reason, after the mode it refused.
  const size_t at = r.err.find("--log-modes line: the server refused it: HTTP 400: ");
  ASSERT_NE(at, std::string::npos) << show(r);
  const std::string reason = r.err.substr(at, r.err.find('\n', at) - at);
  EXPECT_GT(reason.size(), std::string("--log-modes line: the server refused it: HTTP 400: ").size() + 5) << reason;
  EXPECT_NE(r.err.find("nothing measured"), std::string::npos) << show(r);
  EXPECT_FALSE(fs::exists(dir / "s.json"));
  const json after = server_config(server);
  EXPECT_EQ(after["strategy"], before["strategy"]);
  EXPECT_EQ(after["namespace"], before["namespace"]);
}

TEST(LoadCli, SweepWithABadLogModeShowsTheServersReason) {
  const fs::path dir = fresh_dir("log-modes-bad");
  ServerProcess server({"--store", "memory", "--threads", "1", "--access-log", (dir / "access.log").string()});
  const CommandResult r = hitcost::testing::run_command(
      short_sweep(server, "200ms", {"--repeat", "1", "--strategies", "html", "--log-modes", "line,buffered:lots"}));
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("--log-modes buffered:lots: the server refused it: HTTP 400"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("buffered:lots"), r.err.rfind("buffered:lots"))
      << "the server's reason names it too: " << show(r);
}

// Refused before the server is asked anything.
TEST(LoadCli, SweepWithAnEmptyLogModeEntryIsAUsageError) {
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "sweep", "--url", "http://127.0.0.1:9", "--log-modes", "off,,line", "-q"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("--log-modes: empty entry in 'off,,line'"), std::string::npos) << show(r);
}

TEST(LoadCli, MergeRefusesTheSameRunTwice) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("merge");
  const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string();
  ASSERT_EQ(hitcost::testing::run_command(short_run(server, {"--json", a})).exit_code, 0);
  fs::copy_file(a, b);
  for (const auto& second : {a, b}) {
    const CommandResult r = hitcost::testing::run_command({hitcost::testing::load_binary(), "merge", a, second});
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("hold the same run"), std::string::npos) << show(r);
  }
}

TEST(LoadCli, ReportToAnUnwritablePathIsAnOutputError) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("report");
  const std::string a = (dir / "a.json").string();
  ASSERT_EQ(hitcost::testing::run_command(short_run(server, {"--json", a})).exit_code, 0);
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "report", a, "--html", "/nonexistent-hitcost-dir/r.html"});
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << show(r);
}

// hitcost-server shares the table (README, client/exit_code.h): usage errors are 2.
TEST(ServerCli, UnknownOptionOrBadValueIsAUsageError) {
  const std::string server = hitcost::testing::server_binary();
  int checked = 0;
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{server, "--nope"}, std::vector<std::string>{server, "--threads", "x"},
        std::vector<std::string>{server, "--cpus", "4095"}}) {
    const CommandResult r = hitcost::testing::run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_FALSE(r.err.empty()) << "says why";
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  EXPECT_EQ(hitcost::testing::run_command({server, "--help"}).exit_code, 0);
}

// SIGTERM while /admin/warm fills millions of pages on an io thread: the fill stops between two
// pages and the server exits 0 promptly, instead of after the drain timeout.
TEST(ServerCli, SigtermDuringALongWarmStopsTheFillAndExitsCleanly) {
  ServerProcess server({"--store", "memory", "--threads", "1", "--drain-timeout-ms", "20000"});
  hitcost::testing::HttpConnection admin(server.port(), 30'000);
  admin.send_raw("POST /admin/warm?from=0&to=5000000 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  ::usleep(500'000);  // the fill is under way (5M pages take minutes)
  const auto t0 = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  const hitcost::testing::HttpResponse r = admin.read_response();
  EXPECT_EQ(r.status, 200);
  const json answer = json::parse(r.body);
  ASSERT_TRUE(answer.contains("stopped_at")) << r.body;
  EXPECT_GT(answer["warmed"].get<int64_t>(), 0);
  EXPECT_LT(answer["stopped_at"].get<int64_t>(), 5'000'000);
  const int status = server.wait_exit(10'000);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(status, -1) << "still running 10 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_LT(s, 5.0) << "the drain waited for the fill";
}
