// The topology a user runs to spread load over several memcached nodes and several clients:
// docker-compose.yml (validated without an engine) and scripts/topology.sh (the same shape as
// plain processes), driven end to end with short durations.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cpu_flags_check.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using namespace hitcost::testing;

const std::string kSource = HITCOST_SOURCE_DIR;
const std::string kBinary = HITCOST_BINARY_DIR;

struct Output {
  int status = -1;  // exit code, or -1
  std::string text;
};

// Runs a shell command line, capturing stdout+stderr.
Output run(const std::string& cmd) {
  Output o;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.text.append(buf, n);
  const int st = ::pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

bool have(const std::string& tool) { return run("command -v " + tool + " >/dev/null").status == 0; }

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json read_json(const fs::path& p) { return json::parse(read_file(p)); }

// true when something accepts TCP connections on 127.0.0.1:port
bool port_open(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// Ports the script announced on stderr: "== memcached I on 127.0.0.1:P", "== hitcost-server at http://127.0.0.1:P".
std::vector<int> announced_ports(const std::string& log) {
  std::vector<int> ports;
  static const std::regex re(R"((?:memcached \d+ on |hitcost-server at http://)127\.0\.0\.1:(\d+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    ports.push_back(std::stoi((*it)[1].str()));
  return ports;
}

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("topology", name); }

std::string topology_command(const fs::path& out, const std::string& args) {
  return "env HITCOST_NO_BUILD=1 HITCOST_BUILD_DIR='" + kBinary + "' '" + kSource + "/scripts/topology.sh' --out '" +
         out.string() + "' " + args;
}

TEST(Compose, ConfigValidatesWithThreeNodesAndTheServerOnAllOfThem) {
  ASSERT_TRUE(have("docker-compose")) << "docker-compose (Debian package docker-compose) is not installed"
                                      << " (scripts/install-deps.sh installs it)";
  const std::string file = kSource + "/docker-compose.yml";
  const Output quiet = run("docker-compose -f '" + file + "' config -q");
  ASSERT_EQ(quiet.status, 0) << quiet.text;

  const Output config = run("docker-compose -f '" + file + "' config");
  ASSERT_EQ(config.status, 0) << config.text;
  const std::string& c = config.text;
  // One scaled memcached service; the server takes every address the name `mc` has.
  int memcached_services = 0;
  static const std::regex service(R"(\n  (mc\d*):\n)");
  for (auto it = std::sregex_iterator(c.begin(), c.end(), service); it != std::sregex_iterator(); ++it)
    ++memcached_services;
  EXPECT_EQ(memcached_services, 1) << c;
  EXPECT_NE(c.find("scale: 3\n"), std::string::npos) << c;
  EXPECT_NE(c.find("memcached:mc:11211?resolve=all"), std::string::npos) << c;
  // The server waits for healthy nodes; the load waits for a healthy server, in its netns.
  EXPECT_NE(c.find("condition: service_healthy"), std::string::npos);
  EXPECT_NE(c.find("/healthz"), std::string::npos);
  EXPECT_NE(c.find("network_mode: service:server"), std::string::npos);
  EXPECT_NE(c.find("- load"), std::string::npos) << "the load service is behind the 'load' profile";
  EXPECT_NE(c.find(":/out"), std::string::npos) << "the load writes into a mounted folder";
  EXPECT_NE(c.find("--host"), std::string::npos) << "the server must listen beyond loopback";
  EXPECT_EQ(c.find("ports:"), std::string::npos) << "the port is in docker-compose.override.yml\n" << c;

  // Without -f compose adds docker-compose.override.yml: the server on the host's loopback only.
  const Output defaults = run("cd '" + kSource + "' && HITCOST_PORT=9139 docker-compose config");
  ASSERT_EQ(defaults.status, 0) << defaults.text;
  EXPECT_NE(defaults.text.find("127.0.0.1:9139:8080"), std::string::npos) << defaults.text;
}

TEST(Compose, HostOverridePutsEveryServiceOnTheHostNetworkWithDistinctNodePorts) {
  ASSERT_TRUE(have("docker-compose")) << "docker-compose is not installed"
                                      << " (scripts/install-deps.sh installs it)";
  const Output config = run("HITCOST_PORT=9138 HITCOST_HOST_NODES=127.0.0.1:31001,127.0.0.1:31002 docker-compose -f '" +
                            kSource + "/docker-compose.yml' -f '" + kSource + "/docker-compose.host.yml' config");
  ASSERT_EQ(config.status, 0) << config.text;
  const std::string& c = config.text;
  int host_mode = 0;
  for (std::size_t at = c.find("network_mode: host"); at != std::string::npos;
       at = c.find("network_mode: host", at + 1))
    ++host_mode;
  EXPECT_EQ(host_mode, 2) << "mc and server on the host network (load joins the server's)\n" << c;
  EXPECT_NE(c.find("memcached:127.0.0.1:31001,127.0.0.1:31002"), std::string::npos) << c;
  EXPECT_NE(c.find("HITCOST_URL: http://127.0.0.1:9138"), std::string::npos) << c;
  EXPECT_NE(c.find("scale: 1\n"), std::string::npos) << "one container holds every host-mode node\n" << c;
  EXPECT_EQ(c.find("ports:"), std::string::npos) << "the host network cannot publish ports\n" << c;
}

TEST(Compose, NodeAndClientCountsComeFromTheEnvironment) {
  ASSERT_TRUE(have("docker-compose")) << "docker-compose is not installed";
  const Output config =
      run("HITCOST_NODES=5 HITCOST_LOAD_CLIENTS=2 docker-compose -f '" + kSource + "/docker-compose.yml' config");
  ASSERT_EQ(config.status, 0) << config.text;
  EXPECT_NE(config.text.find("scale: 5\n"), std::string::npos) << config.text;
  EXPECT_NE(config.text.find("HITCOST_LOAD_CLIENTS: '2'"), std::string::npos) << config.text;
}

TEST(Compose, EnvironmentVariablesOverrideTheDefaults) {
  ASSERT_TRUE(have("docker-compose")) << "docker-compose is not installed"
                                      << " (scripts/install-deps.sh installs it)";
  const Output config =
      run("MEMCACHED_MEMORY_MB=9137 HITCOST_STRATEGY=struct:msgpack+zlib HITCOST_SERVER_THREADS=3 "
          "HITCOST_SWEEP_ARGS='--repeat 5' docker-compose -f '" +
          kSource + "/docker-compose.yml' config");
  ASSERT_EQ(config.status, 0) << config.text;
  EXPECT_NE(config.text.find("'9137'"), std::string::npos) << config.text;
  EXPECT_NE(config.text.find("struct:msgpack+zlib"), std::string::npos);
  EXPECT_NE(config.text.find("--repeat 5"), std::string::npos);
}

// The image's build context is an allow-list (.dockerignore: "*", then "!path" per entry). A
// folder the build needs and the list lacks (cmake/ once) fails only in the containers stage,
// after the engine and the base image; here the same context is copied out and configured the
// way the Dockerfile does, and every path the Dockerfile copies out of it must be in it.
TEST(Compose, BuildContextHoldsWhatTheImageBuildReads) {
  std::ifstream ignore(kSource + "/.dockerignore");
  ASSERT_TRUE(ignore) << ".dockerignore is missing";
  const fs::path context = fresh_dir("docker-context");
  std::vector<std::string> patterns;
  for (std::string line; std::getline(ignore, line);)
    if (!line.empty() && line[0] != '#') patterns.push_back(line);
  ASSERT_FALSE(patterns.empty());
  ASSERT_EQ(patterns.front(), "*") << "the context is an allow-list: '*' first, then '!path' lines";
  int copied = 0;
  for (std::size_t i = 1; i < patterns.size(); ++i) {
    ASSERT_EQ(patterns[i][0], '!') << "only '!path' lines after '*': " << patterns[i];
    const std::string path = patterns[i].substr(1);
    ASSERT_TRUE(fs::exists(kSource + "/" + path)) << ".dockerignore lets in " << path << ", which does not exist";
    fs::create_directories((context / path).parent_path());
    fs::copy(kSource + "/" + path, context / path, fs::copy_options::recursive);
    ++copied;
  }
  EXPECT_GE(copied, 10) << "the sources of three programs are more than a few paths";

  // Configured as the Dockerfile's RUN does (tests and benchmarks off).
  const Output configure = run("cmake -S '" + context.string() + "' -B '" + (context / "build").string() +
                               "' -DCMAKE_BUILD_TYPE=Release -DHITCOST_BUILD_TESTS=OFF -DHITCOST_BUILD_BENCH=OFF");
  EXPECT_EQ(configure.status, 0) << "the Docker build context does not configure:\n" << configure.text;

  // Every source path of a `cp` in the Dockerfile's RUN lines (docker/..., scripts/...).
  std::string dockerfile;  // without its comment lines, which name paths of the repository
  std::istringstream lines(read_file(kSource + "/Dockerfile"));
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(' ') != std::string::npos && line[line.find_first_not_of(' ')] != '#')
      dockerfile += line + "\n";
  static const std::regex copied_path(R"(\b((?:docker|scripts)/[A-Za-z0-9_.-]+))");
  int paths = 0;
  for (auto it = std::sregex_iterator(dockerfile.begin(), dockerfile.end(), copied_path); it != std::sregex_iterator();
       ++it, ++paths)
    EXPECT_TRUE(fs::exists(context / (*it)[1].str())) << "the Dockerfile copies " << (*it)[1] << ", not in the context";
  EXPECT_GE(paths, 5) << "the Dockerfile copies the load service's scripts";
}

TEST(Topology, ThreeNodesTwoClientsRunASweepAndMergeIntoOneReport) {
  for (const char* tool : {"memcached", "curl", "jq"})
    ASSERT_TRUE(have(tool)) << tool << " is not installed"
                            << " (scripts/install-deps.sh installs it)";
  const fs::path out = fresh_dir("sweep");
  const Output r = run(topology_command(out,
                                        "--nodes 3 --clients 2 --strategies html,struct:json+zlib "
                                        "--duration 1s --warmup 300ms --keys 300 --connections 4 "
                                        "--time-limit 240"));
  ASSERT_EQ(r.status, 0) << r.text;
  std::printf("%s\n", r.text.c_str());  // the report, for the test log

  const json merged = read_json(out / "merged.json");
  const json c1 = read_json(out / "client-1.json"), c2 = read_json(out / "client-2.json");
  ASSERT_EQ(merged.at("runs").size(), 2u);
  for (const auto& [name, doc] : {std::pair{"merged.json", &merged}, {"client-1.json", &c1}, {"client-2.json", &c2}})
    EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(*doc, name), 2u) << name;
  ASSERT_EQ(c1.at("runs").size(), 2u);
  ASSERT_EQ(c2.at("runs").size(), 2u);
  EXPECT_EQ(merged.at("merged").at("inputs"), 2);
  for (size_t i = 0; i < 2; ++i) {
    const json& m = merged["runs"][i];
    const json &a = c1["runs"][i], &b = c2["runs"][i];
    ASSERT_EQ(m.at("strategy"), a.at("strategy"));
    ASSERT_EQ(m.at("strategy"), b.at("strategy"));
    const uint64_t ra = a.at("requests"), rb = b.at("requests"), rm = m.at("requests");
    EXPECT_GT(ra, 0u);
    EXPECT_GT(rb, 0u);
    EXPECT_EQ(rm, ra + rb) << m.at("strategy");
    EXPECT_EQ(m.at("latency_us").at("count"),
              a.at("latency_us").at("count").get<uint64_t>() + b.at("latency_us").at("count").get<uint64_t>());
    EXPECT_EQ(a.at("errors").at("total"), 0) << a.at("errors");
    EXPECT_EQ(b.at("errors").at("total"), 0) << b.at("errors");
    EXPECT_EQ(m.at("errors").at("total"), 0);
    EXPECT_GT(m.at("hit_ratio").get<double>(), 0.9);
    // One load start for both (--start-at, the same wall time in each client's record): their
    // windows are one, not two that overlap by luck. Measured here: 0.99-1.00 of 1 s windows.
    ASSERT_TRUE(a.contains("start_at") && b.contains("start_at")) << "no --start-at in a client's run";
    EXPECT_EQ(a.at("start_at").at("unix_ns"), b.at("start_at").at("unix_ns"));
    EXPECT_GT(m.at("merged").at("overlap_fraction").get<double>(), 0.9) << m.at("merged").dump();
    // One floor, client 1's, in the merged run; client 2 asked none. Both idle baselines taken
    // before the load, so neither saw the other's pages.
    EXPECT_TRUE(a.at("floor").is_object()) << a.value("floor_error", std::string());
    EXPECT_FALSE(b.contains("floor")) << "client 2 calibrated the floor too";
    EXPECT_TRUE(m.at("floor").is_object()) << "the merged run lost client 1's floor";
    for (const json* x : {&a, &b}) {
      EXPECT_FALSE(x->contains("idle_error")) << x->value("idle_error", std::string());
      EXPECT_TRUE(x->at("cpu").contains("idle_cores")) << "no idle baseline";
    }
  }
  EXPECT_EQ(merged["runs"][0]["strategy"], "html");
  EXPECT_EQ(merged["runs"][1]["strategy"], "struct:json+zlib");
  EXPECT_EQ(merged.at("summary").size(), 2u);
  EXPECT_TRUE(fs::file_size(out / "merged.html") > 1000);

  // The issue this guards: two CPU figures side by side ("79.84 and 79.23 µs/req") with nothing
  // saying which is raw and which net of idle, nor under which attribution. Each column says
  // it, the attribution comes from the runs' own cpu.attribution, one per run row.
  const std::string attribution = merged["runs"][0].at("cpu").at("attribution").get<std::string>();
  EXPECT_EQ(attribution, "sender-pays");
  int labelled = 0;
  for (const char* label :
       {"srv_us/hit net", "srv_us/req raw", "srv_us/req net", "mc_us/req raw", "attribution", "server us/hit net",
        "server us/req net", "cache us/req net", "CPU net of idle, sender-pays", "raw: as measured over the window"}) {
    EXPECT_NE(r.text.find(label), std::string::npos) << label << "\n" << r.text;
    ++labelled;
  }
  EXPECT_EQ(labelled, 10);
  std::istringstream report(r.text);
  int run_rows = 0;
  for (std::string row; std::getline(report, row);)
    if ((row.rfind("  html ", 0) == 0 || row.rfind("  struct:json+zlib ", 0) == 0) &&
        row.find("sender-pays") != std::string::npos)
      ++run_rows;
  EXPECT_EQ(run_rows, 2) << r.text;

  // Keys spread over every node: each one holds items (consistent hashing, 300 keys x 2 steps).
  std::istringstream nodes(read_file(out / "nodes.txt"));
  std::string line;
  std::getline(nodes, line);  // header
  int node_lines = 0;
  while (std::getline(nodes, line)) {
    std::istringstream f(line);
    std::string addr;
    uint64_t curr_items = 0;
    f >> addr >> curr_items;
    EXPECT_GT(curr_items, 30u) << line;
    ++node_lines;
  }
  EXPECT_EQ(node_lines, 3);

  // Everything it started is gone.
  const std::vector<int> ports = announced_ports(r.text);
  EXPECT_EQ(ports.size(), 4u) << r.text;
  for (int p : ports) EXPECT_FALSE(port_open(p)) << "port " << p << " still open after the script exited";
  if (!HasFailure()) fs::remove_all(out);
}

