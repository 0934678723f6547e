// The sweep's axes (--axis, --log-modes; client/sweep_axes.h) without a server: the options'
// parsing, the cells (strategy × every axis value), their POST /admin/config bodies and load
// plans, the row labels, the summary's order and baseline, and what the run record and the
// summary make of the settings.
#include "client/sweep.h"

#include <gtest/gtest.h>

#include <set>

#include "client/options.h"
#include "report/compare.h"
#include "report/run_record.h"
#include "report/summary.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// A capacity run of a sweep as its JSON has it; `log_mode` "" = no axes.
json run(const std::string& strategy, const std::string& log_mode, double per_hit, int round) {
  json r = {{"strategy", strategy},
            {"sweep_store", "memory"},
            {"role", "capacity"},
            {"round", round},
            {"server_cpu_us_per_hit", per_hit},
            {"throughput_rps", 1e6 / per_hit},
            {"target_hit_ratio", 0.99},
            {"hit_ratio", 0.99},
            {"contaminated", false},
            {"errors", {{"total", 0}}}};
  if (!log_mode.empty()) r["axes"] = {{"log", log_mode}};
  return r;
}

// The log axis with these modes, as --log-modes gives it.
std::vector<AxisValues> log_axis(std::vector<std::string> modes) {
  return {AxisValues{find_sweep_axis("log"), std::move(modes), "--log-modes"}};
}

}  // namespace

TEST(LogModes, AListIsSplitAndTrimmedInOrder) {
  const auto modes = parse_log_modes("off, line ,buffered:64k,buffered:64k+sync:1000");
  ASSERT_TRUE(modes) << modes.error().message;
  const std::vector<std::string> want = {"off", "line", "buffered:64k", "buffered:64k+sync:1000"};
  EXPECT_EQ(*modes, want);
}

TEST(LogModes, NoListMeansNoLoggingAxis) {
  for (const char* text : {"", " "}) {
    const auto modes = parse_log_modes(text);
    ASSERT_TRUE(modes) << text;
    EXPECT_TRUE(modes->empty()) << text;
  }
}

// Empty entries and repeats are refused here; the mode grammar is the server's to judge.
TEST(LogModes, EmptyEntriesAndRepeatsAreRefusedWithAReason) {
  size_t refused = 0;
  for (const char* text : {"off,,line", "off,", ",off", "line, ,off", ","}) {
    const auto modes = parse_log_modes(text);
    ASSERT_FALSE(modes) << text;
    EXPECT_EQ(modes.error().code, hitcost::Errc::invalid_argument);
    EXPECT_NE(modes.error().message.find("empty entry"), std::string::npos) << modes.error().message;
    EXPECT_EQ(modes.error().message.rfind("--log-modes", 0), 0u) << modes.error().message;
    ++refused;
  }
  EXPECT_EQ(refused, 5u);
  EXPECT_EQ(parse_log_modes("off,,line").error().message, "--log-modes: empty entry in 'off,,line'");
  const auto twice = parse_log_modes("line,off,line");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("'line' is listed twice"), std::string::npos) << twice.error().message;
  // Not for the client to judge: the server refuses it (and the sweep reports its reason).
  const auto unknown = parse_log_modes("verbose");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->size(), 1u);
}

TEST(SweepConfig, CarriesTheLogModeOnlyWhenOneIsAsked) {
  SweepOptions o;
  o.rows = 50;
  const json plain = sweep_config(o, "memory", "html");
  EXPECT_FALSE(plain.contains("log")) << plain.dump();
  const json logged = sweep_config(o, "memory", "html", {{"log", "buffered:64k+sync:1000"}});
  ASSERT_TRUE(logged.contains("log")) << logged.dump();
  EXPECT_EQ(logged["log"], "buffered:64k+sync:1000");
  // Logging changes no stored value: the namespace (and all else) is the strategy's.
  json without_log = logged;
  without_log.erase("log");
  EXPECT_EQ(without_log, plain);
  EXPECT_EQ(logged["namespace"], "sw-html-memory-r50");
}

