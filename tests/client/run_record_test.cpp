// The typed run record (report/run_record.h): the JSON a real run wrote reads into a RunRecord
// and writes back as the same text; every field of the record's table shows in the JSON, the
// CSV and the HTML report.
#include "report/run_record.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/html_report.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// Written by `hitcost-load --url ... -d 1s --warmup 200ms --idle 200ms -c 2 --rate 1000
// --rows-mix 10:1,50:1 --json run_open_loop_1s.json --csv run_open_loop_1s.csv` against a
// hitcost-server --store memory, before the record existed.
std::string data_file(const char* name) {
  const std::string here = __FILE__;
  std::ifstream in(here.substr(0, here.rfind('/')) + "/data/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\n') break;
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// The server counters with a CSV column (wire/server_counters.h): rows of the table too.
constexpr size_t counter_columns() {
  size_t n = 0;
  for (const auto& c : hitcost::wire::kServerCounterRows) n += !c.csv.empty();
  return n;
}
constexpr size_t kFields = 131 + counter_columns();     // rows of the table in run_record.cpp
constexpr size_t kCsvColumns = 26 + counter_columns();  // of which in the CSV

}  // namespace

TEST(RunRecord, ARealRunsJsonReadsBackToTheSameText) {
  const std::string text = data_file("run_open_loop_1s.json");
  ASSERT_GT(text.size(), 1000u) << "golden run JSON missing";
  const RunRecord r = json::parse(text).get<RunRecord>();
  EXPECT_TRUE(r.extra.empty()) << "keys outside the table: " << r.extra.dump();
  // The typed fields hold what the file says.
  EXPECT_EQ(r.mode, "open-loop");
  EXPECT_EQ(r.rate_rps, 1000);
  EXPECT_EQ(r.requests, 1000u);
  EXPECT_EQ(r.connections, 2);
  ASSERT_TRUE(r.rows_mix);
  ASSERT_EQ(r.rows_mix->size(), 2u);
  EXPECT_EQ((*r.rows_mix)[0].rows, 10);
  EXPECT_EQ((*r.rows_mix)[0].requests + (*r.rows_mix)[1].requests, 1000u);
  EXPECT_EQ(r.latency_us.count, 1000u);
  EXPECT_GT(r.latency_us.p99, r.latency_us.p50);
  EXPECT_EQ(r.strategy, "html");
  EXPECT_EQ(r.store, "memory");
  EXPECT_TRUE(r.server.has_value());
  // Written back: the file's text, byte for byte (keys, values, types, layout).
  const json back = r;
  EXPECT_EQ(back.dump(2) + "\n", text);
}

TEST(RunRecord, TheCsvOfARealRunIsTheRowItWroteBeforeTheRecord) {
  const RunRecord r = json::parse(data_file("run_open_loop_1s.json")).get<RunRecord>();
  const std::string csv = data_file("run_open_loop_1s.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv_run_header() + csv_run_row(r), csv);
}

// Two runs of a sweep written before the record (a capacity run and a latency run, with the
// keys only sweeps have: sweep_store, role, round, repeat): each reads back to the same JSON.
TEST(RunRecord, ASweepsRunsReadBackToTheSameJson) {
  const json doc = json::parse(data_file("sweep_two_runs.json"));
  const std::vector<RunRecord> runs = records_of(doc);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].role, "capacity");
  EXPECT_EQ(runs[0].repeat, 2);
  EXPECT_FALSE(runs[0].is_latency_run());
  EXPECT_TRUE(runs[1].is_latency_run());
  EXPECT_FALSE(runs[1].repeat) << "a latency run has no repeat";
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_TRUE(runs[i].extra.empty()) << runs[i].extra.dump();
    EXPECT_EQ(json(runs[i]).dump(), doc["runs"][i].dump()) << "run " << i;
  }
}

