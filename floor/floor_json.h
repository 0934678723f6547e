#pragma once
// The floor of a hit as JSON: what POST /admin/calibrate answers and a run record keeps under
// "floor" (docs/http-api.md has the layout).
#include <nlohmann/json.hpp>

#include "floor/hit_floor.h"

namespace hitcost::floor {

// {"cpu", "peer_cpu", "stored_bytes", "payload_bytes", "body_bytes", "clock", "repeats",
//  "floor_us": {part: µs, ..., "total"}, "in_force_us": {...},
//  "steps": [{"part", "step", "library", "bytes_in", "bytes_out", "in_force", "fastest",
//             "ns": {"median", "min", "max"}, "calls", "mb_per_s"} or {..., "error"}]}
nlohmann::json to_json(const HitFloor& f, const TimingPlan& plan);

}  // namespace hitcost::floor