TEST(SweepCells, AreEveryStrategyUnderEveryLogModeStrategyMajor) {
  SweepOptions o;
  const std::vector<std::string> strategies = {"html", "struct:json"}, modes = {"off", "line", "buffered:64k"};
  const std::vector<SweepCell> cells = sweep_cells(o, "memory", strategies, log_axis(modes));
  ASSERT_EQ(cells.size(), 6u);
  const std::vector<std::string> labels = {"html log=off",          "html log=line",
                                           "html log=buffered:64k", "struct:json log=off",
                                           "struct:json log=line",  "struct:json log=buffered:64k"};
  std::set<std::string> namespaces;
  for (size_t i = 0; i < cells.size(); ++i) {
    const SweepCell& c = cells[i];
    EXPECT_EQ(c.label, labels[i]);
    EXPECT_EQ(c.strategy, strategies[i / 3]);
    EXPECT_EQ(c.axes, (AxisSettings{{"log", modes[i % 3]}}));
    EXPECT_EQ(c.store, "memory");
    EXPECT_EQ(c.config["log"], modes[i % 3]);
    EXPECT_EQ(c.config["strategy"], c.strategy);
    EXPECT_EQ(c.config, sweep_config(o, "memory", c.strategy, c.axes));
    namespaces.insert(c.config["namespace"].get<std::string>());
  }
  EXPECT_EQ(namespaces.size(), 2u) << "one namespace per strategy, shared by its log modes";
  // The round order covers every cell once.
  const std::vector<size_t> order = round_order(cells.size(), 7, 0);
  EXPECT_EQ(std::set<size_t>(order.begin(), order.end()).size(), cells.size());
}

TEST(SweepCells, WithoutLogModesAreOnePerStrategyAsBefore) {
  SweepOptions o;
  const std::vector<SweepCell> cells = sweep_cells(o, "", {"html", "html+zlib"}, {});
  ASSERT_EQ(cells.size(), 2u);
  for (const SweepCell& c : cells) {
    EXPECT_EQ(c.label, c.strategy);
    EXPECT_TRUE(c.axes.empty());
    EXPECT_FALSE(c.config.contains("log"));
    EXPECT_EQ(c.config, sweep_config(o, "", c.strategy));
  }
}

TEST(SweepLabels, AreCsvSafeAndSplitBackAtTheFirstSpace) {
  EXPECT_EQ(sweep_row_label("html", {}), "html");
  const std::string label = sweep_row_label("struct:json+zlib", {{"threads", "2"}, {"log", "buffered:64k+sync:1000"}});
  EXPECT_EQ(label, "struct:json+zlib log=buffered:64k+sync:1000 threads=2") << "settings by name, whatever the order";
  EXPECT_EQ(label.find_first_of(",\"\n"), std::string::npos);
  EXPECT_EQ(label.substr(0, label.find(' ')), "struct:json+zlib");
  RunRecord r;
  r.strategy = "html";
  EXPECT_EQ(r.row_label(), "html");
  r.axes["log"] = "line";
  EXPECT_EQ(r.row_label(), "html log=line");
}

