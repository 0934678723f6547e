#include "report/noise.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "report/verdict.h"

namespace hitcost::client {

// Measured with bench/noise.sh --rounds 4 (docs/method.md "Noise" has the table): per core of other work
// on the server's CPU, html's CPU per hit rose by up to 0.78 of itself (0.59 cores: 1.46×),
// struct:json's by up to 0.24; on the other CPU by 0.28 and 0.07. req/s fell by 0.96-1.33 per core
// on the server's CPU and 0.37-1.03 on the other. The bounds below are the largest of these.
const NoiseFigure kNoiseCpuPerHit{"CPU per hit", {0.8, 0.3}, 0.5};
const NoiseFigure kNoiseCapacity{"req/s", {1.0, 1.0}, 0.05};

namespace {

std::string fmt(const char* f, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

struct OtherWork {
  std::optional<double> server, peers;  // per side, when the server has CPUs of its own
  std::optional<double> total;          // on every CPU judged (other processes + steal)
};
OtherWork other_work(const RunRecord& r) {
  OtherWork w;
  if (!r.cpu) return w;
  const ContaminationRecord& c = r.cpu->contamination;
  if (c.state == "unknown") return w;
  const double steal = std::max(0.0, c.steal_cores.value_or(0));
  // Below zero is the ticks' noise (and flagged, figures/cpu_accounting.h): no other work.
  if (c.other_server_cores) w.server = std::max(0.0, *c.other_server_cores) + steal;
  if (c.other_peer_cores) w.peers = std::max(0.0, *c.other_peer_cores);
  if (c.other_cores) w.total = std::max(0.0, *c.other_cores) + steal;
  return w;
}

double expected_move(const NoiseFigure& f, const OtherWork& w) {
  if (w.server && w.peers) return f.per_core.server_side * *w.server + f.per_core.peer_side * *w.peers;
  return std::max(f.per_core.server_side, f.per_core.peer_side) * w.total.value_or(0);
}

}  // namespace

NoiseEffect noise_effect(const RunRecord& r) {
  NoiseEffect e;
  const OtherWork w = other_work(r);
  if (!w.total) {  // no figures: a saved run's flag alone, the old rule
    e.moves_capacity = e.moves_cpu = r.contaminated.value_or(false);
    if (e.moves_cpu) e.why = "contaminated, how much other work not recorded";
    return e;
  }
  e.cpu_move = expected_move(kNoiseCpuPerHit, w);
  e.capacity_move = expected_move(kNoiseCapacity, w);
  e.moves_cpu = e.cpu_move > kNoiseCpuPerHit.limit;
  e.moves_capacity = e.capacity_move > kNoiseCapacity.limit;
  if (e.moves_cpu || e.moves_capacity)
    e.why = fmt(
        "other work %.2f cores%s: CPU per hit may read up to %.1f %% high (limit %.0f %%), req/s %.0f %% low (limit %.0f %%)",
        w.server ? *w.server + *w.peers : *w.total,
        w.server ? fmt(" (%.2f on the server's CPUs)", *w.server).c_str() : "", 100 * e.cpu_move,
        100 * kNoiseCpuPerHit.limit, 100 * e.capacity_move, 100 * kNoiseCapacity.limit);
  return e;
}

std::string noise_note(const std::vector<RunRecord>& runs) {
  std::vector<double> server, peers, total, kernel, moves;
  int left_cpu = 0, left_capacity_only = 0, judged = 0;
  for (const RunRecord& r : runs) {
    if (r.is_latency_run()) continue;
    const OtherWork w = other_work(r);
    if (!w.total) continue;
    ++judged;
    if (w.server) server.push_back(*w.server);
    if (w.peers) peers.push_back(*w.peers);
    total.push_back(*w.total);
    if (const auto k = r.cpu->contamination.kernel_cores) kernel.push_back(*k);
    const NoiseEffect e = noise_effect(r);
    moves.push_back(e.cpu_move);
    left_cpu += e.moves_cpu;
    left_capacity_only += e.moves_capacity && !e.moves_cpu;
  }
  if (judged == 0) return "";
  auto range = [](const std::vector<double>& v) {
    const auto x = Range::of(v);
    return x ? fmt("%.2f [%.2f..%.2f]", x->median, x->min, x->max) : std::string("-");
  };
  std::string out =
      "noise: other work beside the runs (cores, median [min..max] over " + std::to_string(judged) + " runs): ";
  out += server.empty() ? "on their CPUs " + range(total)
                        : "on the server's CPU " + range(server) + ", on its peers' " + range(peers);
  if (!kernel.empty()) out += "; the kernel's work beside it, not counted: " + range(kernel);
  out +=
      fmt("; CPU per hit may read up to %.1f %% high in the median run (the verdicts' intervals are widened by it); "
          "left out of CPU per hit and the verdicts: %d run%s, of req/s only: %d",
          100 * Range::of(moves)->median, left_cpu, left_cpu == 1 ? "" : "s", left_capacity_only);
  return out;
}

}  // namespace hitcost::client
