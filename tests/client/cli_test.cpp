// hitcost-load as a user runs it: the real binary against a real hitcost-server, judged by
// its exit status (report/exit_code.h), what it prints and what it writes. Interruptions are
// real signals sent while it runs.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/command.h"
#include "tests/support/cpu_flags_check.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"
#include "tests/support/tcp_listener.h"

namespace fs = std::filesystem;
using hitcost::testing::CommandOptions;
using hitcost::testing::CommandResult;
using hitcost::testing::ServerProcess;
using nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("cli", name); }

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

// A run asks the server for the floor of the hit it measures (the strategy it asked, per
// ?strategy=) and keeps it; --no-floor asks for none. With --slow-log on the server, the window's
// slowest requests come along.
TEST(LoadCli, ARunRecordsTheFloorOfItsHitAndItsSlowestRequests) {
  const fs::path dir = fresh_dir("floor");
  ServerProcess server({"--store", "memory", "--threads", "1", "--slow-log", "0ms"});
  const CommandResult r = hitcost::testing::run_command(
      short_run(server, {"--strategy", "struct:json+zlib", "--json", (dir / "r.json").string()}));
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const json run = read_json(dir / "r.json");
  ASSERT_TRUE(run.contains("floor")) << run.dump().substr(0, 400);
  EXPECT_EQ(run["floor"]["strategy"], "struct:json+zlib");  // the run's strategy, not the server's html
  EXPECT_GT(run["floor"]["floor_us"]["total"].get<double>(), 0);
  EXPECT_GT(run["floor"]["floor_us"]["decode"].get<double>(), 0);
  ASSERT_TRUE(run.contains("slowest")) << run.dump().substr(0, 400);
  EXPECT_EQ(run["slowest"]["threshold_us"], 0.0);
  EXPECT_EQ(run["slowest"]["slowest"].size(), 10u);  // every request is "slow" at 0 ms: the 10 slowest kept
  EXPECT_GE(run["slowest"]["recorded"].get<uint64_t>(), 100u);
  const CommandResult none =
      hitcost::testing::run_command(short_run(server, {"--no-floor", "--json", (dir / "none.json").string()}));
  ASSERT_EQ(none.exit_code, 0) << show(none);
  EXPECT_FALSE(read_json(dir / "none.json").contains("floor"));
}

// --strategy reaches the server: every page the run asked for was answered under it (the access
// log names the strategy that answered each request), not under the server's default.
TEST(LoadCli, EveryPageIsAnsweredUnderTheStrategyAsked) {
  const fs::path dir = fresh_dir("strategy-asked");
  const fs::path log = dir / "access.log";
  ServerProcess server({"--store", "memory", "--threads", "1", "--access-log", log.string()});
  const json config = server_config(server);
  const std::string asked = "struct:msgpack+zstd";
  ASSERT_TRUE(config.contains("strategy")) << config.dump();
  ASSERT_NE(config.at("strategy"), asked) << "pick a strategy other than the server's default";
  const CommandResult r = hitcost::testing::run_command(short_run(server, {"--strategy", asked}));
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::ifstream in(log);
  size_t pages = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"GET /page/") == std::string::npos) continue;
    // ... CACHE STRATEGY US: the strategy is the last field but one.
    const size_t us = line.rfind(' '), strategy = line.rfind(' ', us - 1);
    ASSERT_NE(strategy, std::string::npos) << line;
    EXPECT_EQ(line.substr(strategy + 1, us - strategy - 1), asked) << line;
    ++pages;
  }
  EXPECT_GT(pages, 100u) << "a 300 ms run on 4 connections";
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

