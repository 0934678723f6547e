// Where each part of a run ran (issue 29, part 2): the run record's "hosts", and every figure read
// from this machine's /proc left out (null beside "local": false) when the process it describes
// is on another host; the admin token sent on admin requests and never shown.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake_http_server.h"
#include "measure/admin_client.h"
#include "measure/floor_request.h"
#include "measure/run_output.h"
#include "proc/proc.h"
#include "report/merge.h"
#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

namespace hitcost::client {
namespace {

using nlohmann::json;
using test::FakeBehavior;
using test::FakeHttpServer;

constexpr const char* kOtherBootId = "00000000-0000-4000-8000-000000000029";

std::string this_hostname() {
  char name[256] = {};
  EXPECT_EQ(::gethostname(name, sizeof name - 1), 0);
  return name;
}

std::string this_boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

LoadPlan plan_for(const FakeHttpServer& s) {
  auto ep = parse_url(s.url());
  EXPECT_TRUE(ep) << ep.error().message;
  LoadPlan p;
  p.endpoint = ep.value();
  p.duration_ns = 300'000'000;
  p.warmup_ns = 50'000'000;
  p.connections = 2;
  p.threads = 1;
  p.keys.keys = 100;
  p.keys.miss_start = 1'000'000;
  return p;
}

RunReport measure(const FakeHttpServer& s) {
  MeasureOptions mo;
  mo.floor = false;  // the fake answers no /admin/calibrate
  mo.idle_ns = 100'000'000;
  return measure_run(plan_for(s), mo, nullptr);
}

// A /stats of hitcost-server on memcached nodes mc-0.mc and mc-1.mc, saying who it is.
std::string stats_of(const json& host, const json& cache_cpus) {
  return json{{"uptime_s", 1},
              {"requests", 0},
              {"cpu", {{"user_s", 0}, {"system_s", 0}}},
              {"config", {{"strategy", "html"}}},
              {"cpus", "0-1"},
              {"host", host},
              {"store",
               {{"describe", "memcached:mc-0.mc:11211,mc-1.mc:11211?timeout_ms=1000&connect_timeout_ms=1000"},
                {"extra", {{"rusage_user_s", 0.5}, {"rusage_system_s", 0.25}, {"nodes", 2}, {"cpus", cache_cpus}}}}}}
      .dump();
}

// Every key of `j` named "local" or "*_local", with its pointer: what the record says of each part.
void local_flags(const json& j, const std::string& at, std::map<std::string, json>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == "local" || k.ends_with("_local")) out[at + "/" + k] = v;
      local_flags(v, at + "/" + k, out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) local_flags(j[i], at + "/" + std::to_string(i), out);
  }
}