TEST(SweepSummaryOptions, TheBaselineIsTheAskedStrategyUnderTheFirstLogMode) {
  SweepOptions o;
  o.alpha = 0.01;
  auto s = sweep_summary_options(o, {"html", "struct:json"}, log_axis({"line", "off"}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->baseline, "html log=line");
  const std::vector<std::string> order = {"html log=line", "html log=off", "struct:json log=line",
                                          "struct:json log=off"};
  EXPECT_EQ(s->order, order);
  EXPECT_EQ(s->verdict.alpha, 0.01);
  o.baseline = "struct:json";
  s = sweep_summary_options(o, {"html", "struct:json"}, log_axis({"line", "off"}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->baseline, "struct:json log=line");
  // Without the axis: as a sweep always had it.
  s = sweep_summary_options(o, {"html", "struct:json"}, {});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->baseline, "struct:json");
  EXPECT_EQ(s->order, (std::vector<std::string>{"html", "struct:json"}));
  o.baseline = "html+zlib";
  s = sweep_summary_options(o, {"html", "struct:json"}, log_axis({"off"}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "--baseline html+zlib is not in --strategies");
}

// The "axes" CSV cell of a run.
std::string axes_cell(const RunRecord& r) {
  size_t found = 0;
  std::string text;
  for (const auto& [column, cell] : csv_run_cells(r))
    if (column == "axes") text = cell, ++found;
  EXPECT_EQ(found, 1u);
  return text;
}

TEST(RunRecordAxes, AreAbsentFromTheJsonUnlessSetAndEmptyInTheCsv) {
  RunRecord r;
  r.strategy = "html";
  const json plain = r;
  EXPECT_FALSE(plain.contains("axes")) << "a run without axes writes what it always wrote";
  EXPECT_NE(csv_run_header().find(",interrupted,axes"), std::string::npos) << csv_run_header();
  EXPECT_EQ(axes_cell(r), "");
  r.axes = {{"log", "buffered:64k"}, {"threads", "2"}};
  const json set = r;
  EXPECT_EQ(set["axes"], (json{{"log", "buffered:64k"}, {"threads", "2"}}));
  EXPECT_EQ(set.get<RunRecord>().axes, r.axes);
  EXPECT_EQ(axes_cell(r), "log=buffered:64k threads=2");
}

// A run saved before the axes had its log mode in "log_mode": it reads as the log axis.
TEST(RunRecordAxes, ARunSavedWithALogModeReadsAsTheLogAxis) {
  const json old = {{"strategy", "html"}, {"log_mode", "line"}};
  const RunRecord r = old.get<RunRecord>();
  EXPECT_EQ(r.axes, (AxisSettings{{"log", "line"}}));
  EXPECT_EQ(r.row_label(), "html log=line");
  const json back = r;
  EXPECT_FALSE(back.contains("log_mode")) << back.dump();
  EXPECT_EQ(back["axes"], (json{{"log", "line"}}));
}

// One row per strategy × log mode, in the asked order, each compared with the baseline label.
TEST(SummaryWithLogModes, RowsAreLabelsAndTheBaselineIsALabel) {
  json runs = json::array();
  const std::vector<std::pair<std::string, std::string>> cells = {
      {"html", "off"}, {"html", "line"}, {"struct:json", "off"}, {"struct:json", "line"}};
  for (int round = 0; round < 5; ++round)
    for (size_t i = cells.size(); i-- > 0;)  // stored in reverse: the order comes from the options
      runs.push_back(run(cells[i].first, cells[i].second, 100.0 + 10.0 * double(i) + round, round));
  SweepOptions o;
  auto options = sweep_summary_options(o, {"html", "struct:json"}, log_axis({"off", "line"}));
  ASSERT_TRUE(options);
  const Summary s = summarize(runs, *options);
  ASSERT_EQ(s.rows.size(), 4u);
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(s.rows[i].strategy, sweep_row_label(cells[i].first, {{"log", cells[i].second}}));
    EXPECT_EQ(s.rows[i].axes, (AxisSettings{{"log", cells[i].second}}));
    EXPECT_EQ(s.rows[i].used, 5);
  }
  ASSERT_EQ(s.verdicts.size(), 3u);
  for (const auto& [store, v] : s.verdicts) EXPECT_EQ(v.baseline, "html log=off");
  const json j = summary_json(s);
  ASSERT_EQ(j["summary"].size(), 4u);
  EXPECT_EQ(j["summary"][1]["strategy"], "html log=line");
  EXPECT_EQ(j["summary"][1]["axes"], (json{{"log", "line"}}));
  const std::string text = format_summary(s);
  EXPECT_NE(text.find("struct:json log=line"), std::string::npos) << text;
  const std::string csv = csv_summary(s);
  EXPECT_NE(csv.find("\nmemory,struct:json log=line,5,5,"), std::string::npos) << csv;
}

TEST(SummaryWithLogModes, RowsWithoutALogModeHaveNoLogModeKey) {
  json runs = json::array();
  for (int round = 0; round < 3; ++round) runs.push_back(run("html", "", 100.0 + round, round));
  const json j = summarize_runs_json(runs);
  ASSERT_EQ(j["summary"].size(), 1u);
  EXPECT_EQ(j["summary"][0]["strategy"], "html");
  EXPECT_FALSE(j["summary"][0].contains("axes")) << j["summary"][0].dump();
}

// compare puts backends in rows and the sweep's rows in groups: the log mode goes with the group.
TEST(SummaryWithLogModes, CompareGroupsByStrategyAndLogMode) {
  auto sweep = [](double base) {
    json runs = json::array();
    for (int round = 0; round < 3; ++round)
      for (const char* mode : {"off", "line"}) runs.push_back(run("html", mode, base + round, round));
    return json{{"runs", runs}};
  };
  auto pooled = pool_backend_runs({{"c++", sweep(100)}, {"php", sweep(200)}});
  ASSERT_TRUE(pooled) << pooled.error().message;
  ASSERT_EQ(pooled->size(), 12u);
  std::set<std::string> groups;
  for (const RunRecord& r : *pooled) {
    EXPECT_TRUE(r.axes.empty());
    groups.insert(r.sweep_store.value_or(""));
  }
  EXPECT_EQ(groups, (std::set<std::string>{"html log=off", "html log=line"}));
}

// --axis: a client-side axis (threads) goes on the plan of the cell's runs and leaves the
// server's configuration and namespace alone; a server-side one that changes the stored form
// (rows) goes in the config and has a namespace per value.
TEST(SweepAxes, ThreadsSetTheLoadPlanAndRowsTheConfigWithANamespaceEach) {
  SweepOptions o;
  const auto threads = parse_axis("threads=1, 02");
  ASSERT_TRUE(threads) << threads.error().message;
  EXPECT_EQ(threads->values, (std::vector<std::string>{"1", "2"})) << "canonical values";
  const auto rows = parse_axis("rows=10,50");
  ASSERT_TRUE(rows) << rows.error().message;
  const std::vector<SweepCell> cells = sweep_cells(o, "memory", {"html", "struct:json"}, {*threads, *rows});
  ASSERT_EQ(cells.size(), 8u);
  LoadPlan sweep_plan;
  sweep_plan.connections = 8;
  sweep_plan.threads = 1;
  std::set<std::string> namespaces;
  for (size_t i = 0; i < cells.size(); ++i) {
    const SweepCell& c = cells[i];
    const std::string want_threads = i % 4 < 2 ? "1" : "2", want_rows = i % 2 ? "50" : "10";
    EXPECT_EQ(c.axes, (AxisSettings{{"rows", want_rows}, {"threads", want_threads}}));
    EXPECT_EQ(c.label, c.strategy + " rows=" + want_rows + " threads=" + want_threads);
    EXPECT_EQ(c.config["rows"], std::stoi(want_rows)) << c.config.dump();
    EXPECT_FALSE(c.config.contains("threads")) << "a client-side axis is not the server's";
    EXPECT_EQ(c.plan_of(sweep_plan).threads, std::stoi(want_threads));
    EXPECT_EQ(c.plan_of(sweep_plan).connections, 8);
    namespaces.insert(c.config["namespace"].get<std::string>());
  }
  EXPECT_EQ(namespaces.size(), 4u) << "strategy x rows: the threads share their stored values";
  EXPECT_EQ(namespaces.count("sw-html-memory-r10"), 1u);
  auto summary = sweep_summary_options(o, {"html", "struct:json"}, {*threads, *rows});
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->baseline, "html rows=10 threads=1");
  EXPECT_EQ(summary->order.size(), 8u);
}