// The issue this guards: every answer a 400 "bad strategy" ran the whole window and exited 3
// with a report of errors. The first request is sent once before the window: the server's
// reason, exit 2 (a bad value), no report and no output file.
TEST(LoadCli, MisspeltStrategyIsRefusedBeforeTheRunWithTheServersReason) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("strategy");
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult r = hitcost::testing::run_command(
      short_argv(server, "", "5s", {"--strategy", "struct:jsn", "--json", (dir / "r.json").string()}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("GET /page/0?strategy=struct%3Ajsn: the server refused it: HTTP 400: bad strategy"),
            std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("unknown serializer 'jsn'"), std::string::npos) << show(r);
  EXPECT_EQ(r.out, "") << "no report of a run that did not run";
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_LT(seconds, 4.0) << "the 5 s window ran";
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
      hitcost::testing::run_command(short_run(server, {"--path-template", "/pages/{id}", "--max-error-rate", "1"}));
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("status 404"), std::string::npos) << show(r);
}

namespace {
// The requests the server has answered (its /stats), to tell "refused before the run" from
// "refused after it".
uint64_t server_requests(const ServerProcess& s) {
  const json stats = json::parse(hitcost::testing::http_get(s.port(), "/stats").body);
  return stats.at("requests").get<uint64_t>();
}
}  // namespace

// The issue this guards: an output in a directory that is not there was found after the run
// (its figures lost). Every output option of a run, a sweep and the file commands is checked
// first: exit 2 with the option, the path and the reason, and no page asked of the server.
TEST(LoadCli, UnwritableOutputIsRefusedBeforeTheRun) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("outputs");
  const std::string bad = (dir / "none" / "out.file").string();
  const std::string input = (dir / "in.json").string();
  ASSERT_EQ(hitcost::testing::run_command(short_run(server, {"--json", input})).exit_code, 0);
  const std::string load = hitcost::testing::load_binary();
  std::vector<std::pair<std::string, std::vector<std::string>>> cases;
  for (const char* flag : {"--json", "--csv", "--hdr-out", "--html"})
    cases.push_back({flag, short_argv(server, "", "5s", {flag, bad})});
  for (const char* flag : {"--json", "--csv", "--html"})
    cases.push_back({flag, short_sweep(server, "5s", {"--strategies", "html", "--repeat", "1", flag, bad})});
  for (const char* flag : {"--json", "--csv", "--html"}) {
    cases.push_back({flag, {load, "merge", input, flag, bad}});
    cases.push_back({flag, {load, "compare", "a=" + input, flag, bad}});
  }
  cases.push_back({"--html", {load, "report", input, "--html", bad}});
  size_t checked = 0;
  for (const auto& [flag, argv] : cases) {
    SCOPED_TRACE(argv[1] + " " + flag);
    const uint64_t before = server_requests(server);
    const CommandResult r = hitcost::testing::run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find(flag + " " + bad + ": directory " + (dir / "none").string() + ": No such file or directory"),
              std::string::npos)
        << show(r);
    // One request: the /stats this test just sent.
    EXPECT_EQ(server_requests(server), before + 1) << "the server was asked for pages:\n" << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, 4u + 3u + 6u + 1u);
  EXPECT_FALSE(fs::exists(dir / "none"));
}

// Two options naming one file: one would overwrite the other.
TEST(LoadCli, TwoOutputsNamingOneFileAreRefused) {
  const fs::path dir = fresh_dir("twice");
  const CommandResult r =
      hitcost::testing::run_command({hitcost::testing::load_binary(), "--url", "http://127.0.0.1:1", "--json",
                                     (dir / "r").string(), "--csv", (dir / "r").string()});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("--json and --csv both name " + (dir / "r").string()), std::string::npos) << show(r);
}

// What the up-front check cannot see (a full disk, a directory removed meanwhile) is still told
// at the end: every other output is written, and the exit code is 4.
TEST(LoadCli, OutputThatCannotBeWrittenAtTheEndIsExit4) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("gone"), kept = fresh_dir("kept");
  std::thread remover([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    fs::remove_all(dir);
  });
  const CommandResult r = hitcost::testing::run_command(
      short_argv(server, "", "2s", {"-q", "--json", (dir / "r.json").string(), "--csv", (kept / "r.csv").string()}));
  remover.join();
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("cannot write " + (dir / "r.json").string() + ": No such file or directory"), std::string::npos)
      << show(r);
  EXPECT_TRUE(fs::exists(kept / "r.csv"));
}