TEST(Hosts, ServerOnAnotherHostLeavesEveryFigureOfThisMachinesProcOut) {
  FakeBehavior b;
  b.stats_json = stats_of({{"boot_id", kOtherBootId}, {"hostname", "hitcost-server-0"}, {"pid", 1}, {"start_ticks", 1}},
                          json::array({"unknown", "unknown"}));
  FakeHttpServer s(b);
  const RunReport r = measure(s);
  ASSERT_TRUE(r.server) << r.server_error;
  EXPECT_FALSE(r.server_local);
  const json j = to_json(r);

  EXPECT_EQ(j["hosts"],
            (json{{"client", {{"hostname", this_hostname()}, {"boot_id", this_boot_id()}}},
                  {"server", {{"hostname", "hitcost-server-0"}, {"boot_id", kOtherBootId}, {"local", false}}},
                  {"cache",
                   {{{"node", "mc-0.mc:11211"}, {"on_server_host", false}, {"local", false}},
                    {{"node", "mc-1.mc:11211"}, {"on_server_host", false}, {"local", false}}}}}))
      << j["hosts"].dump();

  // Figures this machine's /proc would give: none, for a server elsewhere.
  const std::vector<std::string> null_figures = {"/cpu/machine_busy_us_per_req/raw",
                                                 "/cpu/machine_busy_us_per_req/net",
                                                 "/cpu/softirq_us_per_req/server_cpus",
                                                 "/cpu/softirq_us_per_req/peer_cpus",
                                                 "/cpu/cpus_busy_us_per_req/server_cpus",
                                                 "/cpu/cpus_busy_us_per_req/peer_cpus",
                                                 "/cpu/contamination/own_cores",
                                                 "/cpu/contamination/other_cores",
                                                 "/cpu/contamination/steal_cores",
                                                 "/cpu/contamination/fraction",
                                                 "/cpu/contamination/kernel_cores",
                                                 "/cpu/contamination/other_server_cores",
                                                 "/cpu/contamination/other_peer_cores",
                                                 "/placement/cache_cpus/0",
                                                 "/placement/cache_cpus/1",
                                                 "/contaminated"};
  size_t nulls = 0;
  for (const std::string& p : null_figures) {
    ASSERT_TRUE(j.contains(json::json_pointer(p))) << p;
    EXPECT_TRUE(j.at(json::json_pointer(p)).is_null()) << p << " = " << j.at(json::json_pointer(p)).dump();
    nulls += j.at(json::json_pointer(p)).is_null();
  }
  EXPECT_EQ(nulls, 16u);

  // Beside them, every flag of the record says where: all false, and these are all of them.
  std::map<std::string, json> flags;
  local_flags(j, "", flags);
  const std::map<std::string, json> want = {
      {"/hosts/server/local", false},           {"/hosts/cache/0/local", false},
      {"/hosts/cache/1/local", false},          {"/placement/server_local", false},
      {"/placement/cache_local", false},        {"/cpu/machine_busy_us_per_req/local", false},
      {"/cpu/softirq_us_per_req/local", false}, {"/cpu/cpus_busy_us_per_req/local", false},
      {"/cpu/contamination/local", false}};
  EXPECT_EQ(flags, want);
  EXPECT_EQ(flags.size(), 9u);

  // What the server says of its own host is kept: its CPUs, its cache's CPU time, the idle rates.
  EXPECT_EQ(j["placement"]["server_cpus"], "0-1");
  EXPECT_EQ(j["cpu"]["contamination"]["state"], "unknown");
  EXPECT_EQ(j["cpu"]["contamination"]["why"],
            "the server runs on another host; its CPU cannot be told apart from other work here");
  ASSERT_TRUE(j["cpu"]["idle_cores"].is_object());
  EXPECT_EQ(j["cpu"]["idle_cores"]["server"], 0.0);  // its /stats did not move

  // The text report: where each part ran, and "not on this host" where "unknown" was.
  const std::string text = format_terminal(r, false);
  EXPECT_NE(text.find("  hosts         client " + this_hostname() +
                      " · server hitcost-server-0 (another host) · cache mc-0.mc:11211, mc-1.mc:11211 (another "
                      "host)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  server cpus 0-1 (on its host, not this one)  cache cpus not on this host, not on this host\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  contamination not on this host: the server runs on another host;"), std::string::npos) << text;
  EXPECT_EQ(text.find("unknown"), std::string::npos) << text;

  // The record reads back as written.
  EXPECT_EQ(json(j.get<RunRecord>())["hosts"], j["hosts"]);
}

