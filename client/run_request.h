#pragma once
// What was asked of one run, as the run record keeps it. The measurement (RunReport,
// client/measure.h) and the record the reporters read (RunRecord, client/run_record.h) both
// are a RunRequest, so a new request field is one member here plus its row in the record's
// field table (run_record.cpp), not a member in each and a copy between them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hitcost::client {

struct RunRequest {
  std::string url, path_template;
  int connections = 0, threads = 0;
  std::vector<int> cpus;  // --cpus as given (client_pinned)
  double rate_rps = 0;    // 0 = closed loop
  uint64_t keys = 0;
  std::string key_dist;
  std::optional<double> target_hit_ratio;
  std::optional<int> rows;
  double warmup_s = 0;
  double planned_duration_s = 0;  // --duration; 0 in request-count mode
  // The server's access-log mode this run was measured under, as `sweep --log-modes` gave it
  // ("buffered:64k"); "" = the sweep did not set one (the server kept its own; JSON key absent).
  std::string log_mode;
};

}  // namespace hitcost::client
