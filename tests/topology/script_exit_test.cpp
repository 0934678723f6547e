// How the scripts end (scripts/lib.sh): --time-limit stops everything they started, whenever it
// lands, with exit code 130; the server's reason for a 400 reaches the user with exit code 2;
// a CPU that is not online is a usage error; every --help names the exit codes; a server that
// exits at start-up ends run.sh at once.
// Each script runs in a session of its own (setsid), so every process it started, re-parented
// or not, is found afterwards by its session id in /proc/*/stat.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"

namespace {
namespace fs = std::filesystem;
using hitcost::testing::CommandOptions;
using hitcost::testing::CommandResult;
using hitcost::testing::describe;
using hitcost::testing::run_command;

const std::string kSource = HITCOST_SOURCE_DIR;
const std::string kBinary = HITCOST_BINARY_DIR;

// A script's run: `env` added, at most `max_wait_s` for the script itself to exit (then its
// session is killed), and one look for anything of its session alive right after it exited
// (left_running; stopped since, so the next run starts clean).
CommandOptions in_own_session(const std::vector<std::string>& env, int max_wait_s) {
  return {.timeout_ms = max_wait_s * 1000, .env = env, .own_session = true, .grace_ms = 0};
}

// Run by bash, as a user runs them.
std::vector<std::string> bash(std::vector<std::string> argv) {
  argv.insert(argv.begin(), "/bin/bash");
  return argv;
}

// The status as a shell's $? shows it, which is how the exit-code contract is read: a script
// that a signal ended counts as 128 + the signal.
int shell_status(const CommandResult& r) { return r.term_signal != 0 ? 128 + r.term_signal : r.exit_code; }

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("script-exit", name); }

const std::vector<std::string> kPrebuilt = {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary};

std::vector<std::string> topology(const fs::path& out, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kSource + "/scripts/topology.sh", "--out", (out / "out").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

void require_tools() {
  for (const char* tool : {"memcached", "curl", "jq"})
    ASSERT_EQ(std::system((std::string("command -v ") + tool + " >/dev/null").c_str()), 0)
        << tool << " is not installed (scripts/install-deps.sh installs it)";
}

int count(const std::string& text, const std::regex& re) {
  return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// The issue this guards: once in three tries the script printed that it stopped and exited 1
// with its memcached and hitcost-server still running (the cleanup died half-way). The limit
// lands in a different phase each run: the run length differs, so it falls in a configure, a
// warm, a client run, between steps.
TEST(TopologyTimeLimit, TwentyRunsInARowLeaveNothingOfTheirSessionAndExit130) {
  require_tools();
  const fs::path dir = fresh_dir("limit");
  const char* durations[] = {"400ms", "700ms", "1s", "1300ms", "250ms"};
  int checked = 0, clean = 0;
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE("run " + std::to_string(i + 1) + " of 20");
    // 2 strategies x 10 repeats: at least 20 steps, far longer than the limit.
    const CommandResult r =
        run_command(bash(topology(dir, {"--nodes", "1", "--clients", "1", "--time-limit", "3", "--strategies",
                                        "html,html+zlib", "--repeat", "10", "--duration", durations[i % 5], "--warmup",
                                        "0", "--keys", "200", "--connections", "2"})),
                    in_own_session(kPrebuilt, 15));
    ASSERT_FALSE(r.timed_out) << "still running 15 s after a 3 s limit:\n" << r.err;
    ++checked;
    EXPECT_EQ(shell_status(r), 130) << r.err;
    EXPECT_NE(r.err.find("topology: --time-limit 3s reached"), std::string::npos) << r.err;
    EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running) << r.err;
    if (shell_status(r) == 130 && r.left_running.empty()) ++clean;
  }
  EXPECT_EQ(checked, 20);
  EXPECT_EQ(clean, 20);
  if (!HasFailure()) fs::remove_all(dir);
}

