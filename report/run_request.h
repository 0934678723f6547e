#pragma once
// What was asked of one run, as the run record keeps it. The measurement (RunReport,
// measure/measure.h) and the record the reporters read (RunRecord, report/run_record.h) both
// are a RunRequest, so a new request field is one member here plus its row in the record's
// field table (run_record.cpp), not a member in each and a copy between them.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hitcost::client {

// A sweep cell's settings beyond its strategy and store, by axis name: "log" → "buffered:64k",
// "threads" → "2" (client/sweep_axes.h has the axes). Sorted by name: the row label and the
// JSON list them in that order. Empty for a run no sweep axis set.
using AxisSettings = std::map<std::string, std::string>;

struct RunRequest {
  std::string url, path_template;
  // The numeric address --url's host was resolved to at start ("10.0.0.5:8080"; for an IP
  // address, the same as the URL's). "" in a record from before names were taken.
  std::string url_address;
  int connections = 0, threads = 0;
  std::vector<int> cpus;  // --cpus as given (client_pinned)
  double rate_rps = 0;    // 0 = closed loop
  uint64_t keys = 0;
  std::string key_dist;
  std::optional<double> target_hit_ratio;
  std::optional<int> rows;
  double warmup_s = 0;
  double planned_duration_s = 0;  // --duration; 0 in request-count mode
  // The sweep cell's axis settings (`sweep --axis`, `--log-modes`): JSON "axes" {"log": "line"},
  // absent when none; CSV "axes" "log=line threads=2". A run saved with "log_mode" (before the
  // axes) reads as {"log": MODE}.
  AxisSettings axes;
  // A replayed trace (hitcost-load --trace): its identity (file, events' checksum, events,
  // speed, span), what the schedule made of it (reads, writes, deletes, inferred deletes, not
  // replayed, prewarmed, keys) and the answers by kind. null (and absent from the JSON) otherwise.
  nlohmann::json replay;
};

}  // namespace hitcost::client
