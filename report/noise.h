#pragma once
// Other work on the machine, and what it can do to each figure of a run.
//
// A run measures its own CPU and the other work beside it (figures/cpu_accounting.h
// Contamination: other processes on the server's CPUs and on its peers', the kernel's work
// apart). How much other work moves each figure was measured, not assumed (bench/noise.sh: a
// burner at several duties on the server's CPU and on the other CPU, in interleaved rounds;
// docs/method.md "Noise"). Per core of other work, req/s falls about one for one, p99 latency rises
// several-fold, and the server's CPU per hit — its io thread's own CPU clock, so no waiting in
// it — still rises: by up to 0.8 of itself per core on the server's CPU (a 43 µs html hit: +14 %
// at 0.41 cores, +46 % at 0.59; a 300 µs struct:json hit: +1..10 %), by up to 0.3 per core on
// its peers' (the server waits for memcached more often, and wakes cold).
//
// So the figures are treated by what the effect is:
// - req/s and latency: a run whose other work can move them by more than their limit is left
//   out of them (they carry no verdict; a range of them from noisy runs would be the noise's);
// - CPU per hit: a run stays, with the bias bound its other work allows (per core × cores, a
//   fraction of the figure); the verdicts widen their intervals by it (report/verdict.h
//   Sample::bias), so noise can leave a comparison undecided but never decide one. Only a bound
//   above kNoiseCpuPerHit.limit (the figure could be off by more than half) leaves the run out.
// Where the server shares CPUs with its peers, only the total other work is known: it counts as
// if on the side the figure is most sensitive to. A run saved before these figures, marked
// contaminated with no numbers, is left out of everything (the old rule).
#include <string>
#include <vector>

#include "report/run_record.h"

namespace hitcost::client {

// The relative change of a figure per core of other work on the server's CPUs and on its
// peers' (memcached, the load), as measured by bench/noise.sh here (an upper bound over the
// strategies and duties measured).
struct NoiseSensitivity {
  double server_side = 0, peer_side = 0;
};
struct NoiseFigure {
  const char* name;
  NoiseSensitivity per_core;
  double limit;  // left out when the expected move is above this fraction of the figure
};
extern const NoiseFigure kNoiseCpuPerHit, kNoiseCapacity;

struct NoiseEffect {
  bool moves_cpu = false;                  // CPU per hit beyond its limit: left out of the CPU figures and the verdicts
  bool moves_capacity = false;             // req/s (and the latency of an open-loop run) beyond their limit
  double cpu_move = 0, capacity_move = 0;  // the bound of the move, a fraction of each figure
  std::string why;                         // "" when the run had no other work to speak of
};
NoiseEffect noise_effect(const RunRecord& r);

// One line on the noise of a set of runs: other work on each side (median [min..max] cores),
// the kernel's work beside it (not counted), and how many runs left which figure. "" when no
// run carries the figures.
std::string noise_note(const std::vector<RunRecord>& runs);

}  // namespace hitcost::client
