// scripts/php-compare.sh end to end: memcached, hitcost-server and the PHP stack started by the
// script, one short round per backend, `hitcost-load compare`'s table and JSON; every process
// the script announced is gone when it ends, by itself or on Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/php/php_stack_process.h"
#include "tests/support/cpu_flags_check.h"
#include "tests/support/fresh_dir.h"

namespace {

namespace fs = std::filesystem;
using hitcost::testing::process_running;

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("php-compare", name); }

// Runs the script in the background with output to `log`; returns its pid.
pid_t start_script(const fs::path& out, const fs::path& log, const std::string& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string cmd = "exec env HITCOST_NO_BUILD=1 HITCOST_BUILD_DIR='" + std::string(HITCOST_BINARY_DIR) +
                            "' HITCOST_OUT='" + out.string() + "' '" + HITCOST_SOURCE_DIR +
                            "/scripts/php-compare.sh' " + args + " >'" + log.string() + "' 2>&1";
    ::execl("/bin/bash", "bash", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Exit status of `pid`, or -1 when it has not ended within `seconds` (it is then killed).
int wait_for(pid_t pid, int seconds) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Every pid the script announced: memcached, hitcost-server, php-fpm and nginx with workers.
std::vector<pid_t> announced_pids(const std::string& log) {
  std::vector<pid_t> pids;
  static const std::regex re(R"((?:\(pid |php-fpm |nginx |workers )(\d+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    pids.push_back(pid_t(std::stoi((*it)[1].str())));
  return pids;
}

}  // namespace

TEST(PhpCompare, BothBackendsPerStrategyAndNothingLeftBehind) {
  const fs::path out = fresh_dir("run"), log = out / "script.log";
  const pid_t pid = start_script(out, log, "--rounds 1 --duration 500ms --keys 50 --strategies html,php-default");
  const int rc = wait_for(pid, 240);
  const std::string text = read_file(log);
  ASSERT_EQ(rc, 0) << text;
  const std::vector<pid_t> pids = announced_pids(text);
  ASSERT_GE(pids.size(), 6u) << "memcached, hitcost-server, php-fpm + a worker, nginx + a worker:\n" << text;
  for (pid_t p : pids) EXPECT_FALSE(process_running(p)) << "pid " << p << " left running";
  EXPECT_NE(text.find("backend"), std::string::npos) << text;

  const auto doc = nlohmann::json::parse(read_file(out / "php-compare" / "compare.json"));
  EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(doc, "compare.json"), 4u);
  int rows = 0;
  for (const auto& row : doc.at("summary")) {
    EXPECT_TRUE(row.at("store") == "html" || row.at("store") == "php-default") << row.dump();
    EXPECT_TRUE(row.at("strategy") == "c++" || row.at("strategy") == "php") << row.dump();
    EXPECT_EQ(row.at("runs"), 1) << row.dump();
    ++rows;
  }
  EXPECT_EQ(rows, 4);
  int php_runs = 0, runs = 0;
  for (const auto& run : doc.at("runs")) {
    ++runs;
    EXPECT_EQ(run.at("errors").at("total"), 0) << run.at("strategy") << " " << run.at("sweep_store");
    EXPECT_DOUBLE_EQ(run.at("hit_ratio").get<double>(), 1.0);
    EXPECT_GT(run.at("server_cpu_us_per_hit").get<double>(), 0.0);
    const std::string backend = run.at("server").at("backend");
    if (run.at("strategy") == "php") {
      ++php_runs;
      EXPECT_EQ(backend.rfind("processes: tree ", 0), 0u) << backend;
      EXPECT_GT(run.at("cache_cpu_us_per_req").get<double>(), 0.0) << "memcached's CPU from its pid";
    } else {
      EXPECT_EQ(backend, "hitcost-server");
    }
  }
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(php_runs, 2);
  if (!HasFailure()) fs::remove_all(out);
}

TEST(PhpCompare, InterruptStopsEverythingItStarted) {
  const fs::path out = fresh_dir("sigint"), log = out / "script.log";
  const pid_t pid = start_script(out, log, "--rounds 3 --duration 10s --keys 50 --strategies html");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (read_file(log).find("== round 1") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // inside the first sweep
  const std::string before = read_file(log);
  ASSERT_NE(before.find("== round 1"), std::string::npos) << before;
  const std::vector<pid_t> pids = announced_pids(before);
  ASSERT_GE(pids.size(), 6u) << before;
  for (pid_t p : pids) EXPECT_TRUE(process_running(p)) << p;
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_for(pid, 30), 130) << read_file(log);
  for (pid_t p : pids) EXPECT_FALSE(process_running(p)) << "pid " << p << " left running after Ctrl-C";
  if (!HasFailure()) fs::remove_all(out);
}
