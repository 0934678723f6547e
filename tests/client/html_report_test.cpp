// The HTML report as a browser sees it: built from synthetic run JSONs, loaded by headless
// Chromium (--dump-dom runs the page's script), then the charts are counted in the DOM.
#include "report/html_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>

#include "measure/run_output.h"
#include "proc/proc.h"
#include "report/files.h"
#include "report/summary.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// What else a synthetic run may have: an idle baseline (server cores; above the run's own CPU
// its net figures go below zero), another store, a log mode (longer labels).
struct Extra {
  double idle_server_cores = 0;
  std::string store = "memory", log_mode;
};
Extra idle(double server_cores) {
  Extra x;
  x.idle_server_cores = server_cores;
  return x;
}

// A run of `strategy`: hits around `hit_us`, 5 % misses around 8 ms (two clear peaks).
json synthetic_run(const std::string& strategy, int repeat, double hit_us, double server_cpu_s,
                   bool contaminated = false, const Extra& x = {}) {
  RunReport r;
  r.connections = 16;
  r.threads = 2;
  r.cpus = {1};
  r.warmup_s = 1;
  r.sweep_store = x.store;
  if (!x.log_mode.empty()) r.axes["log"] = x.log_mode;
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
    ++(is_miss ? pt.misses : pt.hits);
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
  d.config = {{"strategy", strategy}, {"store", x.store}};
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
  if (x.idle_server_cores > 0) r.idle = IdleBaseline{1.0, x.idle_server_cores, 0.001, 0.001, std::nullopt};
  json j = to_json(r);
  j["strategy"] = strategy;
  j["sweep_store"] = x.store;
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

// The page as headless Chromium leaves it after its scripts ran (--dump-dom), in a window of
// 1400 × 1000 px; a screenshot of `shot_height` px too when `shot` is given.
std::string rendered_dom(const std::string& browser, const std::string& dir, const std::string& page,
                         const std::string& shot = "", int shot_height = 0) {
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --hide-scrollbars --user-data-dir=" +
      dir + "/profile";
  if (!shot.empty())
    run_capture(browser + flags + " --window-size=1400," + std::to_string(shot_height) + " --screenshot=" + shot +
                " file://" + page + " 2>/dev/null");
  return run_capture(browser + flags + " --window-size=1400,1000 --dump-dom file://" + page + " 2>/dev/null");
}

// A page written to a fresh directory; the directory goes when the test ends.
struct Page {
  std::string dir, path;
  explicit Page(const std::string& html) {
    char d[] = "/tmp/hitcost-html-XXXXXX";
    if (::mkdtemp(d)) dir = d;
    path = dir + "/report.html";
    const auto written = write_output(path, html);
    EXPECT_TRUE(written) << written.error().message;
  }
  ~Page() { std::system(("rm -rf " + dir).c_str()); }
};

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

// The per-second chart draws the hit ratio (X-Cache's hits and misses per second) and, for a
// replayed trace, the ratio the trace recorded in the same seconds; the table names the replay.
TEST(HtmlReport, AReplaysSeriesDrawsItsHitRatioBesideTheTracesOwn) {
  json run = synthetic_run("html", 0, 150, 0.4);
  for (json& point : run["series"]) point["hits"] = 0, point["misses"] = 0;
  const std::string plain = html_report({json{{"runs", json::array({run})}}}, "t");
  EXPECT_EQ(plain.find("series-hit-ratio"), std::string::npos);  // no second tagged hit or miss
  EXPECT_EQ(plain.find("<th>replay</th>"), std::string::npos);
  size_t seconds = 0;
  for (json& point : run["series"]) point["hits"] = 90, point["misses"] = 10, ++seconds;
  ASSERT_GT(seconds, 0u);
  run["replay"] = {{"trace", "t.hctrace"},
                   {"speed", 0.5},
                   {"keys", 7},
                   {"route", "/value/{n}"},
                   {"values_corpus", "v.hcorpus"},
                   {"recorded_found_per_s", json::array({80})},
                   {"recorded_not_found_per_s", json::array({20})}};
  const std::string html = html_report({json{{"runs", json::array({run})}}}, "t");
  // 0.9 and 0.8 on the chart's 120-pixel scale from y 150: 42.0 and 54.0.
  const size_t replayed = html.find("class=\"series-hit-ratio\""), recorded = html.find("series-recorded-hit-ratio");
  ASSERT_NE(replayed, std::string::npos);
  ASSERT_NE(recorded, std::string::npos);
  const std::string replayed_points = html.substr(replayed, html.find("/>", replayed) - replayed);
  const std::string recorded_points = html.substr(recorded, html.find("/>", recorded) - recorded);
  EXPECT_NE(replayed_points.find(",42.0 "), std::string::npos) << replayed_points;
  EXPECT_EQ(replayed_points.find(",54.0 "), std::string::npos) << replayed_points;
  EXPECT_NE(recorded_points.find(",54.0 "), std::string::npos) << recorded_points;
  EXPECT_NE(html.find("<th>replay</th><td>trace t.hctrace at 0.5x its pace, 7 keys as /value/{n} of v.hcorpus"),
            std::string::npos);
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
  }
  for (const std::string s : {"html", "struct:json+zlib"})  // under the latency and the phase bars
    EXPECT_GE(count(dom, ">" + s + "</text>"), 2u) << s;
  EXPECT_EQ(count(dom, "<p class=\"note\">Store: memory.</p>"), 2u) << "one store: named under the two charts";
  EXPECT_EQ(count(dom, ">hit peak</text>"), size_t(2 * kRepeats));
  EXPECT_EQ(count(dom, ">miss peak</text>"), size_t(2 * kRepeats));
  // 2.0..2.04 s against 0.40..0.44 s, paired by round: about 4.8×, with its interval.
  EXPECT_TRUE(std::regex_search(dom, std::regex("struct:json\\+zlib costs 4\\.[89][0-9]\u00d7 html \\[")))
      << "verdict shown";
  EXPECT_NE(dom.find("closed-loop"), std::string::npos) << "mode in the header";
  EXPECT_NE(dom.find("closed loop (queueing at saturation"), std::string::npos) << "latency chart says closed loop";
  EXPECT_NE(dom.find("sweep &lt;test&gt;"), std::string::npos) << "title escaped";
  EXPECT_NE(dom.find("1 of 10 runs contaminated"), std::string::npos);
  // A core of other work on the peers' CPU moves CPU per hit by at most 30 % (report/noise.h): the
  // run keeps its CPU figures, and leaves req/s, which it moves one for one.
  EXPECT_NE(dom.find("<td>5/5</td>"), std::string::npos) << "the contaminated run keeps html's CPU figures";
  EXPECT_EQ(count(dom, " (4)</td>"), 1u) << "and leaves html's req/s only";
  // Waiting is wall − CPU, unclamped: fetch waits 30 µs in every strategy.
  EXPECT_EQ(count(dom, "<td>fetch</td>"), 2u);
  EXPECT_EQ(count(dom, "<td>+30.00</td>"), 2u);
}

