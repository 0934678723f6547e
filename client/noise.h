#pragma once
// Other work on the machine, and which figures of a run it can move. PLACEHOLDER (measured next).
#include <string>

#include "client/run_record.h"

namespace hitcost::client {

struct NoiseEffect {
  bool moves_cpu = false;       // CPU per hit (and the other CPU figures, and the verdicts)
  bool moves_capacity = false;  // req/s
  std::string why;
};
NoiseEffect noise_effect(const RunRecord& r);

}  // namespace hitcost::client