// Old files lack keys and newer ones carry keys this version does not know: both load, the
// unknown keys are written back unchanged, the missing ones take their defaults.
TEST(RunRecord, MissingKeysTakeDefaultsAndUnknownKeysAreKept) {
  const json old = {{"mode", "closed-loop"},
                    {"requests", 40},
                    {"errors", {{"status", 3}, {"timeout", 1}}},  // no "total": the kinds' sum
                    {"hit_ratio", "not a number"},                // mistyped: the default
                    {"from_a_newer_client", {{"x", 1}}}};
  const RunRecord r = old.get<RunRecord>();
  EXPECT_EQ(r.requests, 40u);
  EXPECT_EQ(r.errors_total, 4u);
  EXPECT_EQ(r.hit_ratio, 0.0);
  EXPECT_FALSE(r.repeat);
  const json back = r;
  EXPECT_EQ(back["from_a_newer_client"], old["from_a_newer_client"]);
  EXPECT_EQ(back["errors"]["total"], 4);
  EXPECT_FALSE(back.contains("repeat")) << "a key only sweeps have stays out of a single run";
  EXPECT_FALSE(back.contains("merged"));
}

// A field added to the table is one row: it is then in the JSON (at its pointer), in the CSV
// (if it names a column) and in the HTML report's runs table. Checked for every row.
TEST(RunRecord, EveryFieldOfTheTableIsInTheJsonTheCsvAndTheHtml) {
  RunRecord r = json::parse(data_file("run_open_loop_1s.json")).get<RunRecord>();
  // The keys only sweeps, merges and failed runs have, so that every row is present.
  r.repeat = 2;
  r.sweep_store = "memory";
  r.role = "capacity";
  r.round = 2;
  r.merged = {{"inputs", 1}};
  r.server_error = "none";
  r.axes["log"] = "line";
  r.floor = {{"floor_us", {{"total", 10.0}}}};  // asked of a server that calibrates
  r.floor_error = "none";
  r.idle_error = "none";                              // a baseline with another client's load in it
  r.start_at_unix_ns = 1'700'000'000'000'000'000ULL;  // hitcost-load --start-at
  r.start_late_ms = 0.1;
  r.slowest = {{"threshold_us", 1000.0}, {"recorded", 0}, {"slowest", json::array()}};  // a server with --slow-log
  r.replay = {{"trace", "t.hctrace"}, {"events", 3}};                                   // hitcost-load --trace
  r.url_address = "127.0.0.1:8080";  // a run from before host names were resolved has none
  r.hosts = HostsRecord{};           // a run from before hosts were recorded has none
  ASSERT_TRUE(r.server);
  r.server->unreported.reset();  // a server of this version: every counter reported
  const json j = r;
  const std::vector<RunFieldName> fields = run_fields();
  EXPECT_EQ(fields.size(), kFields);
  size_t in_json = 0;
  std::vector<std::string> csv_names;
  for (const RunFieldName& f : fields) {
    EXPECT_TRUE(j.contains(json::json_pointer(f.pointer))) << f.pointer;
    in_json += j.contains(json::json_pointer(f.pointer));
    if (!f.csv.empty()) csv_names.push_back(f.csv);
  }
  EXPECT_EQ(in_json, kFields);
  ASSERT_EQ(csv_names.size(), kCsvColumns);
  EXPECT_EQ(split_csv_line(csv_run_header()), csv_names);
  EXPECT_EQ(split_csv_line(csv_run_row(r)).size(), kCsvColumns);

  const std::string html = html_report({j}, "one run");
  size_t in_html = 0;
  for (const std::string& name : csv_names) {
    const bool found = html.find("<th>" + name + "</th>") != std::string::npos;
    EXPECT_TRUE(found) << name;
    in_html += found;
  }
  EXPECT_EQ(in_html, kCsvColumns);
  for (const auto& [column, text] : csv_run_cells(r)) {
    if (column == "mode") {
      EXPECT_NE(html.find("<td>" + text + "</td>"), std::string::npos) << text;
    }
  }
}
