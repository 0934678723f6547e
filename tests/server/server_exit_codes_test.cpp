// hitcost-server's exit codes, row by row of the README's table (issue 30): 2 for usage (an
// unknown option, a bad value — the message names it —, a CPU that is not online), 1 when it
// cannot start (the port taken, a store or a corpus that cannot be read), 0 on SIGTERM and
// SIGINT. And one server per port: a second server on a taken port exits 1 naming what listens
// there while the first answers alone; with --reuse-port on both, both serve.
// Real hitcost-server processes, real files, real sockets.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus_file.h"
#include "tests/support/command.h"
#include "tests/support/http_client.h"
#include "tests/support/server_process.h"
#include "tests/support/tcp_listener.h"

using namespace hitcost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("hitcost-exit-codes-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A start that must fail: the server's exit code and what it said, within 30 s.
CommandResult start(std::vector<std::string> args) {
  args.insert(args.begin(), server_binary());
  if (std::find(args.begin(), args.end(), "--port") == args.end()) {
    args.push_back("--port");
    args.push_back("0");
  }
  return run_command(args, {.timeout_ms = 30'000});
}

int pid_of_server_answering(int port) { return json::parse(http_get(port, "/stats").body)["pid"]; }

// A corpus of two plain strings (flags 0: they decode as strings), redacted or not.
std::string write_corpus(const std::string& path, bool redacted) {
  auto w = hitcost::corpus::CorpusWriter::create(path);
  EXPECT_TRUE(w);
  EXPECT_TRUE(w->add({"page:1", 0, 0, 0, "one"}));
  EXPECT_TRUE(w->add({"page:2", 0, 0, 0, "two"}));
  hitcost::corpus::Manifest m;
  m.source = "memcached:127.0.0.1:11211";
  m.nodes = {"127.0.0.1:11211"};
  m.redacted = redacted;
  EXPECT_TRUE(w->finish(m));
  return path;
}

}  // namespace

TEST(ServerExitCodes, EveryRowOfTheReadmeTable) {
  TempDir dir;
  const std::string precious = dir.file("precious.txt");
  const std::string text = "someone's notes\nnot a store\n";
  std::ofstream(precious, std::ios::binary) << text;
  const timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, precious.c_str(), past, 0), 0);
  const std::string corrupt = dir.file("cut.hcorpus");
  std::ofstream(corrupt, std::ios::binary) << "HCORPUS1 and then nothing a corpus holds";
  const std::string unredacted = write_corpus(dir.file("values.hcorpus"), false);
  const std::string no_token = dir.file("empty.token");
  std::ofstream(no_token) << "\n";

  struct Row {
    int code;
    std::vector<std::string> args;
    std::string says;  // in stderr: names the bad value or the reason
  };
  const std::vector<Row> rows = {
      // 2: usage — an unknown option, a bad value, a CPU that is not online
      {2, {"--no-such-option"}, "--no-such-option"},
      {2, {"--strategy", "struct:jsn"}, "unknown serializer 'jsn'"},
      {2, {"--strategy", "php-default", "--flags", "native"}, "php-default"},
      {2, {"--flags", "php-memcachd"}, "unknown flag scheme 'php-memcachd'"},
      {2, {"--store", "redis:127.0.0.1:6379"}, "unknown store kind 'redis'"},
      {2, {"--store", "mmap:" + dir.file("a.dat") + "?size=1K"}, "size must be at least 64K"},
      {2, {"--store", "pread:" + dir.file("a.dat") + "?create=maybe"}, "create=maybe is not 0/1"},
      {2, {"--host", "localhost.invalid"}, "--host: not an IP address: 'localhost.invalid'"},
      {2, {"--threads", "0"}, "--threads"},
      {2, {"--inflate", "gzip"}, "unknown inflate library 'gzip' (zlib, libdeflate, isal)"},
      {2, {"--json-decoder", "rapidjson"}, "unknown JSON decoder 'rapidjson'"},
      {2, {"--strategy", "struct:simdjson"}, "--json-decoder"},
      {2, {"--slow-log", "soon"}, "--slow-log: not a duration: 'soon'"},
      {2, {"--slow-log-file", dir.file("slow.log")}, "--slow-log-file needs --slow-log"},
      {2, {"--slow-log", "1ms", "--no-metrics"}, "--slow-log needs the per-part timing"},
      {2, {"--port", "70000"}, "--port"},
      {2, {"--cpus", "4095"}, "CPU 4095 is not online"},
      {2, {"--log-sync", "sometimes"}, "sometimes"},
      {2, {"--admin-remote"}, "--admin-remote needs --admin-token-file or --admin-token"},
      {2, {"--admin-remote", "--admin-token-file", no_token}, "holds no token"},
      {2, {"--admin-token", "x", "--admin-token-file", no_token}, "excludes"},
      {2, {"--host", "0.0.0.0", "--corpus", unredacted}, "is not redacted"},
      {2, {"--strategy", "struct:json+zstd-dict"}, "needs --zstd-dict struct:json=FILE"},
      {2, {"--strategy", "struct:json+zstd-dict", "--zstd-dict", "html=" + precious}, "needs --zstd-dict struct:json"},
      {2, {"--zstd-dict", "struct:yaml=" + precious}, "unknown scope 'struct:yaml'"},
      // 1: could not start — a store that cannot be opened, a corpus that cannot be read, a log
      // that cannot be opened (the port taken: next test)
      {1, {"--store", "mmap:" + precious}, "not a hitcost store file"},
      {1, {"--store", "pread:" + precious + "?create=1"}, "not a hitcost store file"},
      {1, {"--store", "mmap:" + precious, "--store-create"}, "not a hitcost store file"},
      {1, {"--store", "mmap:" + dir.file("new.dat")}, "does not exist; ?create=1"},
      {1, {"--store", "mmap:" + dir.file("no-such-dir/x.dat") + "?create=1"}, "cannot create"},
      {1, {"--corpus", corrupt}, corrupt},
      {1, {"--admin-remote", "--admin-token-file", dir.file("missing.token")}, "missing.token"},
      {1, {"--zstd-dict", precious}, "not a zstd dictionary"},
      {1, {"--zstd-dict", "struct:json=" + dir.file("missing.zdict")}, "missing.zdict"},
      {1, {"--access-log", dir.file("no-such-dir/access.log")}, "--access-log"},
      {1, {"--slow-log", "1ms", "--slow-log-file", dir.file("no-such-dir/slow.log")}, "--slow-log-file"},
  };
  size_t walked = 0;
  for (const Row& row : rows) {
    std::string shown;
    for (const auto& a : row.args) shown += a + " ";
    CommandResult r = start(row.args);
    EXPECT_EQ(r.exit_code, row.code) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find(row.says), std::string::npos) << shown << ": " << r.err;
    EXPECT_EQ(r.out.find("listening on"), std::string::npos) << shown << ": " << r.out;
    ++walked;
  }
  // None of the refused starts touched the file that is not a store file.
  struct stat st {};
  ASSERT_EQ(::stat(precious.c_str(), &st), 0);
  EXPECT_EQ(read_file(precious), text);
  EXPECT_EQ(st.st_size, static_cast<off_t>(text.size()));
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  EXPECT_FALSE(fs::exists(dir.file("new.dat")));

  // 0: stopped cleanly by SIGTERM or SIGINT
  for (int sig : {SIGTERM, SIGINT}) {
    ServerProcess server({"--store", "memory"});
    ASSERT_EQ(http_get(server.port(), "/page/1").status, 200);
    server.signal(sig);
    const int status = server.wait_exit(10'000);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "signal " << sig << ": status " << status;
    ++walked;
  }
  EXPECT_EQ(walked, rows.size() + 2);
  EXPECT_EQ(walked, 38u);
}

