#pragma once
// The whole hit in one loop (HitFloor::composed_us): the request's receive and parse, the fetch,
// the unwrap, the decode and render (or the html value's copy) and the response's send, one after
// another as a hit runs them, with the libraries in force. Each step's own floor is timed hot in
// a loop of its own; here the steps evict each other's cache lines as they do in a hit, so CPU
// per hit ÷ this is what the server itself adds (event loop, HTTP, routing, its sampler).
#include <string>

#include "codecs/value_codec.h"
#include "core/result.h"
#include "floor/hit_floor.h"
#include "floor/step_plan.h"

namespace hitcost::floor {

// Adds the step (part "composed", name "hit") to `plan`; `stored` and `html` must outlive its run.
// Errors: io_error when a loopback peer or the pread memfd cannot be made.
Status add_composed_hit(Plan& plan, const HitSpec& spec, const EncodedValue& stored, const std::string& html);

}  // namespace hitcost::floor
