// hitcost-bench: Google Benchmark over every step of the hit path (bench_*.cpp), or with
// --calibrate the calibration table of this host (calibration_table.h).
#include <benchmark/benchmark.h>

#include <string_view>

#include "bench/calibration_table.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--calibrate") return hitcost::bench::run_calibration(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
