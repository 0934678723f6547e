// A trace read for a replay (load/replay_schedule.h): the file mapped and checked (CRC-32C over
// every event), then each event given its page id, time and kind and put in its thread's lane —
// everything a replay does per event before the load starts, so that while it runs a thread only
// walks an array. Events per second is the figure: a replay must not be the bottleneck (one load
// thread must keep up with the trace, ≥ 200k events/s).
//
//   hitcost-bench --benchmark_filter=ReplaySchedule
// The argument is the trace's events (1M and 10M), 100k keys under a Zipf-like skew, 70 % reads.
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <string>

#include "bench/bench_util.h"
#include "load/replay_schedule.h"
#include "trace/trace_file.h"

namespace {

using namespace hitcost;

// One trace file per size, written on first use.
const std::string& trace_of(int64_t events) {
  static std::map<int64_t, std::string> paths;
  auto it = paths.find(events);
  if (it != paths.end()) return it->second;
  const std::string path = bench::bench_dir() + "/bench-" + std::to_string(events) + ".hctrace";
  auto w = trace::TraceWriter::create(path);
  if (!w) std::abort();
  std::mt19937_64 rng(1);
  for (int64_t i = 0; i < events; ++i) {
    trace::TraceEvent e{};
    e.time_us = uint64_t(i) * 10;  // 100k events/s
    const double u = double(rng() >> 11) / double(1ull << 53);
    e.key = uint64_t(100'000 * u * u * u);  // skewed toward low keys
    const bool read = rng() % 10 < 7;
    e.op = uint8_t(read ? trace::Op::get : trace::Op::set);
    e.outcome =
        uint8_t(read ? (rng() % 10 ? trace::Outcome::found : trace::Outcome::not_found) : trace::Outcome::stored);
    e.value_size = 200 + uint32_t(e.key % 5000);
    if (!w->append(e)) std::abort();
  }
  if (!w->finish({})) std::abort();
  return paths.emplace(events, path).first->second;
}

void BM_ReplaySchedule(benchmark::State& state) {
  const std::string& path = trace_of(state.range(0));
  client::ReplayTarget target;
  target.pages = {400, 100, 5000};
  for (auto _ : state) {
    auto schedule = client::build_replay_schedule(path, 1.0, 1, target);
    if (!schedule) {
      state.SkipWithError(schedule.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize((*schedule)->per_thread[0].data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["events_per_s"] =
      benchmark::Counter(double(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReplaySchedule)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