TEST(Hosts, LocalServerRecordsThisHostsNameAndItsFigures) {
  const auto self = proc::read_process(::getpid());
  ASSERT_TRUE(self);
  const std::string cpus = proc::format_cpu_list(self->allowed_cpus);
  FakeBehavior b;
  // The fake server is this process: the identity a local hitcost-server gives, its memcached
  // nodes found on its host (a CPU list each).
  b.stats_json = stats_of({{"boot_id", this_boot_id()},
                           {"hostname", this_hostname()},
                           {"pid", ::getpid()},
                           {"start_ticks", self->start_ticks}},
                          json::array({cpus, cpus}));
  FakeHttpServer s(b);
  const RunReport r = measure(s);
  ASSERT_TRUE(r.server) << r.server_error;
  const json j = to_json(r);
  EXPECT_EQ(j["hosts"], (json{{"client", {{"hostname", this_hostname()}, {"boot_id", this_boot_id()}}},
                              {"server", {{"hostname", this_hostname()}, {"boot_id", this_boot_id()}, {"local", true}}},
                              {"cache",
                               {{{"node", "mc-0.mc:11211"}, {"on_server_host", true}, {"local", true}},
                                {{"node", "mc-1.mc:11211"}, {"on_server_host", true}, {"local", true}}}}}))
      << j["hosts"].dump();
  std::map<std::string, json> flags;
  local_flags(j, "", flags);
  EXPECT_EQ(flags.size(), 9u);
  for (const auto& [at, v] : flags) EXPECT_EQ(v, true) << at;
  EXPECT_EQ(j["placement"]["cache_cpus"], json::array({cpus, cpus}));
  // Judged on this machine's CPUs: numbers, not nulls.
  EXPECT_TRUE(j["cpu"]["contamination"]["own_cores"].is_number()) << j["cpu"]["contamination"].dump();
  EXPECT_TRUE(j["cpu"]["machine_busy_us_per_req"]["raw"].is_number()) << j["cpu"].dump();
  const std::string text = format_terminal(r, false);
  EXPECT_NE(text.find("  hosts         client " + this_hostname() + " · server " + this_hostname() +
                      " (this host) · cache mc-0.mc:11211, mc-1.mc:11211 (this host)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  server cpus 0-1  cache cpus " + cpus + " " + cpus + "\n"), std::string::npos) << text;
}

TEST(Hosts, MergeKeepsEveryClientsHostAndTheServersFromItsSource) {
  auto run = [](const std::string& client, uint64_t started) {
    RunRecord r;
    Histogram h;
    h.record(1000);
    r.histogram = histogram_to_json(h);
    r.requests = 1;
    r.duration_s = 1;
    r.started_unix_ns = started;
    r.hosts = HostsRecord{{{client, "boot-" + client}},
                          false,
                          ServerHostRecord{"srv-0", "boot-srv", false},
                          {{"mc-0.mc:11211", true, false}}};
    return r;
  };
  const RunRecord a = run("load-0", 1'800'000'000'000'000'000), b = run("load-1", 1'800'000'000'100'000'000);
  std::vector<std::string> warnings;
  const auto merged = merge_runs({&a, &b}, {"a.json", "b.json"}, &warnings);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(json(*merged)["hosts"],
            (json{{"client",
                   {{{"hostname", "load-0"}, {"boot_id", "boot-load-0"}},
                    {{"hostname", "load-1"}, {"boot_id", "boot-load-1"}}}},
                  {"server", {{"hostname", "srv-0"}, {"boot_id", "boot-srv"}, {"local", false}}},
                  {"cache", {{{"node", "mc-0.mc:11211"}, {"on_server_host", true}, {"local", false}}}}}));
  // A merged record merged again keeps the list, flattened.
  RunRecord c = run("load-2", 1'800'000'000'200'000'000);
  const auto again = merge_runs({&*merged, &c}, {"m.json", "c.json"}, &warnings);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(json(*again)["hosts"]["client"].size(), 3u);
  EXPECT_EQ(json(*again)["hosts"]["client"][2]["hostname"], "load-2");
}

TEST(Hosts, MemcachedNodesAreTheStoresDescribe) {
  EXPECT_EQ(memcached_nodes("memcached:mc-0.mc:11211,10.0.0.5:11211?timeout_ms=100&binary=1"),
            (std::vector<std::string>{"mc-0.mc:11211", "10.0.0.5:11211"}));
  EXPECT_EQ(memcached_nodes("memcached:127.0.0.1:11211"), (std::vector<std::string>{"127.0.0.1:11211"}));
  EXPECT_TRUE(memcached_nodes("mmap:/tmp/x").empty());
}

