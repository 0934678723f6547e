// The comparison table from run JSONs: which runs are kept, in which order rows come, what a
// strategy with no kept run shows, and that verdicts read only the kept runs.
#include "report/summary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/noise.h"
#include "report/run_record.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {
json run(const std::string& strategy, double per_hit, int round, const json& contaminated = false, uint64_t errors = 0,
         double hit_ratio = 0.99) {
  return {
      {"strategy", strategy},
      {"sweep_store", "memory"},
      {"role", "capacity"},
      {"round", round},
      {"server_cpu_us_per_hit", per_hit},
      {"throughput_rps", 1e6 / per_hit},
      {"target_hit_ratio", 0.99},
      {"hit_ratio", hit_ratio},
      {"contaminated", contaminated},
      {"errors", {{"total", errors}}},
      {"cpu",
       {{"attribution", "sender-pays"},
        {"per_request_us",
         {{"attributed", {{"server", per_hit * 1.02}, {"cache", 5.0}, {"total", 60.0}}}, {"net", {{"cache", 5.0}}}}}}}};
}
}  // namespace

TEST(Summary, KeepsCleanRunsInTheAskedOrderAndCountsTheRest) {
  json runs = json::array();
  // Shuffled rounds, as a sweep makes them.
  for (int k = 0; k < 5; ++k) {
    runs.push_back(run("struct:json", 400 + k, k));
    runs.push_back(run("html", 40 + 0.1 * k, k, k == 2 ? json(true) : json(false)));  // one contaminated
  }
  runs.push_back(run("html", 41, 5, false, 3));        // errors
  runs.push_back(run("html", 41, 6, false, 0, 0.90));  // off the target hit ratio
  runs.push_back({{"strategy", "html"},
                  {"sweep_store", "memory"},
                  {"role", "latency"},
                  {"rate_rps", 500},
                  {"latency_us", {{"p50", 200}, {"p99", 400}, {"p999", 900}, {"max", 1000}}},
                  {"send_lateness_us", {{"p99", 3.5}}},
                  {"errors", {{"total", 0}}},
                  {"unsent", 0}});
  SummaryOptions o;
  o.baseline = "html";
  o.order = {"html", "struct:json"};
  const Summary s = summarize(runs, o);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].strategy, "html");  // not first seen: asked first
  EXPECT_EQ(s.rows[0].runs, 7);
  EXPECT_EQ(s.rows[0].used, 4);
  EXPECT_EQ(s.rows[0].excluded_noise_cpu, 1);  // contaminated with no figures to judge by: left out of all
  EXPECT_EQ(s.rows[0].excluded_noise_capacity, 1);
  EXPECT_EQ(s.rows[0].excluded_errors, 1);
  EXPECT_EQ(s.rows[0].excluded_hit_ratio, 1);
  EXPECT_EQ(s.rows[0].metric_values.size(), 4u);
  ASSERT_TRUE(s.rows[0].latency_rate && s.rows[0].lateness_p99_us);
  EXPECT_EQ(*s.rows[0].latency_rate, 500);
  EXPECT_EQ(*s.rows[0].lateness_p99_us, 3.5);
  EXPECT_EQ(s.metric, "server CPU per hit");
  ASSERT_EQ(s.verdicts.size(), 1u);
  EXPECT_EQ(s.verdicts[0].second.subject, "struct:json");
  EXPECT_EQ(s.verdicts[0].second.pairs, 4u);  // round 2 has no html run left: 4 pairs
  EXPECT_EQ(s.verdicts[0].second.kind, Verdict::Kind::costs) << s.verdicts[0].second.text;
  EXPECT_NEAR(*s.verdicts[0].second.ratio, 402.0 / 40.15, 0.05);
  const std::string text = format_summary(s);
  EXPECT_NE(text.find("4/7"), std::string::npos) << text;
  EXPECT_NE(text.find("1 with errors, 1 off the target hit ratio, 1 with other work enough to move CPU per hit"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("latency: open loop"), std::string::npos) << text;
}

TEST(Summary, AStrategyWithNoKeptRunShowsItsFiguresMarkedAndGetsNoVerdict) {
  json runs = json::array();
  for (int k = 0; k < 5; ++k) {
    runs.push_back(run("html", 40, k));
    runs.push_back(run("html+zlib", 120 + k, k, true));  // every run contaminated
  }
  SummaryOptions o;
  o.order = {"html", "html+zlib"};
  const Summary s = summarize(runs, o);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_FALSE(s.rows[0].from_left_out);
  EXPECT_TRUE(s.rows[1].from_left_out);
  EXPECT_EQ(s.rows[1].used, 0);
  ASSERT_TRUE(s.rows[1].server_hit);
  EXPECT_EQ(s.rows[1].server_hit->median, 122);
  EXPECT_TRUE(s.rows[1].metric_values.empty());
  ASSERT_EQ(s.verdicts.size(), 1u);
  EXPECT_EQ(s.verdicts[0].second.kind, Verdict::Kind::undecided);
  EXPECT_NE(format_summary(s).find("0/5!"), std::string::npos);
}

