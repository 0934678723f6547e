// The write side of a hit: one access log line per request, in each mode the server offers
// (server/log_mode.h). Each iteration formats a line and hands it to the thread's writer, which
// writes or buffers it; the file is real (under TMPDIR, see bench_util.h) and truncated before
// each run so it does not grow without bound. Counters per line: write(2) calls and fdatasync
// calls, so the cost per line reads next to how often it reaches the kernel and the device.
//
//   hitcost-bench --benchmark_filter=LogLine
// The buffer-size sweep is BM_LogLine/line (0), buffered:4K, buffered:64K, buffered:1M.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "bench/bench_util.h"
#include "server/access_log.h"
#include "server/log_mode.h"

namespace {

using namespace hitcost;
using namespace hitcost::server;

// A page hit's line as hitcost-server writes it (132 bytes).
LogLine sample_line() {
  LogLine line;
  line.peer = boost::asio::ip::make_address("127.0.0.1");
  line.method = "GET";
  line.target = "/page/123456?rows=50";
  line.status = 200;
  line.body_bytes = 18234;
  line.user_agent = "hitcost-load";
  line.cache = "hit";
  line.strategy = "struct:json+zlib";
  line.service_us = 43;
  return line;
}

void BM_LogLine(benchmark::State& state, const char* mode_text) {
  const auto mode = LogMode::parse(mode_text);
  if (!mode) {
    state.SkipWithError(mode.error().message.c_str());
    return;
  }
  const std::string path = bench::bench_dir() + "/access.log";
  if (::truncate(path.c_str(), 0) != 0 && errno != ENOENT) {
    state.SkipWithError("cannot truncate the log file");
    return;
  }
  MetricsRegistry metrics(1);
  AccessLogFile file(path, [m = *mode] { return m.sync; });
  AccessLogWriter writer(file, metrics.thread(0));
  const LogLine line = sample_line();
  for (auto _ : state) writer.log(*mode, line);
  writer.flush(mode->sync);
  const MetricsSnapshot s = metrics.total();
  if (s.log_dropped_lines > 0) state.SkipWithError("lines were dropped (disk full?)");
  const double lines = static_cast<double>(state.iterations());
  state.counters["writes/line"] = static_cast<double>(s.log_write_calls) / lines;
  state.counters["syncs/line"] = static_cast<double>(file.sync_stats().calls.get()) / lines;
  state.counters["bytes/line"] = static_cast<double>(s.log_bytes) / lines;
  state.SetItemsProcessed(state.iterations());
}

// Formatting alone (no writer): the floor every mode pays.
void BM_LogLineFormatOnly(benchmark::State& state) {
  const LogLine line = sample_line();
  std::string out;
  for (auto _ : state) {
    out.clear();
    format_log_line(line, 1795305600, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_LogLineFormatOnly);
BENCHMARK_CAPTURE(BM_LogLine, line, "line");
BENCHMARK_CAPTURE(BM_LogLine, buffered_4K, "buffered:4k");
BENCHMARK_CAPTURE(BM_LogLine, buffered_64K, "buffered:64k");
BENCHMARK_CAPTURE(BM_LogLine, buffered_1M, "buffered:1M");
BENCHMARK_CAPTURE(BM_LogLine, buffered_64K_sync_interval_1000, "buffered:64k+sync:1000");
// fdatasync per write: milliseconds each on a real device; few iterations are enough.
BENCHMARK_CAPTURE(BM_LogLine, buffered_64K_sync_each, "buffered:64k+sync:each")->MinTime(0.5);
BENCHMARK_CAPTURE(BM_LogLine, line_sync_each, "line+sync:each")->MinTime(0.5);
