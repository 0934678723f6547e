// The terminal report's CPU block on a made-up measurement whose figures are known: every line
// says raw or net and shows what it says, and a figure that cannot be right is marked.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "measure/run_output.h"
#include "proc/proc.h"

using namespace hitcost::client;

namespace {

// /proc/stat of two CPUs in 100 Hz ticks: user and softirq of each.
hitcost::proc::MachineCpu machine(int u0, int si0, int u1, int si1) {
  auto line = [](const char* name, int u, int si) {
    return std::string(name) + " " + std::to_string(u) + " 0 0 1000 0 0 " + std::to_string(si) + " 0 0 0\n";
  };
  return *hitcost::proc::parse_machine_cpu(
      line("cpu", u0 + u1, si0 + si1) + line("cpu0", u0, si0) + line("cpu1", u1, si1), 100.0);
}

// `requests` over 2 s; the server alone on CPU 0 with `server_cpu_s`, cache and client on CPU 1;
// an idle baseline of 1 s before it.
RunReport measurement(uint64_t requests, double server_cpu_s, double idle_server_cpu_s) {
  RunReport r;
  r.load.requests = r.load.ok = requests;
  r.load.window_s = 2;
  r.snapshot_window_s = 2;
  ServerDelta d;
  d.requests = d.pages = d.hits = requests;
  d.cpu_s = server_cpu_s;
  d.cache_cpu_s = 0.2;
  d.server_cpus = nlohmann::json::array({"0"});
  d.cache_cpus = nlohmann::json::array({"1"});
  d.sampled_hit.whole_samples = 100;
  d.sampled_hit.whole_weight = double(requests);
  d.sampled_hit.whole_cpu_ns = server_cpu_s * 1e9;
  r.server = d;
  r.server_local = r.cache_local = true;
  r.client_cpus = {1};
  r.client_cpu_s = 0.3;
  // CPU 0 busy as the server; CPU 1 as the cache and the client; 0.1 s of softirq on CPU 0.
  r.machine = machine(std::max(0, int(server_cpu_s * 100) - 10), 10, 50, 0);
  r.idle = IdleBaseline{1.0, idle_server_cpu_s, 0.001, 0.001, machine(int(idle_server_cpu_s * 100), 0, 0, 0)};
  return r;
}

// The line of the terminal report that starts with `start` (after its indent).
std::string line_of(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(start) != std::string::npos) return l;
  return "";
}

}  // namespace

// 10 000 requests, server 0.5 s (50 µs/req), 0.05 cores idle: 0.1 s off over the 2 s window.
// The raw line shows raw figures (the CPUs' busy time with idle included: 100 µs/req), the net
// line net ones (90 µs/req).
TEST(Report, RawLineShowsRawFiguresAndTheNetLineNetOnes) {
  const std::string text = format_terminal(measurement(10000, 0.5, 0.05), false);
  const std::string net = line_of(text, "CPU us/req"), raw = line_of(text, "raw (");
  ASSERT_FALSE(net.empty()) << text;
  ASSERT_FALSE(raw.empty()) << text;
  EXPECT_NE(net.find("net of idle"), std::string::npos) << net;
  EXPECT_NE(net.find("server 40.00"), std::string::npos) << net;  // 50 − 10 µs/req of idle
  EXPECT_NE(raw.find("server 50.00"), std::string::npos) << raw;
  EXPECT_NE(raw.find("busy 100.00"), std::string::npos) << "raw CPU busy time, idle included: " << raw;
  EXPECT_NE(net.find("busy 90.00"), std::string::npos) << "net: " << net;
  EXPECT_EQ(text.find("(!"), std::string::npos) << "nothing to flag:\n" << text;
  // The headline and the per-miss line name their accounting.
  EXPECT_NE(line_of(text, "CPU per hit").find("net of idle, sender-pays"), std::string::npos) << text;
}

// 20 requests (an open loop at 10 req/s) under the same idle: net figures below zero. Each is
// marked where it stands and explained once at the end of the block.
TEST(Report, FiguresThatCannotBeRightAreMarkedAndExplained) {
  const std::string text = format_terminal(measurement(20, 0.01, 0.05), false);
  const std::string net = line_of(text, "CPU us/req");
  // server: 500 µs/req raw, 5000 of idle off: −4500, marked.
  EXPECT_TRUE(std::regex_search(net, std::regex(R"(server -4500\.00 \(!(\d+)\))"))) << net;
  const std::string hit = line_of(text, "CPU per hit");
  EXPECT_TRUE(std::regex_search(hit, std::regex(R"(server -4500\.00 \(!\d+\) us)"))) << hit;
  // Every mark has its line, naming the figure in the run JSON and why.
  size_t marks = 0;
  const std::regex mark(R"(\(!(\d+)\))");
  for (std::sregex_iterator it(text.begin(), text.end(), mark), end; it != end; ++it) {
    const std::string k = (*it)[1];
    EXPECT_NE(text.find("FLAGGED (!" + k + ")  /"), std::string::npos) << k << "\n" << text;
    ++marks;
  }
  EXPECT_GE(marks, 3u) << text;
  EXPECT_NE(text.find("/cpu/per_request_us/net/server: -4500 us/req, below zero: the idle baseline taken off (5000) is "
                      "above the run's own raw 500"),
            std::string::npos)
      << text;
}