TEST(Topology, InterruptStopsEverythingItStarted) {
  for (const char* tool : {"memcached", "curl", "jq"})
    ASSERT_TRUE(have(tool)) << tool << " is not installed"
                            << " (scripts/install-deps.sh installs it)";
  const fs::path out = fresh_dir("sigint");
  const fs::path log = out.string() + ".log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = "exec " +
                            topology_command(out,
                                             "--nodes 2 --clients 2 --strategies html --duration 30s "
                                             "--warmup 100ms --keys 100 --connections 2") +
                            " >'" + log.string() + "' 2>&1";
    ::execl("/bin/bash", "bash", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until the clients are loading (step 1 announced), then Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (read_file(log).find("== step 1/1") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::string before = read_file(log);
  ASSERT_NE(before.find("== step 1/1"), std::string::npos) << before;
  const std::vector<int> ports = announced_ports(before);
  ASSERT_EQ(ports.size(), 3u) << before;
  for (int p : ports) EXPECT_TRUE(port_open(p)) << p;
  ::kill(pid, SIGINT);

  int status = 0;
  const auto stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < stop_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL() << "topology.sh did not stop within 20 s of SIGINT:\n" << read_file(log);
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(log);
  for (int p : ports) EXPECT_FALSE(port_open(p)) << "port " << p << " still open after Ctrl-C";
  // The clients were loading the server: their processes must be gone too.
  // ([/] keeps the pattern from matching the shell that runs pgrep.)
  const Output clients = run("pgrep -f -- '" + out.string() + "[/]runs[/]' || true");
  EXPECT_EQ(clients.text, "") << "hitcost-load processes left behind";
  if (!HasFailure()) {
    fs::remove_all(out);
    fs::remove(log);
  }
}

}  // namespace
