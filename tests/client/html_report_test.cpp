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

#include "client/report.h"
#include "client/sweep.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// A run of `strategy`: hits around `hit_us`, 5 % misses around 8 ms (two clear peaks).
json synthetic_run(const std::string& strategy, int repeat, double hit_us, double server_cpu_s) {
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
  for (const char* phase : {"fetch", "unwrap", "decode", "render", "write"}) d.phases.push_back({phase, 20000, 20'000'000});
  d.config = {{"strategy", strategy}, {"store", "memory"}};
  r.server = d;
  r.client_cpu_s = 0.2;
  r.system = SystemCpu{3.0, 10.0};  // 1 core of 3.33 busy with other work: contaminated
  r.snapshot_window_s = 3;
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
  for (int rep = 0; rep < 2; ++rep) {
    runs.push_back(synthetic_run("html", rep, 150, 0.4 + 0.01 * rep));
    runs.push_back(synthetic_run("struct:json+zlib", rep, 600, 2.0 + 0.01 * rep));
  }
  json doc = summarize_runs_json(runs);
  doc["runs"] = runs;
  char dir[] = "/tmp/hitcost-html-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string page = std::string(dir) + "/report.html";
  std::string err;
  ASSERT_TRUE(write_html_report(page, {doc}, "sweep <test>", &err)) << err;
  std::ifstream in(page);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const std::string dom = run_capture(
      browser + " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
                " --disable-component-update --disable-sync --user-data-dir=" + std::string(dir) +
      "/profile --dump-dom file://" + page + " 2>/dev/null");
  std::system(("rm -rf " + std::string(dir)).c_str());
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "chromium printed no DOM";

  // The page's script ran, met no error, and found a laid-out box for every chart.
  EXPECT_FALSE(std::regex_search(dom, std::regex("<body[^>]*data-js-error"))) << "a script error was caught";
  const size_t charts = count(source, "<svg class=\"chart\"");
  EXPECT_EQ(charts, 2u + 4u + 4u);  // latency, CPU, then a log2 and a series chart per run
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts-rendered=\"(\\d+)\""))) << "script did not finish";
  EXPECT_EQ(std::stoul(m[1]), charts);

  for (const std::string s : {"html @ memory", "struct:json+zlib @ memory"}) {
    EXPECT_EQ(count(dom, "class=\"lat-bar\" data-strategy=\"" + s + "\""), 5u) << s;  // p50 p90 p99 p99.9 max
    EXPECT_EQ(count(dom, "class=\"cpu-seg\" data-strategy=\"" + s + "\""), 8u) << s;  // 5 phases, other, cache, client
    EXPECT_EQ(count(dom, "data-chart=\"log2\" data-strategy=\"" + s), 2u) << s;     // one per repeat
    EXPECT_GE(count(dom, ">" + s + "</text>"), 2u) << s;                             // axis labels name it
  }
  EXPECT_EQ(count(dom, ">hit peak</text>"), 4u);
  EXPECT_EQ(count(dom, ">miss peak</text>"), 4u);
  EXPECT_NE(dom.find("struct:json+zlib costs"), std::string::npos) << "verdict shown";
  EXPECT_NE(dom.find("closed-loop"), std::string::npos) << "mode in the header";
  EXPECT_NE(dom.find("sweep &lt;test&gt;"), std::string::npos) << "title escaped";
  EXPECT_NE(dom.find("4 of 4 runs contaminated"), std::string::npos);
}
