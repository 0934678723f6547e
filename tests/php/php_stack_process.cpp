#include "tests/php/php_stack_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hitcost::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<pid_t> parse_pid_list(const std::string& text) {
  std::vector<pid_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(static_cast<pid_t>(std::stol(item)));
  return out;
}

}  // namespace

bool process_running(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!f || !std::getline(f, stat)) return false;
  auto paren = stat.rfind(')');  // the state follows the command name
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

PhpStackProcess::PhpStackProcess(const std::vector<std::string>& args, int time_limit_s) {
  char tmpl[] = "/tmp/hitcost-php-test-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  const std::string out_path = dir_ + "/stdout", err_path = dir_ + "/stderr";
  std::vector<std::string> full = {"/bin/bash", std::string(HITCOST_SOURCE_DIR) + "/scripts/php-stack.sh"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--time-limit");
  full.push_back(std::to_string(time_limit_s));  // a backstop should this test die oddly
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);

  script_pid_ = ::fork();
  if (script_pid_ < 0) throw std::runtime_error("fork failed");
  if (script_pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the test dying stops the stack through its trap
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  // "php stack: http://127.0.0.1:PORT nginx_pid=N fpm_pid=N"
  // "php stack workers: fpm=N[,N] nginx=N"
  static const std::regex first(R"(php stack: http://127\.0\.0\.1:(\d+) nginx_pid=(\d+) fpm_pid=(\d+)\n)");
  static const std::regex second(R"(php stack workers: fpm=([\d,]*) nginx=([\d,]*)\n)");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string out;  // outlives the loop: the matches point into it
  std::smatch a, b;
  for (;;) {
    out = slurp(out_path);
    if (std::regex_search(out, a, first) && std::regex_search(out, b, second)) break;
    bool exited = ::waitpid(script_pid_, nullptr, WNOHANG) == script_pid_;
    if (exited || std::chrono::steady_clock::now() > deadline) {
      if (exited) script_pid_ = -1;
      std::string why = "php-stack.sh did not come up: " + slurp(err_path) + out;
      cleanup();
      throw std::runtime_error(why);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  port_ = std::stoi(a[1]);
  nginx_pid_ = static_cast<pid_t>(std::stol(a[2]));
  fpm_pid_ = static_cast<pid_t>(std::stol(a[3]));
  pids_ = {fpm_pid_};
  for (pid_t p : parse_pid_list(b[1])) pids_.push_back(p);
  pids_.push_back(nginx_pid_);
  for (pid_t p : parse_pid_list(b[2])) pids_.push_back(p);
}

PhpStackProcess::~PhpStackProcess() { cleanup(); }

void PhpStackProcess::cleanup() {
  if (script_pid_ > 0) {
    ::kill(script_pid_, SIGTERM);
    if (!reap(20000)) {
      ::kill(script_pid_, SIGKILL);
      reap(5000);
    }
  }
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
  dir_.clear();
}

std::string PhpStackProcess::stderr_text() const { return slurp(dir_ + "/stderr"); }

bool PhpStackProcess::reap(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (script_pid_ > 0) {
    if (::waitpid(script_pid_, nullptr, WNOHANG) == script_pid_) {
      script_pid_ = -1;
      return true;
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::vector<pid_t> PhpStackProcess::survivors() const {
  std::vector<pid_t> alive;
  for (pid_t p : pids_)
    if (process_running(p)) alive.push_back(p);
  return alive;
}

std::vector<pid_t> PhpStackProcess::stop(int sig, int timeout_ms) {
  if (script_pid_ > 0) ::kill(script_pid_, sig);
  reap(timeout_ms);
  return survivors();
}

std::vector<pid_t> PhpStackProcess::wait_exit(int timeout_ms) {
  reap(timeout_ms);
  return survivors();
}

}  // namespace hitcost::testing