// Regression (issue 30): SO_REUSEPORT on every acceptor let a second server start on the port of
// the first; both listened and /stats alternated between two pids.
TEST(ServerPort, SecondServerOnATakenPortExits1AndTheFirstAnswersAlone) {
  ServerProcess first({"--threads", "2"});
  const std::string port = std::to_string(first.port());
  CommandResult second = start({"--port", port});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_NE(second.err.find("127.0.0.1:" + port + " is taken"), std::string::npos) << second.err;
  // What holds it: the first server's pid, from /proc (same user).
  EXPECT_NE(second.err.find("pid " + std::to_string(first.pid()) + " "), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("hitcost-server"), std::string::npos) << second.err;
  // On the wildcard address too: 0.0.0.0 overlaps 127.0.0.1.
  CommandResult wildcard = start({"--port", port, "--host", "0.0.0.0"});
  EXPECT_EQ(wildcard.exit_code, 1) << wildcard.err;
  EXPECT_NE(wildcard.err.find("0.0.0.0:" + port + " is taken"), std::string::npos) << wildcard.err;
  size_t answered = 0;
  for (int i = 0; i < 20; ++i) {  // fresh connections: each could have gone to another listener
    EXPECT_EQ(pid_of_server_answering(first.port()), first.pid()) << "connection " << i;
    ++answered;
  }
  EXPECT_EQ(answered, 20u);
  EXPECT_TRUE(first.alive());
}