namespace {

// Visible text of a page: scripts, styles and tags out (attributes hold coordinates).
std::string visible_text(std::string html) {
  html = std::regex_replace(html, std::regex("<script>[\\s\\S]*?</script>|<style>[\\s\\S]*?</style>"), " ");
  return std::regex_replace(html, std::regex("<[^>]*>"), " ");
}

// Significant digits of a decimal number as written ("0.0123" → 3, "48.125" → 5).
size_t significant_digits(std::string n) {
  n.erase(std::remove(n.begin(), n.end(), '.'), n.end());
  n.erase(0, n.find_first_not_of("-0"));
  return n.size();
}

// A sweep of two strategies, five rounds each; `x` for every run.
json sweep_doc(const Extra& x = {}, const std::vector<std::string>& order = {}) {
  json runs = json::array();
  for (int rep = 0; rep < 5; ++rep) {
    Extra e = x;
    e.idle_server_cores *= 1 + 0.01 * rep;  // a baseline of its own per run, as measured
    runs.push_back(synthetic_run("html", rep, 150, 0.4 + 0.013 * rep, false, e));
    runs.push_back(synthetic_run("struct:json+zlib", rep, 600, 2.0 + 0.017 * rep, false, e));
  }
  SummaryOptions o;
  o.order = order;
  json doc = summarize_runs_json(runs, o);
  doc["runs"] = runs;
  return doc;
}

}  // namespace

// Issue 32, 6: the header's CPU rows listed every run's value with 15 digits. Figures over runs
// are median [min..max] rounded to what their spread resolves; no number on the page carries
// more than five significant digits; per-run values live in the per-run tables.
TEST(HtmlReport, RoundsEveryFigureAndListsNoRunsInOneCell) {
  const std::string html = html_report({sweep_doc(idle(0.0123456789))}, "t");
  const std::string text = visible_text(html);
  size_t numbers = 0;
  const std::regex decimal(R"(-?[0-9]*\.[0-9]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), decimal), end; it != end; ++it) {
    EXPECT_LE(significant_digits(it->str()), 5u) << it->str();
    ++numbers;
  }
  EXPECT_GT(numbers, 200u);
  for (const char* row : {"CPU accounting", "idle baseline", "receive work"}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(html, m, std::regex(std::string("<th>") + row + "</th><td>([\\s\\S]*?)</td></tr>")))
        << row;
    const std::string cell = visible_text(m[1]);
    const std::regex number("[0-9]+(\\.[0-9]+)?");
    const auto n = std::distance(std::sregex_iterator(cell.begin(), cell.end(), number), std::sregex_iterator());
    EXPECT_LE(n, 12) << row << ": " << cell;
  }
  // The idle baseline as median [min..max] over the ten runs: 0.0123 .. 0.0128 cores.
  EXPECT_NE(html.find("server 0.0126 <span class=\"rng\">[0.0123..0.0128]</span>"), std::string::npos);
  // Each run's figures in the per-run CPU table: a row per run.
  const std::string table = html.substr(html.find("class=\"cpu-table\""));
  EXPECT_EQ(count(table.substr(0, table.find("</table>")), "<tr><td>html #"), 5u);
}