// Four hundred nodes cannot start within one second: each is a process started and probed in
// turn (2-3 started within the second here on a busy 2-core machine; all 400 would need under
// 2.5 ms each). So the limit lands while memcached processes are being started, before
// hitcost-server exists. Forty nodes were not enough: a fast machine started them all in time.
TEST(TopologyTimeLimit, LimitDuringStartUpStopsTheNodesAlreadyStarted) {
  require_tools();
  const fs::path dir = fresh_dir("startup");
  static const std::regex node(R"(== memcached \d+ on 127\.0\.0\.1:\d+)");
  int checked = 0;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("run " + std::to_string(i + 1) + " of 3");
    const CommandResult r =
        run_command(bash(topology(dir, {"--nodes", "400", "--time-limit", "1"})), in_own_session(kPrebuilt, 15));
    ASSERT_FALSE(r.timed_out) << r.err;
    ++checked;
    EXPECT_EQ(shell_status(r), 130) << r.err;
    const int nodes = count(r.err, node);
    std::printf("%d of 400 nodes started before the 1 s limit\n", nodes);
    EXPECT_GE(nodes, 1) << "no node started before the limit: nothing was checked\n" << r.err;
    EXPECT_LT(nodes, 400) << "the limit fell after the start-up\n" << r.err;
    EXPECT_EQ(r.err.find("hitcost-server at"), std::string::npos) << r.err;
    EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running) << r.err;
  }
  EXPECT_EQ(checked, 3);
  if (!HasFailure()) fs::remove_all(dir);
}