// --reuse-port on both: the documented multi-process setup, where the kernel spreads
// connections over the processes.
TEST(ServerPort, ReusePortOnBothStartsBoth) {
  ServerProcess first({"--reuse-port"});
  ServerProcess second({"--port", std::to_string(first.port()), "--reuse-port"});
  EXPECT_EQ(second.port(), first.port());
  std::set<int> pids;
  size_t connections = 0;
  for (int i = 0; i < 200 && pids.size() < 2; ++i) {
    pids.insert(pid_of_server_answering(first.port()));
    ++connections;
  }
  EXPECT_EQ(pids, (std::set<int>{first.pid(), second.pid()})) << "after " << connections << " connections";
  // Without --reuse-port on the newcomer the port is still refused.
  CommandResult third = start({"--port", std::to_string(first.port())});
  EXPECT_EQ(third.exit_code, 1) << third.err;
}

// Beyond loopback a corpus is served only redacted, or when --serve-unredacted says so; on
// loopback always. (0.0.0.0 is bound for a moment; every request still goes to 127.0.0.1.)
TEST(ServerStart, ServesAnUnredactedCorpusBeyondLoopbackOnlyWhenSaid) {
  TempDir dir;
  const std::string unredacted = write_corpus(dir.file("values.hcorpus"), false);
  const std::string redacted = write_corpus(dir.file("redacted.hcorpus"), true);
  size_t served = 0;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--corpus", unredacted},
        std::vector<std::string>{"--host", "0.0.0.0", "--corpus", unredacted, "--serve-unredacted"},
        std::vector<std::string>{"--host", "0.0.0.0", "--corpus", redacted}}) {
    ServerProcess server(args);
    const auto got = http_get(server.port(), "/value/1");
    EXPECT_EQ(got.status, 200);
    EXPECT_NE(got.body.find("two"), std::string::npos) << got.body;
    ++served;
  }
  EXPECT_EQ(served, 3u);
}

// The open-file limit: raised to the hard limit at start and said so (started here with a soft
// limit of 256 under prlimit), so thousands of keep-alive connections need no tuning.
TEST(ServerStart, RaisesItsOpenFileLimitToTheHardLimitAndSaysSo) {
  rlimit ours{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &ours), 0);
  ASSERT_GT(ours.rlim_max, 256u) << "this test needs a hard limit above 256";
  const std::string hard = ours.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(ours.rlim_max);
  ServerProcess server({}, {"prlimit", "--nofile=256:"});
  EXPECT_NE(server.startup_output().find("open files: " + hard + " (raised from 256, the hard limit)"),
            std::string::npos)
      << server.startup_output();
  std::ifstream limits("/proc/" + std::to_string(server.pid()) + "/limits");
  std::string line;
  size_t found = 0;
  while (std::getline(limits, line)) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream cols(line.substr(std::string("Max open files").size()));
    std::string soft, hard_now;
    cols >> soft >> hard_now;
    EXPECT_EQ(soft, hard_now) << line;
    ++found;
  }
  EXPECT_EQ(found, 1u);
}

