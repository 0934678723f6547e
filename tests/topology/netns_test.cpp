// Hosts that are not loopback, on one machine (issue 29, parts 4 and 5): scripts/netns.sh's
// namespaces, links and faults measured from inside them, scripts/netns-fault.sh's run with a
// memcached host cut off, slowed and healed, and scripts/topology.sh --netns. Every test counts
// what is left afterwards: namespaces of the run's prefix and processes of its session.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using namespace hitcost::testing;

const std::string kSource = HITCOST_SOURCE_DIR;
const std::string kBinary = HITCOST_BINARY_DIR;

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("netns", name); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Namespaces whose name starts with `prefix` + "-" (ip netns list).
int namespaces_named(const std::string& prefix) {
  const CommandResult r = run_command({"ip", "netns", "list"});
  int n = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix + "-", 0) == 0) ++n;
  return n;
}

// Interfaces in this (the test's own) network namespace: the runs must add none.
int own_interfaces() {
  const CommandResult r = run_command({"ip", "-o", "link", "show"});
  int n = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) ++n;
  return n;
}

// "key=value" lines of a script's stdout.
std::map<std::string, std::string> key_values(const std::string& out) {
  std::map<std::string, std::string> kv;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.find(' ') > eq) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

// The run's prefix, from netns/placement.txt's first column ("hc123-sw ...").
std::string prefix_of(const fs::path& placement) {
  const std::string text = read_file(placement);
  const auto dash = text.find('-');
  return dash == std::string::npos ? "" : text.substr(0, dash);
}

CommandOptions script_options(int timeout_ms) {
  CommandOptions o;
  o.timeout_ms = timeout_ms;
  o.own_session = true;
  o.grace_ms = 2000;
  o.env = {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary};
  return o;
}