// The server answers a strategy typo with 400 and a one-line reason: the user sees that line,
// and the script exits 2 (a value the server rejected is a usage error).
TEST(TopologyScript, ServerReasonForARejectedStrategyReachesStderrWithExit2) {
  require_tools();
  const fs::path dir = fresh_dir("jsn");
  const CommandResult r = run_command(
      bash(topology(dir, {"--nodes", "1", "--clients", "1", "--strategies", "struct:jsn", "--time-limit", "60"})),
      in_own_session(kPrebuilt, 30));
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(shell_status(r), 2) << r.err;
  EXPECT_NE(r.err.find("topology: POST /admin/config → 400: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown serializer 'jsn'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("curl: (22)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running);
  if (!HasFailure()) fs::remove_all(dir);
}

// CPU 4000 is online on no machine this runs on: a usage error before anything starts.
TEST(Scripts, CpuThatIsNotOnlineIsAUsageError) {
  const fs::path dir = fresh_dir("cpus");
  struct Case {
    std::vector<std::string> argv, env;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{kSource + "/scripts/php-stack.sh", "--memcached", "127.0.0.1:1", "--origin", "http://127.0.0.1:1", "--cpus",
        "4000"},
       {},
       "php stack: --cpus: CPU 4000 is not online"},
      {{kSource + "/scripts/php-stack.sh", "--memcached", "127.0.0.1:1", "--origin", "http://127.0.0.1:1", "--fpm-cpus",
        "0,4000"},
       {},
       "php stack: --fpm-cpus: CPU 4000 is not online"},
      {{kSource + "/scripts/php-stack.sh", "--memcached", "127.0.0.1:1", "--origin", "http://127.0.0.1:1", "--cpus",
        "one"},
       {},
       "php stack: --cpus: 'one' is not a CPU list"},
      {{kSource + "/scripts/php-compare.sh", "--rounds", "1"},
       {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary, "HITCOST_OUT=" + (dir / "out").string(),
        "HITCOST_SERVER_CPU=4000"},
       "php-compare: HITCOST_SERVER_CPU: CPU 4000 is not online"},
  };
  int checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    const CommandResult r = run_command(bash(c.argv), in_own_session(c.env, 30));
    ASSERT_FALSE(r.timed_out) << r.err;
    EXPECT_EQ(shell_status(r), 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  if (!HasFailure()) fs::remove_all(dir);
}

// The issue this guards: a port of 70000 was taken as 4464, 65536 as a free port, -1 as 65535.
// Every port and address a script takes is 1..65535 (0 nowhere means "pick one" here: the
// scripts pick free ports themselves when none is given), refused with exit 2 before anything
// starts.
TEST(Scripts, PortsAndAddressesOutsideTheRangeAreUsageErrors) {
  const std::string stack = kSource + "/scripts/php-stack.sh", topo = kSource + "/scripts/topology.sh";
  const std::vector<std::string> mc = {"--memcached", "127.0.0.1:11211"},
                                 origin = {"--origin", "http://127.0.0.1:8080"};
  struct Case {
    std::vector<std::string> argv;
    std::string says;
  };
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b, const std::vector<std::string>& c) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  const std::vector<Case> cases = {
      {with({stack, "--port", "70000"}, mc, origin), "php stack: --port: '70000' is not a port (1..65535)"},
      {with({stack, "--port", "65536"}, mc, origin), "php stack: --port: '65536' is not a port"},
      {with({stack, "--port", "-1"}, mc, origin), "php stack: --port: '-1' is not a port"},
      {with({stack, "--port", "0"}, mc, origin), "php stack: --port: '0' is not a port"},
      {with({stack, "--memcached", "127.0.0.1:70000"}, origin, {}),
       "php stack: --memcached 127.0.0.1:70000: '70000' is not a port"},
      {with({stack, "--memcached", "127.0.0.1"}, origin, {}), "php stack: --memcached: '127.0.0.1' is not HOST:PORT"},
      {with({stack, "--origin", "http://127.0.0.1:8080/page"}, mc, {}), "is not a base URL http://HOST:PORT"},
      {{topo, "--server", "http://127.0.0.1:8080", "--memcached", "127.0.0.1:1,127.0.0.1:99999"},
       "topology: --memcached 127.0.0.1:99999: '99999' is not a port"},
      {{topo, "--server", "http://127.0.0.1:0", "--memcached", "127.0.0.1:1"}, "topology: --server: '0' is not a port"},
  };
  int checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    const CommandResult r =
        run_command(bash(c.argv), in_own_session({"HITCOST_LOAD_BIN=" + hitcost::testing::load_binary()}, 30));
    ASSERT_FALSE(r.timed_out) << r.err;
    EXPECT_EQ(shell_status(r), 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

// The issue this guards: Ctrl-C at the terminal reached the server as well as the sweep, so the
// sweep's restore found no server ("could NOT restore the server's configuration"). The
// services run in a process group of their own: the sweep stops first and puts the server's
// configuration back, then the script stops the server.
TEST(Scripts, CtrlCToRunShStopsTheSweepWhichRestoresTheServerBeforeItStops) {
  require_tools();
  const fs::path dir = fresh_dir("run-ctrl-c");
  CommandOptions o = in_own_session(
      {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary, "HITCOST_OUT=" + (dir / "out").string()}, 60);
  o.signal = SIGINT;
  o.signal_group = true;                   // as a terminal sends it: to the whole foreground process group
  o.signal_after_output = "html: warmed";  // the sweep is about to measure: 1 s of warm-up, 5 s runs
  o.signal_after_ms = 2000;
  const CommandResult r = run_command(bash({kSource + "/run.sh", "--strategies", "html", "--repeat", "3", "-d", "5s",
                                            "--latency-rate", "0", "--idle", "0"}),
                                      o);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(shell_status(r), 130) << r.err;
  EXPECT_NE(r.err.find("hitcost-load sweep: interrupted"), std::string::npos) << "the signal came too early\n" << r.err;
  EXPECT_NE(r.err.find("hitcost-load sweep: server configuration restored"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("could NOT restore"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("the server is gone"), std::string::npos) << r.err;
  EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running);
  if (!HasFailure()) fs::remove_all(dir);
}

// The issue this guards: Ctrl-C after some steps had finished printed a client's all-zero
// report of the step it cut short, and nothing of the steps that were done. Now the finished
// steps are merged and reported, the cut one is left out, and the exit code stays 130.
TEST(TopologyScript, InterruptedAfterFinishedStepsReportsThemAndExits130) {
  require_tools();
  const fs::path dir = fresh_dir("topology-ctrl-c");
  CommandOptions o = in_own_session(kPrebuilt, 60);
  o.signal = SIGINT;
  o.signal_group = true;
  o.signal_after_output = "== step 3/8";  // steps 1 and 2 are done, step 3's clients start
  o.signal_after_ms = 1500;
  const CommandResult r =
      run_command(bash(topology(dir, {"--nodes", "1", "--clients", "2", "--strategies", "html,html+zlib", "--repeat",
                                      "4", "--duration", "3s", "--warmup", "200ms", "--keys", "100", "--connections",
                                      "2", "--time-limit", "120"})),
                  o);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(shell_status(r), 130) << r.err;
  static const std::regex header(R"(INTERRUPTED \(SIGINT\) after (\d+) of 8 steps)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, header)) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  const int done = std::stoi(m[1].str());
  EXPECT_EQ(done, 2) << r.out;
  // The merged report holds the finished steps, each with the requests of both clients.
  std::ifstream in(dir / "out" / "merged.json");
  const nlohmann::json merged = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(merged.is_object() && merged.contains("runs")) << r.out;
  int runs = 0;
  for (const nlohmann::json& run : merged["runs"]) {
    EXPECT_GT(run.at("requests").get<uint64_t>(), 0u) << run.at("strategy");
    ++runs;
  }
  EXPECT_EQ(runs, done);
  EXPECT_EQ(merged.at("merged").at("inputs"), 2);
  EXPECT_EQ(count(r.out, std::regex(R"(  client 1  html)")), done) << r.out;
  EXPECT_EQ(count(r.out, std::regex(R"(  client 2  html)")), done) << r.out;
  EXPECT_NE(r.out.find("summary (median"), std::string::npos) << r.out;
  // No client's report of the window the Ctrl-C cut short.
  EXPECT_EQ((r.out + r.err).find("requests      0"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running);
  if (!HasFailure()) fs::remove_all(dir);
}

TEST(Scripts, EveryHelpNamesTheExitCodes) {
  int checked = 0;
  for (const char* script :
       {"run.sh", "scripts/topology.sh", "scripts/profile.sh", "scripts/attribution.sh", "scripts/php-compare.sh",
        "scripts/php-stack.sh", "scripts/recommend-check.sh", "bench/anchor_wrk.sh", "bench/anchor_nginx.sh"}) {
    SCOPED_TRACE(script);
    const CommandResult r = run_command(bash({kSource + "/" + script, "--help"}), in_own_session({}, 30));
    ASSERT_FALSE(r.timed_out) << r.err;
    EXPECT_EQ(shell_status(r), 0) << r.err;
    EXPECT_NE(r.out.find("Exit codes: 0 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("130 interrupted"), std::string::npos) << r.out;
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

// A server that exits at start-up (a store it cannot open): run.sh says so with the server's
// own words and exits 1 at once, not after the 10 s wait for "listening on"; the memcached it
// started is stopped. The build tree is HITCOST_BUILD_DIR's (scripts/lib.sh ensure_built).
TEST(Scripts, RunShStopsAtOnceWhenTheServerExitsAtStartUp) {
  require_tools();
  const fs::path dir = fresh_dir("server-exits");
  fs::create_directories(dir / "build/server");
  fs::create_directories(dir / "build/client");
  const fs::path server = dir / "build/server/hitcost-server", load = dir / "build/client/hitcost-load";
  std::ofstream(server) << "#!/bin/sh\necho 'hitcost-server: cannot open store: planted failure' >&2\nexit 1\n";
  std::ofstream(load) << "#!/bin/sh\nexit 0\n";
  for (const fs::path& p : {server, load}) fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);

  const auto start = std::chrono::steady_clock::now();
  const CommandResult r =
      run_command(bash({kSource + "/run.sh"}),
                  in_own_session({"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + (dir / "build").string(),
                                  "HITCOST_OUT=" + (dir / "out").string()},
                                 30));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(shell_status(r), 1) << r.err;
  EXPECT_NE(r.err.find("run: hitcost-server exited:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot open store: planted failure"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 8.0) << "waited for a server that had exited\n" << r.err;
  EXPECT_TRUE(r.left_running.empty()) << "alive after the script exited:\n" << describe(r.left_running);
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