namespace {

std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

// --check-args (issue 29: the Kubernetes manifests' command lines are checked by the server's
// own parser): a line a start would take prints one line and exits 0, having opened, created,
// bound and resolved nothing — every path below names a file that does not exist (a real start
// would create the store, the logs, or exit 1 on the corpus, token and dictionary), the port is
// held by another socket (a real start exits 1), CPU 4095 is not online here (a real start exits
// 2: that is the pod's machine's question), and the memcached node is a name no resolver knows.
TEST(ServerCheckArgs, ALineAStartWouldTakePrintsArgumentsOkAndTouchesNothing) {
  TempDir dir;
  hitcost::testing::TcpListener held;  // a port another start cannot bind
  ASSERT_GT(held.port, 0);
  const std::vector<std::string> files = {
      "--access-log",
      dir.file("logs.access"),
      "--slow-log",
      "1ms",
      "--slow-log-file",
      dir.file("slow.jsonl"),
      "--corpus",
      dir.file("values.hcorpus"),
      "--admin-remote",
      "--admin-token-file",
      dir.file("token"),
      "--zstd-dict",
      "struct:json=" + dir.file("json.zdict"),
      "--strategy",
      "struct:json+zstd-dict",
      "--host",
      "0.0.0.0",
      "--cpus",
      "4095",
      "--port",
      std::to_string(held.port),
  };
  const std::vector<std::vector<std::string>> stores = {
      {"--store", "mmap:" + dir.file("pages.dat") + "?size=1M", "--store-create"},
      {"--store", "pread:" + dir.file("pages.dat") + "?create=1&sync=each"},
      {"--store", "memcached:no-such-host.invalid:11211,memcached-1.memcached:11211?resolve=all"},
  };
  size_t checked = 0;
  for (const auto& store : stores) {
    std::vector<std::string> args = store;
    args.insert(args.end(), files.begin(), files.end());
    args.push_back("--check-args");
    const CommandResult r = start(args);
    EXPECT_EQ(r.exit_code, 0) << store[1] << "\n" << r.err;
    EXPECT_EQ(r.out, "hitcost-server: arguments ok\n") << store[1];
    EXPECT_EQ(r.err, "") << store[1];
    EXPECT_EQ(entries_of(dir.path), std::vector<std::string>{}) << store[1];
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
  // The same line (but the CPU) without --check-args is a real start, which the first file it
  // reads stops: the line above was judged without reading it.
  std::vector<std::string> real = stores[0];
  real.insert(real.end(), files.begin(), files.end());
  real.erase(std::find(real.begin(), real.end(), "--cpus"), std::find(real.begin(), real.end(), "--port"));
  const CommandResult started = start(real);
  EXPECT_EQ(started.exit_code, 1) << started.err;
  EXPECT_EQ(started.err, "hitcost-server: --admin-token-file " + dir.file("token") + ": No such file or directory\n");
  EXPECT_EQ(entries_of(dir.path), std::vector<std::string>{});
}

// A bad line exits 2 with --check-args, with the very message a start prints: each usage row of
// the exit-code table that the line alone decides, both ways.
TEST(ServerCheckArgs, ABadLineExits2WithTheMessageAStartPrints) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
      {{"--no-such-option"}, "--no-such-option"},
      {{"--strategy", "struct:jsn"}, "hitcost-server: --strategy: "},
      {{"--flags", "php-memcachd"}, "hitcost-server: --flags: unknown flag scheme 'php-memcachd'"},
      {{"--store", "redis:127.0.0.1:6379"},
       "hitcost-server: --store: store spec 'redis:127.0.0.1:6379': unknown store kind 'redis' (want memory, "
       "memcached, mmap or pread)\n"},
      {{"--store", "mmap:" + dir.file("a.dat") + "?size=1K"},
       "hitcost-server: --store: store spec 'mmap:" + dir.file("a.dat") + "?size=1K': size must be at least 64K\n"},
      {{"--store", "memcached:mc:11211?resolve=some"},
       "hitcost-server: --store: store spec 'memcached:mc:11211?resolve=some': resolve must be 'first' "
       "(libmemcached's) or 'all'\n"},
      {{"--host", "localhost.invalid"}, "hitcost-server: --host: not an IP address: 'localhost.invalid'\n"},
      {{"--threads", "0"}, "--threads"},
      {{"--port", "70000"}, "--port"},
      {{"--log-buffer", "lots"}, "hitcost-server: --log-buffer: bad size 'lots'\n"},
      {{"--slow-log-file", dir.file("slow.log")}, "hitcost-server: --slow-log-file needs --slow-log THRESHOLD\n"},
      {{"--admin-remote"}, "hitcost-server: --admin-remote needs --admin-token-file or --admin-token\n"},
      {{"--strategy", "struct:json+zstd-dict"},
       "hitcost-server: --strategy struct:json+zstd-dict needs --zstd-dict struct:json=FILE (or --zstd-dict FILE)\n"},
  };
  size_t checked = 0;
  for (const auto& [args, says] : rows) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    std::vector<std::string> checking = args;
    checking.push_back("--check-args");
    const CommandResult check = start(checking);
    const CommandResult real = start(args);
    EXPECT_EQ(check.exit_code, 2) << shown << check.err;
    EXPECT_EQ(real.exit_code, 2) << shown << real.err;
    EXPECT_EQ(check.out, "") << shown;
    EXPECT_EQ(check.err, real.err) << shown;
    if (says.back() == '\n')
      EXPECT_EQ(check.err, says) << shown;
    else
      EXPECT_NE(check.err.find(says), std::string::npos) << shown << check.err;
    ++checked;
  }
  EXPECT_EQ(checked, 13u);
  EXPECT_EQ(entries_of(dir.path), std::vector<std::string>{});
}