// One connection at a time on a free loopback port: each request's head kept, answered "{}".
class CapturingListener {
 public:
  CapturingListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CapturingListener() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> heads() {
    std::lock_guard lk(mu_);
    return heads_;
  }

 private:
  void serve() {
    for (;;) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string raw;
      char buf[4096];
      while (raw.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        raw.append(buf, size_t(n));
      }
      {
        std::lock_guard lk(mu_);
        heads_.push_back(raw.substr(0, raw.find("\r\n\r\n") + 2));
      }
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
      (void)!::write(c, answer.data(), answer.size());
      ::close(c);
    }
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::mutex mu_;
  std::vector<std::string> heads_;
  std::thread thread_;
};

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(AdminToken, SentOnAdminRoutesOnlyAsBearer) {
  CapturingListener l;
  auto ep = parse_url(l.url());
  ASSERT_TRUE(ep);
  set_admin_token("tok-29-secret");
  LoadPlan plan;
  plan.endpoint = *ep;
  plan.keys.keys = 10;
  const auto floor = calibrate_floor(plan);  // POST /admin/calibrate
  ASSERT_TRUE(floor) << floor.error().message;
  ASSERT_TRUE(http_ok_body(*ep, "POST", "/admin/config", "{}"));
  ASSERT_TRUE(http_ok_body(*ep, "GET", "/stats"));
  set_admin_token("");
  ASSERT_TRUE(http_ok_body(*ep, "POST", "/admin/config", "{}"));
  const std::vector<std::string> heads = l.heads();
  ASSERT_EQ(heads.size(), 4u);
  EXPECT_EQ(heads[0].rfind("POST /admin/calibrate?", 0), 0u) << heads[0];
  EXPECT_EQ(count_of(heads[0], "\r\nAuthorization: Bearer tok-29-secret\r\n"), 1u) << heads[0];
  EXPECT_EQ(count_of(heads[1], "\r\nAuthorization: Bearer tok-29-secret\r\n"), 1u) << heads[1];
  EXPECT_EQ(count_of(heads[2], "Authorization"), 0u) << heads[2];  // GET /stats is not an admin route
  EXPECT_EQ(count_of(heads[3], "Authorization"), 0u) << heads[3];  // none set
}

TEST(AdminToken, FileIsItsFirstLineTrimmed) {
  const auto dir = testing::fresh_dir("hosts", "token");
  const std::string good = (dir / "good").string(), empty = (dir / "empty").string(),
                    missing = (dir / "missing").string();
  std::ofstream(good) << "  tok-29 \t\nsecond line\n";
  std::ofstream(empty) << " \n";
  const auto t = read_admin_token(good);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(*t, "tok-29");
  const auto e = read_admin_token(empty);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, Errc::invalid_argument);
  EXPECT_EQ(e.error().message, "--admin-token-file " + empty + " is empty");
  const auto m = read_admin_token(missing);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, Errc::io_error);
  EXPECT_EQ(m.error().message, "cannot read --admin-token-file " + missing + ": No such file or directory");
}

using testing::CommandResult;
using testing::run_command;

