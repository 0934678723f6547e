// The rules of figures/cpu_accounting.h on made-up readings whose answers are known, and the
// /proc readers they stand on.
#include "figures/cpu_accounting.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "proc/proc.h"
#include "report/cpu_record.h"

using namespace hitcost;
using namespace hitcost::client;

namespace {
// /proc/stat text: two CPUs, values in ticks of 100 Hz.
std::string stat_text(unsigned long long u0, unsigned long long s0, unsigned long long si0, unsigned long long u1,
                      unsigned long long s1, unsigned long long si1, unsigned long long steal1 = 0) {
  auto line = [](const std::string& name, unsigned long long u, unsigned long long s, unsigned long long si,
                 unsigned long long st) {
    return name + " " + std::to_string(u) + " 0 " + std::to_string(s) + " 1000 0 0 " + std::to_string(si) + " " +
           std::to_string(st) + " 0 0\n";
  };
  return line("cpu", u0 + u1, s0 + s1, si0 + si1, steal1) + line("cpu0", u0, s0, si0, 0) +
         line("cpu1", u1, s1, si1, steal1) + "intr 1 2 3\n";
}
proc::MachineCpu machine(const std::string& text) { return *proc::parse_machine_cpu(text, 100.0); }

// 10 000 requests over 2 s; the server alone on CPU 0, cache and client on CPU 1.
CpuReadings base() {
  CpuReadings r;
  r.window_s = 2;
  r.server_requests = 10000;
  r.server_cpu_s = 0.50;  // 50 µs/req
  r.cache_cpu_s = 0.20;
  r.client_cpu_s = 0.30;
  // CPU 0: 0.40 user, 0.02 system, 0.08 softirq; CPU 1: 0.40, 0.05, 0.05: 1.0 s busy, all ours
  r.machine = machine(stat_text(40, 2, 8, 40, 5, 5));
  r.server_local = r.cache_local = true;
  r.server_cpus = {0};
  r.cache_cpus = {1};
  r.client_cpus = {1};
  r.sampled_hit_us = 48.0;
  return r;
}
}  // namespace

