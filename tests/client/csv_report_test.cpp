// The CSV writer (measure/run_output.h): one header line and one row per run, with the same columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "measure/run_output.h"

using namespace hitcost::client;
using nlohmann::json;

namespace {
// A closed-loop run of `n` requests of 1..n µs, `status_errors` of them failed with a status
// and one more timed out (errors total = status_errors + 1).
json run_json(int n, uint64_t status_errors) {
  RunReport r;
  r.connections = 8;
  r.threads = 1;
  r.requested_strategy = "html";
  for (int i = 1; i <= n; ++i) {
    r.load.latency.record(uint64_t(i) * 1000);
    r.load.hit.record(uint64_t(i) * 1000);
  }
  r.load.requests = uint64_t(n);
  r.load.ok = uint64_t(n) - status_errors;
  r.load.errors.status = status_errors;
  r.load.errors.timeout = 1;
  r.load.window_s = 2.0;
  return to_json(r);
}
}  // namespace

TEST(CsvRun, OneRowMatchingTheHeader) {
  const std::string header = csv_run_header(), row = csv_run_row(run_json(100, 2));
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(row.begin(), row.end(), ','));
  EXPECT_EQ(row.rfind("closed-loop,html,", 0), 0u) << row;
  EXPECT_NE(row.find(",100,3,"), std::string::npos) << row;  // requests, errors (2 status + 1 timeout)
}