std::string show(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

TEST(AdminToken, CommandLineReadsItOnceAtStartAndNotWithCheckArgs) {
  const auto dir = testing::fresh_dir("hosts", "token-cli");
  const std::string empty = (dir / "empty").string(), missing = (dir / "missing").string();
  std::ofstream(empty) << "\n";
  const std::vector<std::string> line = {testing::load_binary(), "--url", "http://127.0.0.1:9", "-d", "1s"};
  auto with = [&](std::vector<std::string> extra, std::vector<std::string> env = {}) {
    std::vector<std::string> argv = line;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv, {.timeout_ms = 30'000, .env = std::move(env)});
  };
  CommandResult r = with({"--admin-token-file", missing});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_EQ(r.err, "hitcost-load: cannot read --admin-token-file " + missing + ": No such file or directory\n");
  r = with({"--admin-token-file", empty});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_EQ(r.err, "hitcost-load: --admin-token-file " + empty + " is empty\n");
  // The Kubernetes Job's variable is the default; a sweep reads it too.
  r = with({}, {"HITCOST_ADMIN_TOKEN_FILE=" + missing});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find(missing), std::string::npos) << show(r);
  r = run_command({testing::load_binary(), "sweep", "--url", "http://127.0.0.1:9", "--strategies", "html",
                   "--admin-token-file", empty},
                  {.timeout_ms = 30'000});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_EQ(r.err, "hitcost-load: --admin-token-file " + empty + " is empty\n");
  // --check-args reads nothing.
  r = with({"--check-args", "--admin-token-file", missing});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "hitcost-load: arguments ok\n");
}

// A real hitcost-server in a pid and UTS namespace of its own (another "host" as far as this
// machine's /proc can tell: its pid and start time are not ours), on a memcached it cannot see.
TEST(Hosts, RealServerInAnotherPidNamespaceIsNotOnThisHost) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for unshare --pid --uts";
  testing::MemcachedProcess mc;
  testing::ServerProcess s({"--store", "memcached:" + mc.address(), "--rows", "5"},
                           {"unshare", "--pid", "--fork", "--mount-proc", "--uts", "--kill-child", "sh", "-c",
                            "hostname hitcost-server-ns && exec \"$@\"", "sh"});
  const auto dir = testing::fresh_dir("hosts", "real");
  const std::string out = (dir / "run.json").string(), token = (dir / "token").string();
  std::ofstream(token) << "tok-29-never-shown\n";
  const CommandResult r = run_command(
      {testing::load_binary(), "--url", "http://127.0.0.1:" + std::to_string(s.port()), "-d", "300ms", "--warmup",
       "100ms", "--idle", "100ms", "-c", "2", "--keys", "50", "--json", out, "--admin-token-file", token},
      {.timeout_ms = 60'000});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::ifstream in(out);
  const json j = json::parse(in);
  EXPECT_EQ(j["hosts"]["server"],
            (json{{"hostname", "hitcost-server-ns"}, {"boot_id", this_boot_id()}, {"local", false}}));
  EXPECT_EQ(j["hosts"]["client"], (json{{"hostname", this_hostname()}, {"boot_id", this_boot_id()}}));
  EXPECT_EQ(j["hosts"]["cache"],
            (json::array({{{"node", mc.address()}, {"on_server_host", false}, {"local", false}}})));
  EXPECT_EQ(j["placement"]["cache_cpus"], json::array({nullptr}));
  std::map<std::string, json> flags;
  local_flags(j, "", flags);
  EXPECT_EQ(flags.size(), 8u);  // one cache node
  for (const auto& [at, v] : flags) EXPECT_EQ(v, false) << at;
  EXPECT_TRUE(j["cpu"]["contamination"]["own_cores"].is_null());
  EXPECT_TRUE(j["cpu"]["machine_busy_us_per_req"]["raw"].is_null());
  EXPECT_TRUE(j["contaminated"].is_null());
  // The floor was calibrated (a loopback peer needs no token, and one was sent: never shown).
  EXPECT_TRUE(j["floor"].is_object()) << j.value("floor_error", std::string());
  std::ifstream again(out);
  const std::string saved((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  for (const std::string* text : {&r.out, &r.err, &saved})
    EXPECT_EQ(text->find("tok-29-never-shown"), std::string::npos) << *text;
  EXPECT_NE(r.out.find("  hosts         client " + this_hostname() +
                       " · server hitcost-server-ns (another host) · cache " + mc.address() + " (another host)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cache cpus not on this host\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace hitcost::client