TEST(Proc, ParsesPerCpuTimesAndCpuLists) {
  const auto m = proc::parse_machine_cpu(stat_text(10, 20, 30, 1, 2, 3, 4), 100.0);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->cpus.size(), 2u);
  EXPECT_DOUBLE_EQ(m->cpus[0]->user, 0.10);
  EXPECT_DOUBLE_EQ(m->cpus[0]->softirq, 0.30);
  EXPECT_DOUBLE_EQ(m->cpus[1]->steal, 0.04);
  EXPECT_DOUBLE_EQ(m->cpus[1]->busy(), 0.06);  // steal is not busy
  EXPECT_DOUBLE_EQ(m->over({0, 1, 7}).system, 0.22);
  EXPECT_FALSE(proc::parse_machine_cpu("intr 1\n", 100.0));
  EXPECT_EQ(*proc::parse_cpu_list("0-2,5\n"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(*proc::parse_cpu_list("\t3"), (std::vector<int>{3}));
  EXPECT_FALSE(proc::parse_cpu_list("2-1"));
  EXPECT_EQ(proc::format_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

TEST(Proc, SeesThisProcessAndTheMachine) {
  const auto self = proc::read_process(::getpid());
  ASSERT_TRUE(self);
  EXPECT_EQ(self->comm.substr(0, 6), "client");  // client_unit_test (comm keeps 15 characters)
  EXPECT_GT(self->start_ticks, 0u);
  EXPECT_FALSE(self->allowed_cpus.empty());
  EXPECT_FALSE(proc::read_process(0));
  EXPECT_EQ(proc::boot_id().size(), 36u);  // a UUID
  EXPECT_FALSE(proc::online_cpus().empty());
}

TEST(CpuAccounting, IdleIsSubtractedPerParty) {
  CpuReadings r = base();
  r.idle_window_s = 1;
  r.idle_server_cpu_s = 0.01;  // 0.01 cores: 0.02 s over the 2 s window = 2 µs/req
  r.idle_cache_cpu_s = 0.005;
  r.idle_client_cpu_s = 0.0;
  const CpuFigures f = account(r, Attribution::sender_pays);
  EXPECT_NEAR(f.per_request_us(f.net.server, 10000), 48.0, 1e-9);
  EXPECT_NEAR(f.per_request_us(f.net.cache, 10000), 19.0, 1e-9);
  EXPECT_NEAR(f.per_request_us(f.net.client, 10000), 30.0, 1e-9);
  EXPECT_NEAR(f.idle_server_us_per_req, 2.0, 1e-9);
  ASSERT_TRUE(f.server_hit_us);
  EXPECT_NEAR(*f.server_hit_us, 46.0, 1e-9);  // sampled 48 − idle 2
  EXPECT_EQ(f.attribution, Attribution::sender_pays);
}

TEST(CpuAccounting, ReceiverPaysMovesSoftirqAndConservesTheTotal) {
  const CpuReadings r = base();
  const CpuFigures f = account(r, Attribution::receiver_pays);
  ASSERT_EQ(f.attribution, Attribution::receiver_pays) << f.attribution_note;
  ASSERT_TRUE(f.receiver_pays);
  // Server: 0.50 − 0.08 (its peers' receive, on CPU 0) + 0.05 (its own, on CPU 1) = 0.47 s.
  EXPECT_NEAR(f.attributed.server, 0.47, 1e-9);
  EXPECT_NEAR(f.attributed.total(), f.raw.total(), 1e-9);
  EXPECT_FALSE(f.attributed.peers_split);  // cache and client share CPU 1
  EXPECT_NEAR(f.attributed.peers(), 0.53, 1e-9);
  EXPECT_NEAR(*f.server_hit_us, 48.0 - 3.0, 1e-9);  // −0.03 s over 10 000 requests
  EXPECT_NEAR(*f.server_hit_sender_us, 48.0, 1e-9);
  // Asked for sender-pays, the headline stays where the kernel billed it; both are reported.
  const CpuFigures g = account(r, Attribution::sender_pays);
  EXPECT_NEAR(*g.server_hit_us, 48.0, 1e-9);
  EXPECT_NEAR(*g.server_hit_receiver_us, 45.0, 1e-9);
}

TEST(CpuAccounting, SeparateCpusSplitThePeersExactly) {
  CpuReadings r = base();
  r.cache_cpus = {1};
  r.client_cpus = {2};
  // CPU 2 (client): 0.02 softirq; CPU 1 (cache): 0.05.
  r.machine = *proc::parse_machine_cpu(
      "cpu 0 0 0 0 0 0 0 0 0 0\ncpu0 40 0 2 1000 0 0 8 0 0 0\ncpu1 10 0 5 1000 0 0 5 0 0 0\ncpu2 25 0 3 1000 0 0 2 0 0 0\n",
      100.0);
  r.bytes_client_received = 3e6;  // pages
  r.bytes_cache_received = 1e6;   // commands
  const CpuFigures f = account(r, Attribution::receiver_pays);
  ASSERT_TRUE(f.attributed.peers_split) << f.attribution_note;
  EXPECT_NEAR(f.attributed.server, 0.50 - 0.08 + 0.07, 1e-9);
  EXPECT_NEAR(f.attributed.cache, 0.20 + 0.02 - 0.05, 1e-9);  // a quarter of CPU 0's softirq by bytes
  EXPECT_NEAR(f.attributed.client, 0.30 + 0.06 - 0.02, 1e-9);
  EXPECT_NEAR(f.attributed.total(), f.raw.total(), 1e-9);
}

TEST(CpuAccounting, SharedOrUnknownPlacementStaysSenderPaysAndSaysWhy) {
  CpuReadings shared = base();
  shared.server_cpus = {0, 1};
  const CpuFigures f = account(shared, Attribution::receiver_pays);
  EXPECT_EQ(f.attribution, Attribution::sender_pays);
  EXPECT_NE(f.attribution_note.find("shares CPUs"), std::string::npos) << f.attribution_note;
  EXPECT_NEAR(f.attributed.server, f.net.server, 1e-12);
  CpuReadings remote = base();
  remote.server_local = false;
  const CpuFigures g = account(remote, Attribution::receiver_pays);
  EXPECT_EQ(g.attribution, Attribution::sender_pays);
  EXPECT_NE(g.attribution_note.find("another machine"), std::string::npos) << g.attribution_note;
}

TEST(CpuAccounting, ContaminationIsOtherWorkOnOurCpusRelativeToOurs) {
  // Ours: 1.0 s over 2 s = 0.5 cores; CPUs busy 1.0 s: clean.
  CpuReadings clean = base();
  const CpuFigures a = account(clean, Attribution::sender_pays);
  EXPECT_EQ(a.contamination.state, Contamination::State::clean) << a.contamination.why;
  EXPECT_EQ(a.contamination.cpus, (std::vector<int>{0, 1}));
  // Another 0.6 s of busy time on CPU 1 (0.3 cores next to our 0.5): contaminated.
  CpuReadings dirty = base();
  dirty.machine = machine(stat_text(40, 2, 8, 100, 5, 5));
  const CpuFigures b = account(dirty, Attribution::sender_pays);
  EXPECT_EQ(b.contamination.state, Contamination::State::contaminated) << b.contamination.why;
  EXPECT_NEAR(b.contamination.other_cores, 0.3, 1e-9);
  // Steal counts against the run as well.
  CpuReadings stolen = base();
  stolen.machine = machine(stat_text(40, 2, 8, 40, 5, 5, 60));
  EXPECT_EQ(account(stolen, Attribution::sender_pays).contamination.state, Contamination::State::contaminated);
  // The same busy time on a CPU none of ours may use does not matter.
  CpuReadings elsewhere = dirty;
  elsewhere.cache_cpus = elsewhere.client_cpus = {0};
  elsewhere.server_cpus = {0};
  elsewhere.machine = machine(stat_text(40, 2, 8, 100, 5, 5));
  elsewhere.server_cpu_s = 0.25;  // what CPU 0 holds: 0.5 s for all three
  elsewhere.cache_cpu_s = 0.10;
  elsewhere.client_cpu_s = 0.15;
  EXPECT_EQ(account(elsewhere, Attribution::sender_pays).contamination.state, Contamination::State::clean);
  // A remote server: unknown, never "clean".
  CpuReadings remote = base();
  remote.server_local = false;
  const CpuFigures c = account(remote, Attribution::sender_pays);
  EXPECT_EQ(c.contamination.state, Contamination::State::unknown);
  EXPECT_EQ(c.contamination.why, "the server runs on another host; its CPU cannot be told apart from other work here");
}

// 9000 hits at 40 µs and 1000 misses at 400 µs sampled; 0.1 cores idle over the 2 s window
// (0.2 s). A miss costs ten hits, so it takes ten hits' share of the idle: per hit
// 0.2 s × 40 / (9000·40 + 1000·400) µs = 10.53 µs, not the 20 µs of an even share per request.
TEST(CpuAccounting, CorrectionsAreSharedByWhatEachOutcomeCosts) {
  CpuReadings r = base();
  r.server_cpu_s = 0.80;
  r.server_hits = 9000;
  r.server_misses = 1000;
  r.sampled_hit_us = 40.0;
  r.sampled_miss_us = 400.0;
  r.idle_window_s = 1;
  r.idle_server_cpu_s = 0.1;
  r.idle_cache_cpu_s = 0.0;
  const CpuFigures f = account(r, Attribution::sender_pays);
  EXPECT_TRUE(f.shared_by_cost);
  EXPECT_NEAR(f.idle_server_us_per_req, 20.0, 1e-9);  // the total, per request, as before
  EXPECT_NEAR(f.idle_server_us_per_hit, 0.2e6 * 40 / 760000, 1e-9);
  EXPECT_NEAR(f.idle_server_us_per_miss, 0.2e6 * 400 / 760000, 1e-9);
  ASSERT_TRUE(f.server_hit_us && f.server_miss_us);
  EXPECT_NEAR(*f.server_hit_us, 40.0 - 0.2e6 * 40 / 760000, 1e-9);
  EXPECT_NEAR(*f.server_miss_us, 400.0 - 0.2e6 * 400 / 760000, 1e-9);
  // The shares add up to the whole correction: nothing lost, nothing counted twice.
  EXPECT_NEAR(9000 * f.idle_server_us_per_hit + 1000 * f.idle_server_us_per_miss, 0.2e6, 1e-6);
  // Receive work moved is shared the same way (server alone on CPU 0: receiver-pays).
  const CpuFigures g = account(r, Attribution::receiver_pays);
  ASSERT_EQ(g.attribution, Attribution::receiver_pays) << g.attribution_note;
  const double moved_us = (g.attributed.server - g.net.server) * 1e6;
  EXPECT_NEAR(g.server_shift_us_per_hit, moved_us * 40 / 760000, 1e-9);
  EXPECT_NEAR(*g.server_hit_us, 40.0 - g.idle_server_us_per_hit + g.server_shift_us_per_hit, 1e-9);
  // Other requests (/stats) without samples count at the sampled mean: 100 of them here.
  r.server_requests = 10100;
  const CpuFigures h = account(r, Attribution::sender_pays);
  EXPECT_NEAR(h.idle_server_us_per_hit, 0.2e6 * 40 / (76.0 * 10100), 1e-9);
}

TEST(CpuAccounting, WithoutSamplesTheCorrectionsArePerRequest) {
  CpuReadings r = base();
  r.sampled_hit_us.reset();
  r.idle_window_s = 1;
  r.idle_server_cpu_s = 0.01;
  const CpuFigures f = account(r, Attribution::sender_pays);
  EXPECT_FALSE(f.shared_by_cost);
  EXPECT_NEAR(f.idle_server_us_per_hit, 2.0, 1e-9);
  EXPECT_FALSE(f.server_hit_us);
}

// The parts of a hit, corrected like the headline, add up to it; each keeps its share.
TEST(CpuAccounting, CorrectedPartsAddUpToCpuPerHit) {
  CpuReadings r = base();
  r.server_hits = 10000;
  r.idle_window_s = 1;
  r.idle_server_cpu_s = 0.01;
  // Detailed samples: 52 µs in all, above the whole samples' 48 (their extra clock reads).
  r.hit_parts = {{"receive", 6, std::nullopt}, {"fetch", 20, 35.0}, {"render", 20, 19.0}, {"other", 6, std::nullopt}};
  const CpuFigures f = account(r, Attribution::sender_pays);
  ASSERT_TRUE(f.server_hit_us);
  EXPECT_NEAR(*f.server_hit_us, 46.0, 1e-9);
  ASSERT_EQ(f.server_hit_parts.size(), 4u);
  double sum = 0;
  for (const SampledPart& p : f.server_hit_parts) sum += p.cpu_us;
  EXPECT_NEAR(sum, *f.server_hit_us, 1e-9);
  EXPECT_NEAR(f.server_hit_parts[1].cpu_us, 20 * 46.0 / 52, 1e-9);
  EXPECT_EQ(f.server_hit_parts[1].wall_us, 35.0);  // wall as sampled
  const nlohmann::json j = cpu_record_of(f, r.server_requests);
  EXPECT_NEAR(j["server_hit_parts_us"]["fetch"].get<double>(), 20 * 46.0 / 52, 1e-9);
}

// A run JSON's CPU figures as record_of writes them, for the checks (measure/run_output.h).
nlohmann::json run_doc(const CpuReadings& r, const nlohmann::json& sampling = nlohmann::json::object()) {
  const CpuFigures f = account(r, Attribution::sender_pays);
  return {{"cpu", cpu_record_of(f, r.server_requests)},
          {"server_sampling", sampling},
          {"server_cpu_us_per_hit", f.server_hit_us ? nlohmann::json(*f.server_hit_us) : nlohmann::json()}};
}

const CpuFlag* find_flag(const std::vector<CpuFlag>& flags, const std::string& figure) {
  for (const CpuFlag& f : flags)
    if (f.figure == figure) return &f;
  return nullptr;
}

// 20 requests in the window (an open loop at a low rate) and an idle baseline above the run's
// own CPU: net figures below zero. Each is flagged where it stands, with the idle and the raw.
TEST(CpuAccounting, NetFiguresBelowZeroAreFlaggedWithTheirReason) {
  CpuReadings r = base();
  r.server_requests = 20;
  r.server_hits = 20;
  r.server_cpu_s = 0.002;  // 100 µs/req raw
  r.cache_cpu_s = 0.001;
  r.client_cpu_s = 0.001;
  r.sampled_hit_us = 60.0;
  r.idle_window_s = 1;
  r.idle_server_cpu_s = 0.003;  // 0.006 s over the window: above the run's 0.002
  r.idle_cache_cpu_s = 0.0001;
  r.idle_client_cpu_s = 0.0;
  const nlohmann::json doc = run_doc(r);
  ASSERT_LT(doc["cpu"]["per_request_us"]["net"]["server"].get<double>(), 0);
  const std::vector<CpuFlag> flags = check_cpu_figures(doc);
  const CpuFlag* net = find_flag(flags, "/cpu/per_request_us/net/server");
  ASSERT_TRUE(net) << cpu_flags_json(flags).dump(1);
  EXPECT_NE(net->why.find("idle baseline"), std::string::npos) << net->why;
  EXPECT_NE(net->why.find("above the run's own raw 100"), std::string::npos) << net->why;
  for (const char* figure : {"/cpu/per_request_us/net/total", "/cpu/per_request_us/attributed/server",
                             "/cpu/server_hit_us", "/server_cpu_us_per_hit"})
    EXPECT_TRUE(find_flag(flags, figure)) << figure << " not flagged: " << cpu_flags_json(flags).dump(1);
  // The cache's net stays above zero: not flagged.
  EXPECT_GT(doc["cpu"]["per_request_us"]["net"]["cache"].get<double>(), 0);
  EXPECT_FALSE(find_flag(flags, "/cpu/per_request_us/net/cache"));
  // Every flag names a number of the document that is below zero.
  size_t checked = 0;
  for (const CpuFlag& f : flags) {
    const nlohmann::json::json_pointer p(f.figure);
    ASSERT_TRUE(doc.contains(p)) << f.figure;
    EXPECT_LT(doc.at(p).get<double>(), 0) << f.figure;
    ++checked;
  }
  EXPECT_GE(checked, 5u);
  // The same run at 10 000 requests: nothing is flagged.
  EXPECT_TRUE(check_cpu_figures(run_doc(base())).empty()) << cpu_flags_json(check_cpu_figures(run_doc(base())));
}

// A sampled part's CPU above its wall time cannot be; a part without a wall time (receive,
// other) is not judged against one.
TEST(CpuAccounting, PartCpuAboveItsWallTimeIsFlagged) {
  const nlohmann::json sampling = {
      {"hit",
       {{"cpu_us", 40.0},
        {"parts_cpu_us", {{"receive", 5.0}, {"fetch", 4.11}, {"render", 10.0}, {"other", 3.0}}},
        {"parts_wall_us", {{"receive", 0.0}, {"fetch", 3.62}, {"render", 12.0}, {"other", 0.0}}}}}};
  const std::vector<CpuFlag> flags = check_cpu_figures(run_doc(base(), sampling));
  ASSERT_EQ(flags.size(), 1u) << cpu_flags_json(flags).dump(1);
  EXPECT_EQ(flags[0].figure, "/server_sampling/hit/parts_cpu_us/fetch");
  EXPECT_NE(flags[0].why.find("CPU 4.11 us above its wall time 3.62 us"), std::string::npos) << flags[0].why;
}