// The issue this guards: nothing listening cost the idle baseline, the warm-up and the whole
// window (12 s by default) and printed a report of zeros. Now: the OS's reason within a few
// seconds, exit 1, nothing on stdout — for a run and for a sweep.
TEST(LoadCli, UnreachableServerIsToldWithinSecondsWithNoReport) {
  const int port = hitcost::testing::free_loopback_port();  // nothing listens there
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  size_t checked = 0;
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{hitcost::testing::load_binary(), "--url", url},
        std::vector<std::string>{hitcost::testing::load_binary(), "sweep", "--url", url}}) {
    SCOPED_TRACE(argv[1]);
    const auto t0 = std::chrono::steady_clock::now();
    const CommandResult r = hitcost::testing::run_command(argv);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("cannot reach " + url + ": connect to 127.0.0.1:" + std::to_string(port) +
                         ": Connection refused: nothing measured"),
              std::string::npos)
        << show(r);
    EXPECT_EQ(r.out, "") << "no report of a run that did not run";
    EXPECT_LT(seconds, 5.0) << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

// A server that accepts the connection and never answers is unreachable too, within 2 s.
TEST(LoadCli, ServerThatNeverAnswersIsToldWithinTwoSeconds) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 16), 0);  // the kernel completes connections; nobody reads them
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult r = hitcost::testing::run_command({hitcost::testing::load_binary(), "--url", url});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(listener);
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("cannot reach " + url + ": no answer within 2 s"), std::string::npos) << show(r);
  EXPECT_EQ(r.out, "");
  EXPECT_LT(seconds, 5.0) << show(r);
}

// The issue this guards: --url http://host:port/value/{id} was taken as the server's root and
// the run measured /page/{id}, a figure of the wrong thing.
TEST(LoadCli, UrlWithAPathIsAUsageErrorNamingPathTemplate) {
  size_t checked = 0;
  for (const char* sub : {"", "sweep"}) {
    std::vector<std::string> argv = {hitcost::testing::load_binary()};
    if (*sub) argv.push_back(sub);
    argv.insert(argv.end(), {"--url", "http://127.0.0.1:8080/value/{id}"});
    const CommandResult r = hitcost::testing::run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("--path-template '/value/{id}'"), std::string::npos) << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
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
  // The "interrupted" column, found by name (axes follows it).
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

// The issue this guards: a mistyped strategy (or store) was skipped and the sweep ran every
// other one to the end before it exited 2. The server is asked about each first; every
// refusal is printed, nothing is warmed or measured, the server's configuration is put back.
// --strategies and --stores are axes like any other (client/sweep_axes.h): a value listed twice
// or an empty entry is a slip, refused before the server is asked anything.
TEST(LoadCli, SweepWithAStrategyOrStoreListedTwiceIsAUsageError) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--strategies", "html,html+zlib,html"}, "--strategies: 'html' is listed twice"},
      {{"--strategies", "html,,html+zlib"}, "--strategies: empty entry in 'html,,html+zlib'"},
      {{"--stores", "memory,memory"}, "--stores: 'memory' is listed twice"}};
  size_t checked = 0;
  for (const auto& [args, why] : cases) {
    std::vector<std::string> all = {"--repeat", "2"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = hitcost::testing::run_command(short_sweep(server, "1s", all));
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("hitcost-load sweep: " + why), std::string::npos) << show(r);
    EXPECT_EQ(r.out.find("warmed"), std::string::npos) << show(r);
    checked += r.exit_code == 2;
  }
  EXPECT_EQ(checked, 3u);
}

