// The run record's typed CPU parts (report/cpu_record.h): an old file's "cpu" and
// "server_sampling" read into their fields and write back as the same text, keys it lacked and
// keys this version does not know included; the typed figures hold what the JSON says.
#include "report/cpu_record.h"

#include <gtest/gtest.h>

#include "report/run_record.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {

// A "cpu" part as an older hitcost-load wrote it: no flags, no parts, no per-hit shares, no
// kernel figures, receiver_pays null, an integer where this version writes a double
// (idle_server_us_per_req), and a key from a newer version at the top and inside a group.
const char* kOldCpu = R"({
  "attribution": "sender-pays",
  "attribution_note": "sender-pays: each process is billed for the kernel's receive work of what it sent",
  "contamination": {"cpus": "0-1", "fraction": 0.01, "other_cores": 0.0125, "own_cores": 1.25,
                    "state": "clean", "steal_cores": 0.0, "why": "on CPUs 0-1"},
  "from_a_newer_client": {"x": [1, 2]},
  "idle_cores": {"cache": 0.002, "client": 0.003, "server": 0.001},
  "idle_server_us_per_req": 0,
  "machine_busy_us_per_req": {"net": 346.25, "raw": 349.75},
  "per_request_us": {
    "attributed": {"cache": 31.5, "client": 20.5, "peers": 52.0, "server": 313.875, "total": 365.875},
    "net": {"cache": 31.5, "client": 20.5, "peers": 52.0, "server": 313.875, "total": 365.875},
    "raw": {"cache": 32.0, "client": 21.25, "peers": 53.25, "server": 314.5, "total": 367.75, "newer": true},
    "receiver_pays": null
  },
  "receiver_pays_note": "cannot move receive work to the receiver: unpinned",
  "requests": 8404,
  "server_hit_us": 312.0625,
  "server_miss_us": 242.5,
  "softirq_us_per_req": {"peer_cpus": 14.25, "server_cpus": 15.5}
})";

const char* kOldSampling = R"({
  "clean_tiles": 77, "clock_read_ns": 514.0, "clock_reads": 21645,
  "hit": {"cpu_us": 313.25, "parts_cpu_us": {"fetch": 39.125, "render": 28.5}, "parts_wall_us": {"fetch": 80.0},
          "samples": 1928, "whole_samples": 1980, "from_a_newer_server": 7},
  "miss": {"cpu_us": null, "parts_cpu_us": {}, "parts_wall_us": {}, "samples": 0, "whole_samples": 0},
  "other": {"cpu_us": 652.75, "parts_cpu_us": {}, "parts_wall_us": {}, "samples": 3, "whole_samples": 3},
  "overhead_fraction": 0.0093, "period": 16
})";

}  // namespace

TEST(CpuRecord, AnOldCpuPartWithMissingAndUnknownKeysWritesBackByteForByte) {
  const json old = json::parse(kOldCpu);
  const CpuRecord c = old.get<CpuRecord>();
  const json back = c;
  EXPECT_EQ(back.dump(2), old.dump(2));
  EXPECT_FALSE(back.contains("flags")) << "a key the file lacked stays out";
  EXPECT_FALSE(back["contamination"].contains("kernel_cores"));
  EXPECT_TRUE(back["idle_server_us_per_req"].is_number_integer()) << "0 stays 0, not 0.0";
}

TEST(CpuRecord, AnOldSamplingPartWithMissingAndUnknownKeysWritesBackByteForByte) {
  const json old = json::parse(kOldSampling);
  const SamplingRecord s = old.get<SamplingRecord>();
  EXPECT_EQ(json(s).dump(2), old.dump(2));
}

// The parts inside a whole run: what a run JSON of an older version holds comes back unchanged.
TEST(CpuRecord, ARunWithOldPartsReadsBackToTheSameText) {
  json run = json::parse(R"({"mode": "closed-loop", "requests": 8404})");
  run = json(run.get<RunRecord>());  // every key this version writes, at its default
  run["cpu"] = json::parse(kOldCpu);
  run["server_sampling"] = json::parse(kOldSampling);
  const RunRecord r = run.get<RunRecord>();
  EXPECT_TRUE(r.extra.empty()) << r.extra.dump();
  EXPECT_EQ(json(r).dump(), run.dump());
}