TEST(SweepAxes, BadAxesAreRefusedWithAReason) {
  const std::vector<std::pair<const char*, const char*>> refused = {
      {"speed=1,2", "--axis speed: no such axis; the axes are log, inflate, json_decoder, rows, threads, connections"},
      {"strategy=html", "--axis strategy: --strategies gives its values"},
      {"store=memory", "--axis store: --stores gives its values"},
      {"threads", "--axis threads: give its values, --axis threads=V1,V2"},
      {"threads=", "--axis threads: no values"},
      {"threads=1,,2", "--axis threads: empty entry in '1,,2'"},
      {"threads=0", "--axis threads: threads: '0' is not a whole number >= 1"},
      {"threads=2,02", "--axis threads: '02' is listed twice"},
      {"log=a\"b", "--axis log: 'a\"b' holds a space or a quote"}};
  for (const auto& [spec, why] : refused) {
    const auto a = parse_axis(spec);
    ASSERT_FALSE(a) << spec;
    EXPECT_EQ(a.error().code, hitcost::Errc::invalid_argument);
    EXPECT_EQ(a.error().message.rfind(why, 0), 0u) << spec << ": " << a.error().message;
  }
  EXPECT_EQ(refused.size(), 9u);
  SweepOptions o;
  o.log_modes = "off,line";
  o.axes = {"log=off"};
  const auto twice = sweep_axes_of(o);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "--axis log: the axis is given twice (also as --log-modes)");
  o.axes = {"threads=1,2"};
  o.admin_url = "http://127.0.0.1:1";
  const auto other_server = sweep_axes_of(o);
  ASSERT_FALSE(other_server);
  EXPECT_EQ(other_server.error().message.rfind("--log-modes sets \"log\" on the server at --url; with --admin-url", 0),
            0u)
      << other_server.error().message;
  o.log_modes.clear();
  const auto client_side = sweep_axes_of(o);
  ASSERT_TRUE(client_side) << "threads are the client's: fine with --admin-url";
  ASSERT_EQ(client_side->size(), 1u);
  EXPECT_EQ((*client_side)[0].axis->name, "threads");
}
