#pragma once
// The reporters of one run: record_of turns a measurement (measure/measure.h) into the typed
// record (report/run_record.h) that the JSON, CSV, HTML and summary reporters read. The
// terminal report prints the measurement itself, live: it shows what the record does not keep
// (the sampled parts and phases in the server's order, the idle window), and nothing reads it
// back. The JSON's top-level key names are a contract other parts of the kit rely on: requests,
// duration_s, throughput_rps, hit_ratio, latency_us{p50,p90,p99,p999,max}, server_cpu_us_per_req,
// cache_cpu_us_per_req, client_cpu_us_per_req, errors, strategy, store, histogram.
#include <nlohmann/json.hpp>
#include <string>

#include "measure/measure.h"
#include "report/run_record.h"

namespace hitcost::client {

// The record every reporter reads (report/run_record.h); to_json(r) is its JSON.
RunRecord record_of(const RunReport& r);
nlohmann::json to_json(const RunReport& r);
std::string format_terminal(const RunReport& r, bool quiet);
// The first error of each kind with its reason, and the error-limit verdict: a line each
// (empty when the run had no errors). Part of format_terminal unless quiet.
std::string format_error_lines(const RunReport& r);

}  // namespace hitcost::client