// A run whose idle window held another client's load has no baseline (measure/measure.h): the
// idle row says how many runs are net of nothing, and why, where the baseline is described.
TEST(HtmlReport, RunsWithoutAnIdleBaselineAreCountedWithTheirReasonInTheIdleRow) {
  json doc = sweep_doc(idle(0.01));
  ASSERT_GE(doc["runs"].size(), 3u);
  const std::string why = "not idle: the server answered 4321 pages in the 1.00 s before the run";
  doc["runs"][0]["idle_error"] = why;
  doc["runs"][2]["idle_error"] = "another reason";
  const std::regex idle_row("<th>idle baseline</th><td>([\\s\\S]*?)</td></tr>");
  std::smatch m;
  const std::string html = html_report({doc}, "t"), all_had_one = html_report({sweep_doc(idle(0.01))}, "t");
  ASSERT_TRUE(std::regex_search(html, m, idle_row));
  const std::string cell = visible_text(m[1]);
  EXPECT_NE(cell.find("2 of " + std::to_string(doc["runs"].size()) + " runs without one, nothing taken off (" + why),
            std::string::npos)
      << cell;
  // And none when every run had one.
  ASSERT_TRUE(std::regex_search(all_had_one, m, idle_row));
  EXPECT_EQ(visible_text(m[1]).find("without one"), std::string::npos);
}

// Issue 30, 4: a net figure below zero is marked where it stands, left out of the ranges, and
// its reason listed; never shown as a plain number.
TEST(HtmlReport, FiguresThatCannotBeRightAreMarkedNeverPlain) {
  // 0.2 cores idle over the 3 s window (0.6 s) above html's 0.4 s: html's net figures go below zero.
  json doc = sweep_doc(idle(0.2));
  const std::string html = html_report({doc}, "t");
  if (std::getenv("HITCOST_KEEP_HTML")) std::ofstream(std::getenv("HITCOST_KEEP_HTML")) << html;
  const size_t flags_listed = [&] {
    std::smatch m;
    return std::regex_search(html, m, std::regex("data-flags=\"(\\d+)\"")) ? std::stoul(m[1]) : 0ul;
  }();
  size_t expected = 0;
  for (const RunRecord& r : records_of(doc)) expected += r.cpu_flags().size();
  EXPECT_GE(expected, 5u * 3) << "every html run: net server, attributed server, CPU per hit...";
  EXPECT_EQ(flags_listed, expected);
  // In the per-run table every negative figure is inside a flagged mark.
  const std::string table = html.substr(html.find("class=\"cpu-table\""));
  const std::string cpu_table = table.substr(0, table.find("</table>"));
  EXPECT_EQ(std::regex_search(cpu_table, std::regex("<td>-[0-9]")), false) << "a plain negative figure";
  EXPECT_GE(count(cpu_table, "<span class=\"flagged\""), 5u * 2) << "html's net server CPU per hit and per request";
  // html's CPU per hit is flagged in every run: none is left for its median, so its cell says so.
  EXPECT_EQ(count(html, "µs/hit (net, sender-pays)"), 10u);
  EXPECT_GE(count(html, "<span class=\"flagged\" title=\""), 5u * 3) << "and under each run's charts";
  // Nothing below zero made it into a range.
  const std::string summary = html.substr(html.find("<h2>Summary</h2>"));
  const std::string summary_table = summary.substr(0, summary.find("</table>"));
  EXPECT_FALSE(std::regex_search(summary_table, std::regex(">-[0-9]"))) << summary_table;
  EXPECT_NE(summary.find("CPU figure(s) that cannot be right"), std::string::npos);
}