// A real sweep (4 strategies on memcached, 5 rounds and a latency run each) as it was saved
// before the run record and before paired, sequential verdicts: its runs (histograms, series,
// the server's sampling and config taken out to keep the file small; the summary reads none of
// them) summarise again into the very rows, figures and CSV it saved; its verdicts (one look,
// the file names no sequential design) are the same three decisions, now paired by round.
TEST(Summary, ASavedSweepSummarisesAgainIntoWhatItSaved) {
  auto text = [](const char* name) {
    const std::string here = __FILE__;
    std::ifstream in(here.substr(0, here.rfind('/')) + "/data/" + name);
    std::stringstream t;
    t << in.rdbuf();
    return t.str();
  };
  const json doc = json::parse(text("sweep_without_histograms.json"));
  const std::vector<RunRecord> runs = records_of(doc);
  ASSERT_EQ(runs.size(), 24u);
  const SummaryOptions o = summary_options_of(doc);
  EXPECT_FALSE(o.verdict.sequential);
  const Summary s = summarize(runs, o);
  ASSERT_EQ(s.rows.size(), 4u);
  const json again = summary_json(s);
  size_t checked = 0;
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const json& saved = doc["summary"][i];
    for (const char* key : {"strategy", "store", "runs", "used", "errors", "attribution", "latency"}) {
      EXPECT_EQ(again["summary"][i][key].dump(), saved[key].dump()) << i << " " << key;
      ++checked;
    }
    for (const RangeColumn& c : range_columns()) {
      EXPECT_EQ(again["summary"][i][c.json].dump(), saved[c.json].dump()) << i << " " << c.json;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 * (7 + range_columns().size()));
  EXPECT_EQ(csv_summary(s), text("sweep_without_histograms.csv"));
  ASSERT_EQ(s.verdicts.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Verdict& v = s.verdicts[i].second;
    const json& saved = doc["verdicts"][i];
    EXPECT_EQ(v.subject, saved["subject"].get<std::string>());
    EXPECT_EQ(v.kind, Verdict::Kind::costs) << v.text;
    EXPECT_EQ(v.pairs, 5u);
    EXPECT_NEAR(*v.ratio / saved["ratio"].get<double>(), 1.0, 0.03) << v.text;  // mean log ratio vs Hodges–Lehmann
  }
}

// What other work does to a run (report/noise.h): req/s leaves past 5 % of a move, CPU per hit
// keeps the run with its bias bound (0.8 per core on the server's CPUs, 0.3 on its peers') and
// leaves only past 50 %. A saved run with only the flag is left out of everything.
TEST(Noise, EachFigureLeavesARunOnlyPastItsOwnLimit) {
  auto record = [](const json& contamination, bool flag) {
    json j = run("html", 40, 0, flag);
    if (!contamination.is_null()) j["cpu"]["contamination"] = contamination;
    return j.get<RunRecord>();
  };
  size_t checked = 0;
  {  // half a core beside the server, a little beside its peers: 0.8*0.5 + 0.3*0.1 = 43 %
    const NoiseEffect e = noise_effect(record(
        {{"state", "contaminated"}, {"other_cores", 0.6}, {"other_server_cores", 0.5}, {"other_peer_cores", 0.1}},
        true));
    EXPECT_NEAR(e.cpu_move, 0.43, 1e-9);
    EXPECT_FALSE(e.moves_cpu);
    EXPECT_TRUE(e.moves_capacity);
    EXPECT_NEAR(e.capacity_move, 0.6, 1e-9);
    ++checked;
  }
  {  // 0.7 cores on the server's CPU: 56 %, past the limit
    const NoiseEffect e = noise_effect(record(
        {{"state", "contaminated"}, {"other_cores", 0.7}, {"other_server_cores", 0.7}, {"other_peer_cores", 0.0}},
        true));
    EXPECT_TRUE(e.moves_cpu);
    EXPECT_NE(e.why.find("0.70 on the server's CPUs"), std::string::npos) << e.why;
    ++checked;
  }
  {  // shared CPUs: only the total is known, counted on the more sensitive side; below zero is none
    const NoiseEffect e = noise_effect(record({{"state", "clean"}, {"other_cores", -0.05}}, false));
    EXPECT_EQ(e.cpu_move, 0.0);
    EXPECT_FALSE(e.moves_capacity);
    const NoiseEffect f = noise_effect(record({{"state", "contaminated"}, {"other_cores", 0.5}}, true));
    EXPECT_NEAR(f.cpu_move, 0.4, 1e-9);
    ++checked;
  }
  {  // a run saved before the figures: the flag alone, the old rule
    const NoiseEffect e = noise_effect(record(nullptr, true));
    EXPECT_TRUE(e.moves_cpu && e.moves_capacity);
    ++checked;
  }
  EXPECT_EQ(checked, 4u);
}

// The summary keeps a run that other work moved only in req/s in the CPU figures and the
// verdicts, with its bias bound, and says so in the noise line.
TEST(Noise, ARunWithOtherWorkStaysInTheVerdictsWithItsBound) {
  json runs = json::array();
  for (int k = 0; k < 5; ++k) {
    json h = run("html", 40 + 0.1 * k, k, k == 1);
    if (k == 1)
      h["cpu"]["contamination"] = {
          {"state", "contaminated"}, {"other_cores", 0.3}, {"other_server_cores", 0.25}, {"other_peer_cores", 0.05}};
    runs.push_back(h);
    runs.push_back(run("struct:json", 400 + k, k));
  }
  const json s = summarize_runs_json(runs);
  size_t rows = 0;
  for (const json& row : s["summary"]) {
    if (row["strategy"] != "html") continue;
    EXPECT_EQ(row["used"], 5) << row.dump();
    EXPECT_EQ(row["used_capacity"], 4) << row.dump();
    ASSERT_EQ(row["metric_bias"].size(), 5u);
    EXPECT_NEAR(row["metric_bias"][1].get<double>(), 0.8 * 0.25 + 0.3 * 0.05, 1e-9);
    ++rows;
  }
  EXPECT_EQ(rows, 1u);
  ASSERT_TRUE(s["noise"].is_string());
  EXPECT_NE(s["noise"].get<std::string>().find("of req/s only: 1"), std::string::npos) << s["noise"];
}
