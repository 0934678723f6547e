#include "floor/floor_json.h"

namespace hitcost::floor {

nlohmann::json to_json(const HitFloor& f, const TimingPlan& plan) {
  nlohmann::json steps = nlohmann::json::array();
  for (const Step& s : f.steps) {
    nlohmann::json j = {{"part", s.part},         {"step", s.name},           {"library", s.library},
                        {"bytes_in", s.bytes_in}, {"bytes_out", s.bytes_out}, {"in_force", s.in_force},
                        {"bytes_of", s.bytes_of}, {"fastest", s.fastest}};
    if (!s.error.empty()) {
      j["error"] = s.error;
    } else {
      j["ns"] = {{"median", s.timing.median_ns}, {"min", s.timing.min_ns}, {"max", s.timing.max_ns}};
      j["calls"] = s.timing.calls;
      j["mb_per_s"] = s.mb_per_s();
    }
    steps.push_back(std::move(j));
  }
  return {{"cpu", f.cpu},
          {"peer_cpu", f.peer_cpu},
          {"stored_bytes", f.stored_bytes},
          {"payload_bytes", f.payload_bytes},
          {"body_bytes", f.body_bytes},
          {"clock", "CLOCK_THREAD_CPUTIME_ID"},
          {"repeats", plan.repeats},
          {"slice_us", static_cast<double>(plan.slice.count()) / 1e3},
          {"floor_us", f.floor_us},
          {"in_force_us", f.in_force_us},
          {"composed_us", f.composed_us},
          {"steps", std::move(steps)}};
}

}  // namespace hitcost::floor
