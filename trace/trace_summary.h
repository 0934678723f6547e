#pragma once
// What a trace holds, for `trace show` (text and JSON): requests, keys, operation mix, sizes,
// popularity, arrivals, and the miss ratio the trace recorded. One pass over the events plus a
// sort of the per-key counts; memory grows with the distinct keys, not the events.
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <utility>

#include "trace/trace_event.h"
#include "trace/trace_file.h"

namespace hitcost::trace {

// Events by (op name, outcome name).
std::map<std::pair<std::string, std::string>, uint64_t> count_by_op_outcome(std::span<const TraceEvent> events);

struct Percentiles {
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct TraceSummary {
  TraceInfo info;
  uint64_t events = 0;
  uint64_t duration_us = 0;
  double requests_per_s = 0;  // events over the duration (0 for one event)
  uint64_t keys = 0;
  uint64_t clients = 0;
  std::map<std::pair<std::string, std::string>, uint64_t> by_op_outcome;
  uint64_t reads = 0, writes = 0, others = 0;  // trace_event.h's kinds
  // The miss ratio the trace recorded: reads not_found over reads whose outcome is known;
  // -1 when the trace records none (oracleGeneral).
  double recorded_miss_ratio = -1;
  // An infinite cache's miss ratio: reads that are a key's first request over all reads.
  double compulsory_miss_ratio = 0;
  Percentiles value_bytes;      // of reads that returned a value, and of writes
  Percentiles interarrival_us;  // between consecutive events (at the trace's time resolution)
  Percentiles per_second;       // requests in each whole second of the trace
  // Popularity: a Zipf fit, log(count) = c - alpha log(rank), least squares over the ranks with
  // more than one request (at most 10,000), and how concentrated the requests are.
  double zipf_alpha = 0;
  double zipf_r2 = 0;
  uint64_t zipf_ranks_fitted = 0;
  double top1pct_share = 0;         // share of requests to the most-asked 1 % of keys
  double one_hit_wonder_ratio = 0;  // keys asked once over keys
};

TraceSummary summarize(const TraceReader& trace);
std::string one_line(const TraceSummary& s);
std::string to_text(const TraceSummary& s);
void to_json(nlohmann::json& j, const TraceSummary& s);

}  // namespace hitcost::trace