// Issue 32, 5 and 6: the phase bars are corrected like the headline, so each strategy's CPU
// parts add up to the CPU per hit the summary table shows (its median).
TEST(HtmlReport, PhaseBarsAddUpToTheSummarysCpuPerHit) {
  const std::string browser = chromium();
  ASSERT_FALSE(browser.empty()) << "chromium not installed (apt-get install chromium)";
  const json doc = sweep_doc(idle(0.01));
  Page page(html_report({doc}, "t"));
  const std::string dom = rendered_dom(browser, page.dir, page.path);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "chromium printed no DOM";
  size_t checked = 0;
  for (const json& row : doc["summary"]) {
    const std::string label = row["strategy"].get<std::string>() + " @ memory";
    const double median = row["server_cpu_us_per_hit"]["median"].get<double>();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        dom, m,
        std::regex("<g class=\"phase-bars\" data-strategy=\"" + std::regex_replace(label, std::regex("[+.]"), "\\$&") +
                   "\" data-cpu-per-hit=\"([0-9.e+-]+)\" data-runs=\"1\">([\\s\\S]*?)</g>")))
        << label;
    EXPECT_NEAR(std::stod(m[1]), median, 1e-5 * median) << label << ": the bars are the median run's";
    const std::string bars = m[2];
    double sum = 0;
    size_t parts = 0;
    const std::regex cpu_part("data-kind=\"cpu\"[^>]*data-us=\"([0-9.e+-]+)\"");
    for (std::sregex_iterator it(bars.begin(), bars.end(), cpu_part), end; it != end; ++it) {
      sum += std::stod((*it)[1]);
      ++parts;
    }
    EXPECT_EQ(parts, 8u) << label;
    EXPECT_NEAR(sum, median, 1e-4 * median) << label << ": the parts add up to the summary's CPU per hit";
    // The headline is net of idle: below the sampled parts' sum (the server's CPU / requests).
    EXPECT_LT(median, (label[0] == 'h' ? 0.426 : 2.034) / 20000 * 1e6) << label;
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

// Issue 32, 6: charts list the strategies in the tables' order, not in the order runs came.
TEST(HtmlReport, ChartsListStrategiesInTheTablesOrder) {
  const std::string html = html_report({sweep_doc({}, {"struct:json+zlib", "html"})}, "t");
  const size_t summary = html.find("<h2>Summary</h2>"), latency = html.find("data-chart=\"latency\""),
               phases = html.find("data-chart=\"phases\"");
  ASSERT_NE(latency, std::string::npos);
  ASSERT_NE(phases, std::string::npos);
  for (size_t from : {summary, latency, phases}) {
    const size_t a = html.find("struct:json+", from), b = html.find("html @ memory", from);
    const size_t b2 = html.find(">html<", from);
    EXPECT_LT(a, std::min(b, b2)) << "struct:json+zlib first after " << html.substr(from, 40);
  }
}

// Issue 32, 6: labels are whole. With the longest labels a sweep makes (a log mode, several
// memcached nodes), the page's script finds no text outside its chart, none over another, no
// cell clipped; and the screenshot is the window's size.
TEST(HtmlReport, NoTextIsCutOrOverlapsAndTheScreenshotIsTaken) {
  const std::string browser = chromium();
  ASSERT_FALSE(browser.empty()) << "chromium not installed (apt-get install chromium)";
  const Extra x{.idle_server_cores = 0.01,
                .store = "memcached:127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213",
                .log_mode = "buffered:64k+sync:1000"};
  json runs = json::array();
  for (int rep = 0; rep < 3; ++rep)
    for (const char* s : {"html", "html+zlib", "struct:json+zlib", "struct:igbinary+zstd"})
      runs.push_back(synthetic_run(s, rep, 150 + 100.0 * std::strlen(s), 0.4 + 0.1 * std::strlen(s), false, x));
  json doc = summarize_runs_json(runs);
  doc["runs"] = runs;
  Page page(html_report({doc}, "sweep with long labels"));
  const std::string shot = page.dir + "/report.png";
  const std::string dom = rendered_dom(browser, page.dir, page.path, shot, 2400);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "chromium printed no DOM";
  EXPECT_FALSE(std::regex_search(dom, std::regex("<body[^>]*data-js-error"))) << "a script error was caught";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-texts-checked=\"(\\d+)\""))) << "script did not finish";
  EXPECT_GT(std::stoul(m[1]), 500u) << "texts checked";
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-text-overflow=\"(\\d+)\"")));
  std::smatch what;
  std::regex_search(dom, what, std::regex("data-overflow-what=\"([^\"]*)\""));
  EXPECT_EQ(std::stoul(m[1]), 0u) << "cut or overlapping: " << what[1];
  // The screenshot: a PNG of the window's size, with something drawn in it.
  std::ifstream png(shot, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 24u) << "no screenshot at " << shot;
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(bytes[at])) << 24 | uint32_t(uint8_t(bytes[at + 1])) << 16 |
           uint32_t(uint8_t(bytes[at + 2])) << 8 | uint32_t(uint8_t(bytes[at + 3]));
  };
  EXPECT_EQ(be32(16), 1400u) << "width";
  EXPECT_EQ(be32(20), 2400u) << "height";
  EXPECT_GT(bytes.size(), 50'000u) << "a near-empty picture";
}
