// The HTML report as a browser sees it: built from synthetic run JSONs, loaded by headless
// Chromium (--dump-dom runs the page's script), then the charts are counted in the DOM.
#include "client/html_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>

#include "client/files.h"
#include "client/report.h"
#include "client/summary.h"
#include "proc/proc.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// A run of `strategy`: hits around `hit_us`, 5 % misses around 8 ms (two clear peaks).
json synthetic_run(const std::string& strategy, int repeat, double hit_us, double server_cpu_s,
                   bool contaminated = false) {
  RunReport r;
  r.connections = 16;
  r.threads = 2;
  r.cpus = {1};
  r.warmup_s = 1;
  r.sweep_store = "memory";
  r.repeat_index = repeat;
  std::mt19937_64 rng(uint64_t(repeat) * 31 + strategy.size());
  std::normal_distribution<double> hit(hit_us * 1000, hit_us * 100), miss(8e6, 5e5);
  for (int i = 0; i < 20000; ++i) {
    const bool is_miss = i % 20 == 0;
    const uint64_t v = uint64_t(std::max(1000.0, is_miss ? miss(rng) : hit(rng)));
    r.load.latency.record(v);
    r.load.service.record(v);
    (is_miss ? r.load.miss : r.load.hit).record(v);
    SeriesPoint& pt = r.load.series.at(0, uint64_t(i) * 150'000);
    ++pt.requests;
    pt.latency.record(v);
  }
  r.load.requests = r.load.ok = 20000;
  r.load.window_s = 3;
  ServerDelta d;
  d.requests = d.pages = 20000;
  d.hits = 19000;
  d.misses = 1000;
  d.cpu_s = server_cpu_s;
  d.cache_cpu_s = 0.1;
  for (const char* phase : {"fetch", "unwrap", "decode", "render", "write", "log"})
    d.phases.push_back({phase, 20000, 20'000'000});
  d.config = {{"strategy", strategy}, {"store", "memory"}};
  d.server_cpus = json::array({"0"});
  d.cache_cpus = json::array({"1"});
  // The server sampled 1000 hits: its CPU per hit is server_cpu_s spread over the requests,
  // split over the parts; wall is CPU plus a wait in fetch.
  const double per_hit_ns = server_cpu_s / 20000 * 1e9;
  d.sampled_hit.samples = 1000;
  d.sampled_hit.weight = 16000;
  d.sampled_hit.cpu_ns = per_hit_ns * 16000;
  const std::pair<const char*, double> parts[] = {{"receive", 0.1}, {"fetch", 0.2}, {"unwrap", 0.1}, {"decode", 0.3},
                                                  {"render", 0.1},  {"write", 0.1}, {"log", 0.05},   {"other", 0.05}};
  for (auto [part, share] : parts) {
    d.sampled_hit.parts_cpu_ns.emplace_back(part, per_hit_ns * share * 16000);
    const bool in_handler = std::string(part) != "receive" && std::string(part) != "other";
    d.sampled_hit.parts_wall_ns.emplace_back(
        part, in_handler ? (per_hit_ns * share + (std::string(part) == "fetch" ? 30'000 : 0)) * 16000 : 0.0);
  }
  r.server = d;
  r.server_local = r.cache_local = true;
  r.client_cpus = {1};
  r.client_cpu_s = 0.2;
  r.snapshot_window_s = 3;
  // /proc/stat over the window: exactly our own CPU, or a whole core more (contaminated).
  const auto ticks = [](double s) { return std::to_string(std::llround(s * 100)); };
  const double cpu1 = 0.1 + 0.2 + (contaminated ? 3.0 : 0.0);
  r.machine =
      *hitcost::proc::parse_machine_cpu("cpu 0 0 0 0 0 0 0 0 0 0\ncpu0 " + ticks(server_cpu_s) +
                                            " 0 0 100 0 0 0 0 0 0\ncpu1 " + ticks(cpu1) + " 0 0 100 0 0 0 0 0 0\n",
                                        100.0);
  json j = to_json(r);
  j["strategy"] = strategy;
  j["sweep_store"] = "memory";
  return j;
}

std::string chromium() {
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(c, X_OK) == 0) return c;
  return "";
}

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(HtmlReport, IsSelfContained) {
  json runs = json::array({synthetic_run("html", 0, 150, 0.4)});
  const std::string html = html_report({json{{"runs", runs}}}, "t");
  EXPECT_EQ(html.find("http://"), std::string::npos) << "no external assets";
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
}

TEST(HtmlReport, RendersEveryChartInHeadlessChromium) {
  const std::string browser = chromium();
  // scripts/install-deps.sh installs chromium: a missing browser is a failed check, not a skip.
  ASSERT_FALSE(browser.empty()) << "chromium not installed (apt-get install chromium)";
  json runs = json::array();
  constexpr int kRepeats = 5;
  for (int rep = 0; rep < kRepeats; ++rep) {
    runs.push_back(synthetic_run("html", rep, 150, 0.4 + 0.01 * rep, rep == 4));  // one run contaminated
    runs.push_back(synthetic_run("struct:json+zlib", rep, 600, 2.0 + 0.01 * rep));
  }
  json doc = summarize_runs_json(runs);
  doc["runs"] = runs;
  char dir[] = "/tmp/hitcost-html-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string page = std::string(dir) + "/report.html";
  const auto written = write_output(page, html_report({doc}, "sweep <test>"));
  ASSERT_TRUE(written) << written.error().message;
  std::ifstream in(page);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const std::string dom =
      run_capture(browser +
                  " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
                  " --disable-component-update --disable-sync --user-data-dir=" +
                  std::string(dir) + "/profile --dump-dom file://" + page + " 2>/dev/null");
  std::system(("rm -rf " + std::string(dir)).c_str());
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "chromium printed no DOM";

  // The page's script ran, met no error, and found a laid-out box for every chart.
  EXPECT_FALSE(std::regex_search(dom, std::regex("<body[^>]*data-js-error"))) << "a script error was caught";
  const size_t charts = count(source, "<svg class=\"chart\"");
  EXPECT_EQ(charts, 2u + 2u * 2 * kRepeats);  // latency, phases, then a log2 and a series chart per run
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts-rendered=\"(\\d+)\""))) << "script did not finish";
  EXPECT_EQ(std::stoul(m[1]), charts);

  for (const std::string s : {"html @ memory", "struct:json+zlib @ memory"}) {
    EXPECT_EQ(count(dom, "class=\"lat-bar\" data-strategy=\"" + s + "\""), 5u) << s;  // p50 p90 p99 p99.9 max
    // CPU: receive, 6 phases (the access log's line the last), other; wall: the 6 phases
    EXPECT_EQ(count(dom, "class=\"phase-seg\" data-kind=\"cpu\" data-strategy=\"" + s + "\""), 8u) << s;
    EXPECT_EQ(count(dom, "class=\"phase-seg\" data-kind=\"wall\" data-strategy=\"" + s + "\""), 6u) << s;
    // fetch waits 30 µs for the store; no other phase waits
    EXPECT_EQ(count(dom, "class=\"phase-seg\" data-kind=\"wait\" data-strategy=\"" + s + "\" data-part=\"fetch\""), 1u)
        << s;
    EXPECT_EQ(count(dom, "class=\"phase-seg\" data-kind=\"wait\" data-strategy=\"" + s + "\""), 1u) << s;
    EXPECT_EQ(count(dom, "data-chart=\"log2\" data-strategy=\"" + s), size_t(kRepeats)) << s;  // one per repeat
    EXPECT_GE(count(dom, ">" + s + "</text>"), 2u) << s;                                       // axis labels name it
  }
  EXPECT_EQ(count(dom, ">hit peak</text>"), size_t(2 * kRepeats));
  EXPECT_EQ(count(dom, ">miss peak</text>"), size_t(2 * kRepeats));
  // 2.0..2.04 s against 0.40..0.43 s (the contaminated 0.44 left out): about 4.9×, with its interval.
  EXPECT_TRUE(std::regex_search(dom, std::regex("struct:json\\+zlib costs 4\\.[89][0-9]\u00d7 html \\[")))
      << "verdict shown";
  EXPECT_NE(dom.find("closed-loop"), std::string::npos) << "mode in the header";
  EXPECT_NE(dom.find("closed loop (queueing at saturation"), std::string::npos) << "latency chart says closed loop";
  EXPECT_NE(dom.find("sweep &lt;test&gt;"), std::string::npos) << "title escaped";
  EXPECT_NE(dom.find("1 of 10 runs contaminated"), std::string::npos);
  EXPECT_NE(dom.find("<td>4/5</td>"), std::string::npos) << "the contaminated run is left out of html's figures";
  // Waiting is wall − CPU, unclamped: fetch waits 30 µs in every strategy.
  EXPECT_EQ(count(dom, "<td>fetch</td>"), 2u);
  EXPECT_EQ(count(dom, "<td>+30.00</td>"), 2u);
}