TEST(CpuRecord, TypedFiguresHoldWhatTheJsonSays) {
  const RunRecord r =
      json{{"cpu", json::parse(kOldCpu)}, {"server_sampling", json::parse(kOldSampling)}}.get<RunRecord>();
  ASSERT_TRUE(r.cpu);
  EXPECT_EQ(r.cpu->per_request_us.attributed.server, 313.875);
  EXPECT_EQ(r.cpu->per_request_us.raw.total, 367.75);
  EXPECT_FALSE(r.cpu->per_request_us.receiver_pays) << "null in the file";
  EXPECT_EQ(r.cpu->machine_busy_us_per_req.net, 346.25);
  ASSERT_TRUE(r.cpu->idle_cores);
  EXPECT_EQ(r.cpu->idle_cores->client, 0.003);
  EXPECT_EQ(r.cpu->server_hit_us, 312.0625);
  EXPECT_EQ(r.cpu->idle_server_us_per_req, 0.0);
  EXPECT_FALSE(r.cpu->server_hit_sampled_us) << "absent in the file";
  EXPECT_EQ(r.cpu->requests, 8404u);
  EXPECT_EQ(r.cpu->contamination.state, "clean");
  EXPECT_EQ(r.cpu->contamination.other_cores, 0.0125);
  EXPECT_FALSE(r.cpu->contamination.kernel_cores);
  EXPECT_EQ(r.attribution(), "sender-pays");
  ASSERT_TRUE(r.server_sampling);
  EXPECT_EQ(r.server_sampling->period, 16u);
  EXPECT_EQ(r.server_sampling->hit.parts_cpu_us.at("fetch"), 39.125);
  EXPECT_EQ(r.server_sampling->hit.whole_samples, 1980u);
  EXPECT_FALSE(r.server_sampling->miss.cpu_us);
  // By a flag's name (its run JSON pointer), from the tables.
  EXPECT_EQ(r.figure("/cpu/per_request_us/net/cache"), 31.5);
  EXPECT_EQ(r.figure("/server_sampling/hit/parts_cpu_us/render"), 28.5);
  EXPECT_FALSE(r.figure("/cpu/server_hit_parts_us/fetch"));
  // And the name of a member: the pointer its flag has.
  EXPECT_EQ(r.pointer_of(r.cpu->per_request_us.attributed.server), "/cpu/per_request_us/attributed/server");
  EXPECT_EQ(r.pointer_of(r.cpu->per_request_us.attributed), "/cpu/per_request_us/attributed");
  EXPECT_EQ(r.pointer_of(r.server_sampling->hit.parts_cpu_us.at("fetch")), "/server_sampling/hit/parts_cpu_us/fetch");
  EXPECT_EQ(r.pointer_of(r.server_cpu_us_per_hit), "/server_cpu_us_per_hit");
}

// A field set after reading is written as it now is, beside the keys kept from the file.
TEST(CpuRecord, AFigureChangedAfterReadingIsWrittenAsItIs) {
  CpuRecord c = json::parse(kOldCpu).get<CpuRecord>();
  c.idle_server_us_per_req = 0.5;
  c.server_hit_sampled_us = 330.25;
  c.flags = std::vector<CpuFlag>{{"/cpu/server_hit_us", "why"}};
  const json back = c;
  EXPECT_EQ(back["idle_server_us_per_req"], 0.5);
  EXPECT_EQ(back["server_hit_sampled_us"], 330.25);
  EXPECT_EQ(back["flags"], json::parse(R"([{"figure": "/cpu/server_hit_us", "why": "why"}])"));
  EXPECT_EQ(back["from_a_newer_client"], json::parse(kOldCpu)["from_a_newer_client"]);
  EXPECT_FALSE(back.contains("server_hit_parts_us"));
}

// A run whose figures are below zero: the flags name them as the run JSON does, and a member's
// pointer finds its flag.
TEST(CpuRecord, AFlaggedFigureIsFoundByItsMember) {
  json cpu = json::parse(kOldCpu);
  cpu["per_request_us"]["net"]["server"] = -4.5;
  const RunRecord r = json{{"cpu", cpu}}.get<RunRecord>();
  ASSERT_TRUE(r.cpu);
  EXPECT_TRUE(r.flag_of(r.cpu->per_request_us.net.server));
  EXPECT_TRUE(r.flag_of("/cpu/per_request_us/net/server"));
  EXPECT_FALSE(r.flag_of(r.cpu->per_request_us.net.cache));
}
