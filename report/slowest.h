#pragma once
// A run's slowest requests (RunRecord::slowest, from the server's slow log) as the reports show
// them: each with its service time, target, outcome, what it waited on and its parts' CPU/wall.
#include <nlohmann/json.hpp>
#include <string>

namespace hitcost::client {

// "  slowest       3 of 12 requests above 2 ms (the server's slow log):\n    296 ms ..." ; "" when
// the run has no slow log (null) — and a line saying none was slow when it had one.
std::string slowest_text(const nlohmann::json& slowest);
// The same as an HTML table (escaped); "" without a slow log.
std::string slowest_html(const nlohmann::json& slowest);

}  // namespace hitcost::client
