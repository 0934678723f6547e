#pragma once
// The floor of the hit a run measures, asked of the server just before the run (POST
// /admin/calibrate, floor/hit_floor.h): the same strategy, rows and store as the run, timed on
// the server's own io thread, with the loopback peers on the CPU the load runs on.
#include <nlohmann/json.hpp>

#include "core/result.h"
#include "load/load_runner.h"

namespace hitcost::client {

// The calibration's document for `plan` (floor/floor_json.h). invalid_argument when the run asks
// for no /page hits (another path template or a --rows-mix: no single page to floor), or the
// server refused; another error when the server did not answer.
Result<nlohmann::json> calibrate_floor(const LoadPlan& plan);

}  // namespace hitcost::client