// The library itself: two hosts, their round trip at 200 µs, then cut (no echo), healed (echo
// again), 5 ms slower; the switch's counters; the cleanup at exit removes both namespaces and
// the switch's.
TEST(NetnsLib, LinksCarryTheAskedRoundTripAndTheFaultVerbsActOnThem) {
  const fs::path dir = fresh_dir("lib");
  const int interfaces_before = own_interfaces();
  const std::string script =
      "set -euo pipefail; cd '" + kSource +
      "'; source scripts/lib.sh; source scripts/netns.sh; lib_init netns-lib-test\n"
      "netns_check; netns_init '" +
      dir.string() +
      "'; netns_shape 0 0 0\n"
      "netns_host a; netns_host b\n"
      "netns_rtt a b 20; echo unshaped_min_us=$NETNS_RTT_MIN_US\n"
      "netns_shape 200us 0 0\n"
      "echo prefix=$NETNS_PREFIX; echo namespaces=$(netns_leftovers)\n"
      "echo own_interfaces=$(ip -o link show | wc -l)\n"
      "netns_rtt a b 20; echo rtt_min_us=$NETNS_RTT_MIN_US; echo rtt_answered=$NETNS_RTT_ANSWERED\n"
      "netns_fault cut b; if netns_rtt a b 3 2>/dev/null; then echo cut_answered=1; else echo cut_answered=0; fi\n"
      "netns_fault heal b; netns_rtt a b 5; echo healed_min_us=$NETNS_RTT_MIN_US\n"
      "netns_fault delay b 5ms; netns_rtt a b 5; echo delayed_min_us=$NETNS_RTT_MIN_US\n"
      "netns_fault heal b; netns_counters '" +
      (dir / "counters.txt").string() + "'; echo done=1\n";
  const CommandResult r = run_command({"bash", "-c", script}, script_options(60'000));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto kv = key_values(r.out);
  ASSERT_EQ(kv["done"], "1") << r.out << r.err;
  const std::string prefix = kv["prefix"];
  ASSERT_TRUE(std::regex_match(prefix, std::regex("hc[0-9]+"))) << prefix;
  EXPECT_EQ(kv["namespaces"], "3") << "a, b and the switch's";
  EXPECT_EQ(std::stoi(kv["own_interfaces"]), interfaces_before) << "the host's own namespace got an interface";
  EXPECT_EQ(kv["rtt_answered"], "20");
  EXPECT_GE(std::stoi(kv["rtt_min_us"]), 200) << "the round trip is at least the one asked";
  // The emulation's own cost (the switch in user space, Perl's ICMP) is in both: the shaping
  // adds the 200 us asked; half of it is the bound (two minima of 20 echoes on a busy machine).
  EXPECT_GE(std::stoi(kv["rtt_min_us"]) - std::stoi(kv["unshaped_min_us"]), 100)
      << "unshaped " << kv["unshaped_min_us"];
  EXPECT_LT(std::stoi(kv["rtt_min_us"]), 20'000) << "a round trip of 200 us measured as more than 20 ms";
  EXPECT_EQ(kv["cut_answered"], "0") << "an echo crossed a cut link";
  EXPECT_GE(std::stoi(kv["healed_min_us"]), 200);
  EXPECT_GE(std::stoi(kv["delayed_min_us"]), 5200) << "5 ms added to a 200 us round trip";
  // The switch counted the cut's drops on b's port, and forwarded the rest.
  const std::string counters = read_file(dir / "counters.txt");
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(counters, m, std::regex(R"(port p2 delay_us 50 .* tx (\d+) drop_loss 0 drop_cut (\d+))")))
      << counters;
  EXPECT_GE(std::stoi(m[1].str()), 20);
  EXPECT_GE(std::stoi(m[2].str()), 1) << "no packet dropped while b was cut";
  // Nothing left: the namespaces, the switch, the host's interfaces as before.
  EXPECT_EQ(namespaces_named(prefix), 0);
  EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
  EXPECT_EQ(own_interfaces(), interfaces_before);
}

// What the library needs and this machine lacks is named, with exit 1: here perl, hidden by a
// PATH that has everything else the check and lib.sh use.
TEST(NetnsLib, AMissingToolIsNamed) {
  const fs::path bin = fresh_dir("no-perl-bin");
  int linked = 0;
  for (const char* tool : {"bash", "ip", "taskset", "id", "sed", "cat", "dirname", "basename", "rm", "mkdir", "awk",
                           "seq", "sleep", "grep", "tr", "mktemp"}) {
    const CommandResult where = run_command({"bash", "-c", std::string("command -v ") + tool});
    std::string path = where.out.substr(0, where.out.find('\n'));
    if (path.empty()) continue;
    fs::create_symlink(path, bin / tool);
    ++linked;
  }
  ASSERT_GE(linked, 14);
  CommandOptions o = script_options(20'000);
  o.env.push_back("PATH=" + bin.string());
  const CommandResult r = run_command({(bin / "bash").string(), "-c",
                                       "cd '" + kSource +
                                           "' && source scripts/lib.sh && source scripts/netns.sh && "
                                           "lib_init netns-check-test && netns_check"},
                                      o);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("needs: perl"), std::string::npos) << r.err;
}

json fault_report(const fs::path& out) { return json::parse(read_file(out / "fault-report.json")); }

// Part 5: mc1 cut off for 3 s, then 5 ms slower for 2 s, then healed, during one run. The server
// answers every request (misses from the origin while mc1 is cut), its store errors are counted
// by kind, and the hits come back within 5 s of the cut's end.
TEST(NetnsFaults, CutDelayHealKeepsTheServerAnsweringAndHitsReturn) {
  const fs::path out = fresh_dir("fault");
  const int interfaces_before = own_interfaces();
  const CommandResult r = run_command(
      {kSource + "/scripts/netns-fault.sh", "--out", out.string(), "--nodes", "2", "--rtt", "200us", "--before", "2",
       "--cut", "3", "--delay", "2", "--after", "3", "--recover-within", "5", "--time-limit", "120"},
      script_options(150'000));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json rep = fault_report(out);

  // Every check ran and held.
  ASSERT_EQ(rep["checks"].size(), 6u) << rep["checks"].dump(2);
  int held = 0;
  for (const auto& c : rep["checks"]) {
    EXPECT_TRUE(c["ok"].get<bool>()) << c["what"];
    held += c["ok"].get<bool>() ? 1 : 0;
  }
  EXPECT_EQ(held, 6);

  // The faults in order, by the script's clock, inside the window.
  ASSERT_EQ(rep["faults"].size(), 3u) << rep["faults"].dump();
  EXPECT_EQ(rep["faults"][0]["verb"], "cut");
  EXPECT_EQ(rep["faults"][1]["verb"], "delay");
  EXPECT_EQ(rep["faults"][1]["extra"], "5ms");
  EXPECT_EQ(rep["faults"][2]["verb"], "heal");
  const double cut_at = rep["faults"][0]["t"], delay_at = rep["faults"][1]["t"], heal_at = rep["faults"][2]["t"];
  EXPECT_GT(cut_at, 1.5);
  EXPECT_NEAR(delay_at - cut_at, 3.0, 0.5);
  EXPECT_NEAR(heal_at - delay_at, 2.0, 0.5);

  // The windows marked in the series: seconds wholly inside the cut, inside the delay, after.
  std::map<std::string, int> seconds;
  for (const auto& s : rep["series"]) seconds[s["window"].get<std::string>()]++;
  EXPECT_GE(seconds["before"], 1);
  EXPECT_GE(seconds["cut"], 1);
  EXPECT_GE(seconds["healed"], 1);
  EXPECT_GE(rep["series"].size(), 9u);

  // Figures: all hits before, fewer while cut, back within 5 s; errors counted by kind.
  EXPECT_GE(rep["pre_fault_hit_ratio"].get<double>(), 0.95);
  EXPECT_LT(rep["cut_min_hit_ratio"].get<double>(), 0.9 * rep["pre_fault_hit_ratio"].get<double>());
  EXPECT_LE(rep["hits_back_after_cut_s"].get<double>(), 5.0);
  EXPECT_EQ(rep["client_errors"]["total"], 0);
  ASSERT_TRUE(rep["store_errors_by_kind"].is_object());
  long by_kind = 0;
  for (const auto& [kind, n] : rep["store_errors_by_kind"].items()) by_kind += n.get<long>();
  EXPECT_GT(by_kind, 0) << rep["store_errors_by_kind"].dump();

  // The report prints the marked series and the checks.
  EXPECT_NE(r.out.find("per second"), std::string::npos);
  EXPECT_NE(r.out.find(" cut "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;

  const std::string prefix = prefix_of(out / "netns" / "placement.txt");
  ASSERT_FALSE(prefix.empty());
  EXPECT_EQ(namespaces_named(prefix), 0);
  EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
  EXPECT_EQ(own_interfaces(), interfaces_before);
}

// SIGTERM in the middle of the cut: exit 130, and nothing of the run left, not even the
// namespaces of a fault in progress.
TEST(NetnsFaults, InterruptedDuringTheCutLeavesNothing) {
  const fs::path out = fresh_dir("fault-interrupted");
  CommandOptions o = script_options(60'000);
  o.signal = SIGTERM;
  o.signal_after_output = "mc1 cut off";
  o.signal_after_ms = 300;
  const CommandResult r = run_command({kSource + "/scripts/netns-fault.sh", "--out", out.string(), "--before", "1",
                                       "--cut", "5", "--delay", "1", "--after", "1"},
                                      o);
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  EXPECT_NE(r.err.find("mc1 cut off"), std::string::npos) << r.err;
  const std::string prefix = prefix_of(out / "netns" / "placement.txt");
  ASSERT_FALSE(prefix.empty());
  EXPECT_EQ(namespaces_named(prefix), 0);
  EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
}

// Part 4's done-when: topology.sh --netns --rtt 200us across four namespaces (2 memcached
// nodes, the server, 1 client), 2 strategies, 1 s runs, each step also on loopback: 0 errors on
// both sides, the two side by side, the round trip measured at 200 us or more, nothing left.
TEST(NetnsTopology, SweepAcrossFourNamespacesWithRtt200usHasNoErrorsAndSitsBesideLoopback) {
  const fs::path out = fresh_dir("topology");
  const int interfaces_before = own_interfaces();
  const CommandResult r = run_command(
      {kSource + "/scripts/topology.sh", "--netns", "--rtt", "200us", "--nodes", "2", "--clients", "1", "--strategies",
       "html,struct:json", "--duration", "1s", "--warmup", "0.5s", "--out", out.string(), "--time-limit", "150"},
      script_options(180'000));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  // Four host namespaces (and the switch's), each process in its own.
  std::map<std::string, int> hosts;
  std::istringstream placement(read_file(out / "netns" / "placement.txt"));
  for (std::string line; std::getline(placement, line);) {
    const std::string ns = line.substr(0, line.find(' '));
    const std::string host = ns.substr(ns.find('-') + 1);
    if (host != "sw") hosts[host]++;
  }
  EXPECT_EQ(hosts.size(), 4u) << read_file(out / "netns" / "placement.txt");
  for (const char* h : {"mc1", "mc2", "server", "c1"}) EXPECT_GE(hosts[h], 1) << h;

  // Both sides ran both strategies with no error: the namespaces' runs over 198.18.0.0/15,
  // the loopback side's over 127.0.0.1.
  const json netns = json::parse(read_file(out / "merged.json"));
  const json loopback = json::parse(read_file(out / "loopback" / "merged.json"));
  int checked = 0;
  for (const auto* side : {&netns, &loopback}) {
    ASSERT_EQ((*side)["runs"].size(), 2u);
    for (const auto& run : (*side)["runs"]) {
      EXPECT_EQ(run["errors"]["total"], 0) << run["strategy"];
      EXPECT_GT(run["requests"].get<long>(), 100) << run["strategy"];
      EXPECT_TRUE(run["server_cpu_us_per_hit"].is_number()) << run["strategy"];
      const std::string url = run["url"];
      EXPECT_EQ(url.rfind(side == &netns ? "http://198.18." : "http://127.0.0.1:", 0), 0u) << url;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4);

  // The round trip between two namespaces, measured: at least the one asked.
  const std::string rtt = read_file(out / "netns" / "rtt.txt");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      rtt, m, std::regex(R"(asked 200us measured_min_us (\d+) measured_median_us (\d+) answered 20)")))
      << rtt;
  EXPECT_GE(std::stoi(m[1].str()), 200);

  // The report sets the two sides side by side, one row per strategy.
  EXPECT_NE(r.out.find("network namespaces (rtt 200us) against loopback"), std::string::npos) << r.out;
  const std::string compare = read_file(out / "compare.txt");
  EXPECT_NE(compare.find("srv_us/hit netns"), std::string::npos) << compare;
  EXPECT_TRUE(std::regex_search(compare, std::regex(R"(\n\s*html\s+1\+1\s+0\+0\s)"))) << compare;
  EXPECT_TRUE(std::regex_search(compare, std::regex(R"(\n\s*struct:json\s+1\+1\s+0\+0\s)"))) << compare;

  const std::string prefix = prefix_of(out / "netns" / "placement.txt");
  ASSERT_FALSE(prefix.empty());
  EXPECT_EQ(namespaces_named(prefix), 0);
  EXPECT_TRUE(r.left_running.empty()) << describe(r.left_running);
  EXPECT_EQ(own_interfaces(), interfaces_before);
}

}  // namespace