TEST(LoadCli, SweepWithAMisspeltStrategyOrStoreStopsBeforeMeasuring) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  ASSERT_EQ(hitcost::testing::http_post(server.port(), "/admin/config", R"({"namespace":"mine"})").status, 200);
  const json before = server_config(server);
  const fs::path dir = fresh_dir("sweep-typo");
  const CommandResult r =
      hitcost::testing::run_command(short_sweep(server, "2s",
                                                {"--repeat", "3", "--strategies", "html,struct:jsn,html+zlb",
                                                 "--stores", "memory,memroy", "--json", (dir / "s.json").string()}));
  EXPECT_EQ(r.exit_code, 2) << show(r);
  size_t checked = 0;
  for (const std::string what : {"--strategies struct:jsn", "--strategies html+zlb", "--stores memroy"}) {
    EXPECT_NE(r.err.find("hitcost-load sweep: " + what + ": the server refused it: HTTP 400"), std::string::npos)
        << what << "\n"
        << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
  EXPECT_NE(r.err.find("nothing measured"), std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("warmed"), std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("round 1/"), std::string::npos) << show(r);
  EXPECT_FALSE(fs::exists(dir / "s.json"));
  const json after = server_config(server);
  for (const char* key : {"strategy", "namespace", "store"}) EXPECT_EQ(after[key], before[key]) << key;
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
// right is left unflagged, and every run carries its flags (figures/cpu_accounting.h).
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
    ASSERT_TRUE(run.contains(json::json_pointer("/axes/log"))) << run["strategy"];
    const std::string mode = run["axes"]["log"].get<std::string>();
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

// A client-side axis end to end: each cell's runs use its load threads, the summary has a row
// per strategy x threads under its label, the CSVs carry the settings, the server's
// configuration is untouched by the axis.
TEST(LoadCli, SweepWithAThreadsAxisMeasuresEveryStrategyAtEveryThreadCount) {
  const fs::path dir = fresh_dir("axis-threads");
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const CommandResult r = hitcost::testing::run_command(
      short_sweep(server, "300ms",
                  {"--repeat", "1", "--strategies", "html,struct:json", "--axis", "threads=1,2", "--json",
                   (dir / "s.json").string(), "--csv", (dir / "s.csv").string()}));
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("2 strategies x 2 threads values"), std::string::npos) << show(r);
  const json s = read_json(dir / "s.json");
  const std::vector<std::string> labels = {"html threads=1", "html threads=2", "struct:json threads=1",
                                           "struct:json threads=2"};
  ASSERT_EQ(s["summary"].size(), labels.size()) << s["summary"].dump();
  for (size_t i = 0; i < labels.size(); ++i) {
    EXPECT_EQ(s["summary"][i]["strategy"], labels[i]);
    EXPECT_EQ(s["summary"][i]["axes"]["threads"], labels[i].substr(labels[i].size() - 1));
  }
  EXPECT_EQ(s["verdict_options"]["baseline"], "html threads=1");
  EXPECT_EQ(s["axes"], (json{{"threads", {"1", "2"}}}));
  ASSERT_EQ(s["runs"].size(), labels.size());
  size_t checked = 0;
  for (const json& run : s["runs"]) {
    const std::string threads = run["axes"]["threads"].get<std::string>();
    EXPECT_EQ(run["threads"], std::stoi(threads)) << "the run used the cell's load threads";
    EXPECT_EQ(run["thread_cpus"].size(), size_t(std::stoi(threads))) << run.dump();
    EXPECT_EQ(run["errors"]["total"], 0);
    ++checked;
  }
  EXPECT_EQ(checked, 4u);
  std::ifstream csv(dir / "s.csv");
  std::string line, text;
  while (std::getline(csv, line)) text += line + "\n";
  for (const std::string& label : labels) EXPECT_NE(text.find("," + label + ","), std::string::npos) << text;
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

// A write that fails at the end (the up-front check passed: the directory is there) is exit 4
// with the path and the OS's reason. A directory in the way of the temporary file makes it fail.
TEST(LoadCli, ReportWhoseWriteFailsAtTheEndIsAnOutputError) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("report");
  const std::string a = (dir / "a.json").string();
  ASSERT_EQ(hitcost::testing::run_command(short_run(server, {"--json", a})).exit_code, 0);
  fs::create_directories(dir / "r.html.tmp");
  const CommandResult r = hitcost::testing::run_command(
      {hitcost::testing::load_binary(), "report", a, "--html", (dir / "r.html").string()});
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("cannot write " + (dir / "r.html").string() + ": Is a directory"), std::string::npos) << show(r);
  EXPECT_FALSE(fs::exists(dir / "r.html"));
}

// Redirected to a file (CI, a script's log), stdout must not hold its lines back behind the
// stderr lines printed after them: a sweep prints its plan (stdout), says it restored the
// server (stderr), then prints the summary (stdout), in that order in one file.
TEST(LoadCli, RedirectedStdoutAndStderrKeepTheirOrder) {
  ServerProcess server({"--store", "memory", "--threads", "1"});
  const fs::path dir = fresh_dir("order");
  std::string cmd;
  for (const std::string& a : short_sweep(server, "200ms", {"--repeat", "1", "--strategies", "html"}))
    cmd += "'" + a + "' ";
  const CommandResult r =
      hitcost::testing::run_command({"/bin/bash", "-c", cmd + ">'" + (dir / "both.log").string() + "' 2>&1"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::ifstream in(dir / "both.log");
  const std::string both{std::istreambuf_iterator<char>(in), {}};
  const size_t plan = both.find("1 strategy, 1 round,"), restored = both.find("server configuration restored"),
               summary = both.find("capacity and CPU", restored == std::string::npos ? 0 : restored);
  ASSERT_NE(plan, std::string::npos) << both;
  ASSERT_NE(restored, std::string::npos) << both;
  ASSERT_NE(summary, std::string::npos) << both;
  EXPECT_LT(plan, restored) << both;
  EXPECT_LT(restored, summary) << both;
}

// hitcost-server's --port: 0 picks one, 1..65535 are ports, anything else is refused (70000
// listened on 4464 and -1 on 65535 before).
TEST(ServerCli, PortOutsideTheRangeIsAUsageError) {
  size_t checked = 0;
  for (const char* port : {"70000", "65536", "-1"}) {
    // A server that took the port would listen until killed: 10 s is the verdict.
    const CommandResult r =
        hitcost::testing::run_command({hitcost::testing::server_binary(), "--port", port}, {.timeout_ms = 10'000});
    EXPECT_FALSE(r.timed_out) << port << ": it started and listened";
    EXPECT_EQ(r.exit_code, 2) << port << "\n" << show(r);
    EXPECT_NE(r.err.find("--port"), std::string::npos) << show(r);
    EXPECT_EQ(r.out.find("listening on"), std::string::npos) << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

// hitcost-server shares the table (README, report/exit_code.h): usage errors are 2.
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

namespace {

// What this machine's resolver answers for a name that does not resolve, as hitcost-load words it.
std::string cannot_resolve(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &found);
  if (rc == 0) {
    ::freeaddrinfo(found);
    return name + " resolves here: pick another";
  }
  return "cannot resolve host " + name + ": " + ::gai_strerror(rc);
}

}  // namespace

// --check-args (issue 29: the Kubernetes manifests' command lines are checked by the programs' own
// parsers): a run's and a sweep's line checked as they would be, one line out, exit 0, and
// nothing done: no connection to --url (a socket listening there sees none), no output file
// created nor its directory checked, no name resolved (--admin-url is a name no resolver
// knows), no process or CPU of this machine looked for.
TEST(LoadCli, CheckArgsChecksTheLineAndConnectsWritesAndResolvesNothing) {
  const fs::path dir = fresh_dir("check-args");
  hitcost::testing::TcpListener server;
  ASSERT_GT(server.port, 0);
  const std::string json_out = (dir / "out.json").string(), csv_out = (dir / "no-such-dir" / "out.csv").string();
  const std::string load = hitcost::testing::load_binary();
  const std::vector<std::vector<std::string>> lines = {
      {load, "--check-args", "--url", server.url(), "--json", json_out, "--csv", csv_out, "--server-pids", "999999999",
       "--cpus", "1023", "--strategy", "struct:jsn", "-d", "10s"},
      {load, "replay", "--check-args", (dir / "no-such.trace").string(), "--url", server.url(), "--json", json_out,
       "--values", (dir / "no-such.hcorpus").string()},
      {load, "sweep", "--check-args", "--url", server.url(), "--admin-url", "http://no-such-host.invalid:8080",
       "--json", json_out, "--csv", csv_out, "--strategies", "html,struct:jsn", "--stores", "memcached:mc:11211",
       "--axis", "threads=1,2", "--repeat", "3"},
      {load, "--check-args", "sweep", "--url", "http://hitcost-server:8080", "--json", json_out},
      {load, "--check-args", "replay", (dir / "no-such.trace").string(), "--url", "http://hitcost-server:8080"},
  };
  size_t checked = 0;
  for (const auto& argv : lines) {
    const CommandResult r = hitcost::testing::run_command(argv, {.timeout_ms = 30'000});
    EXPECT_EQ(r.exit_code, 0) << argv[1] << " " << argv[2] << "\n" << show(r);
    EXPECT_EQ(r.out, "hitcost-load: arguments ok\n") << argv[1] << " " << argv[2];
    EXPECT_EQ(r.err, "") << argv[1] << " " << argv[2];
    EXPECT_EQ(server.connections(), 0) << argv[1] << " " << argv[2];
    EXPECT_FALSE(fs::exists(json_out)) << argv[1] << " " << argv[2];
    ++checked;
  }
  EXPECT_EQ(checked, 5u);
  EXPECT_TRUE(fs::is_empty(dir));
}

// A bad line with --check-args exits 2 with the message of a real run (usage errors, printed
// before anything is connected), run and sweep alike; --check-args is refused for the commands
// that only read files.
TEST(LoadCli, CheckArgsRefusesABadLineAsARunWould) {
  const fs::path dir = fresh_dir("check-args-bad");
  const std::string load = hitcost::testing::load_binary();
  const std::string url = "http://127.0.0.1:1";
  std::ofstream(dir / "in.json") << "{}";
  const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
      {{load, "--url", url, "--key-dist", "zipf:x"}, "hitcost-load: bad --key-dist (uniform | zipf:S): zipf:x\n"},
      {{load, "--url", "http://bad_host:8080"},
       "hitcost-load: host is neither an IP address nor a host name: bad_host\n"},
      {{load, "--url", url, "--trace", (dir / "t.trace").string(), "--requests", "5"},
       "hitcost-load: --trace: the trace sets the requests; --requests is not taken\n"},
      {{load, "--url", url, "--server-pids", "12x"}, "hitcost-load: --server-pids: '12x' is not a pid\n"},
      {{load, "sweep", "--url", url, "--latency-rate", "fast"},
       "hitcost-load sweep: bad --latency-rate (auto | REQ/S | 0): fast\n"},
      {{load, "sweep", "--url", url, "--admin-url", "http://[mc]:80"},
       "hitcost-load sweep: bad --admin-url: host is neither an IP address nor a host name: [mc]\n"},
      {{load, "sweep", "--url", url, "--repeat", "2", "--max-rounds", "9"},
       "hitcost-load sweep: --repeat N runs exactly N rounds: --min-rounds, --max-rounds and --max-time are for "
       "until-decided\n"},
      {{load, "sweep"}, "hitcost-load sweep: --url is required\n"},
  };
  size_t checked = 0;
  for (const auto& [argv, says] : rows) {
    std::vector<std::string> checking = argv;
    checking.insert(checking.begin() + (argv[1] == "sweep" ? 2 : 1), "--check-args");
    const CommandResult check = hitcost::testing::run_command(checking, {.timeout_ms = 30'000});
    const CommandResult real = hitcost::testing::run_command(argv, {.timeout_ms = 30'000});
    EXPECT_EQ(check.exit_code, 2) << show(check);
    EXPECT_EQ(check.err, says);
    EXPECT_EQ(check.out, "");
    EXPECT_EQ(real.exit_code, 2) << show(real);
    EXPECT_EQ(real.err, says);
    ++checked;
  }
  EXPECT_EQ(checked, 8u);
  const CommandResult report = hitcost::testing::run_command(
      {load, "--check-args", "report", (dir / "in.json").string(), "--html", (dir / "r.html").string()});
  EXPECT_EQ(report.exit_code, 2) << show(report);
  EXPECT_EQ(report.err, "hitcost-load: --check-args is for a run, a replay or a sweep\n");
  EXPECT_FALSE(fs::exists(dir / "r.html"));
}

// A name that does not resolve is the network's failure, not the line's: exit 1 with the
// resolver's reason, before anything is measured or written — for --url in a run and a sweep,
// and for a sweep's --admin-url.
TEST(LoadCli, AnUnresolvableHostExits1WithTheResolversReason) {
  const fs::path dir = fresh_dir("unresolvable");
  const std::string load = hitcost::testing::load_binary(), name = "no-such-host.invalid";
  const std::string reason = cannot_resolve(name);
  ASSERT_EQ(reason.rfind("cannot resolve host ", 0), 0u) << reason;
  const std::string json_out = (dir / "out.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
      {{load, "--url", "http://" + name + ":8080", "--json", json_out},
       "hitcost-load: " + reason + ": nothing measured\n"},
      {{load, "sweep", "--url", "http://" + name + ":8080", "--json", json_out},
       "hitcost-load sweep: " + reason + ": nothing measured\n"},
      {{load, "sweep", "--url", "http://127.0.0.1:1", "--admin-url", "http://" + name + ":8080", "--json", json_out},
       "hitcost-load sweep: --admin-url: " + reason + ": nothing measured\n"},
  };
  size_t checked = 0;
  for (const auto& [argv, says] : rows) {
    const CommandResult r = hitcost::testing::run_command(argv, {.timeout_ms = 30'000});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_EQ(r.err, says);
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(json_out));
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

// A run by host name: the name is resolved once at start, the run loads the address it got and
// says which (the JSON's url_address, the report's "at ADDRESS"), and the Host header is the name.
TEST(LoadCli, ARunByHostNameSaysTheAddressItLoaded) {
  char self[256] = {};
  ASSERT_EQ(::gethostname(self, sizeof self - 1), 0);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  ASSERT_EQ(::getaddrinfo(self, nullptr, &hints, &found), 0) << "this machine's own name must resolve: " << self;
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
  ::freeaddrinfo(found);
  const fs::path dir = fresh_dir("by-name");
  ServerProcess server({"--store", "memory", "--threads", "1", "--host", "0.0.0.0"});
  const std::string port = std::to_string(server.port());
  std::vector<std::string> argv = short_run(server, {"--json", (dir / "r.json").string()});
  argv[std::find(argv.begin(), argv.end(), "--url") - argv.begin() + 1] = "http://" + std::string(self) + ":" + port;
  argv.erase(std::find(argv.begin(), argv.end(), "-q"));
  const CommandResult r = hitcost::testing::run_command(argv);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const json run = read_json(dir / "r.json");
  EXPECT_EQ(run["url"], "http://" + std::string(self) + ":" + port);
  EXPECT_EQ(run["url_address"], std::string(text) + ":" + port);
  EXPECT_NE(r.out.find("  http://" + std::string(self) + ":" + port + "/page/{id}  at " + text + ":" + port +
                       "  keys 100 uniform"),
            std::string::npos)
      << r.out;
  EXPECT_GT(run["requests"].get<uint64_t>(), 0u);
  EXPECT_EQ(run["errors"]["total"], 0) << run["error_samples"].dump();
}
