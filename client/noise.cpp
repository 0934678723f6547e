#include "client/noise.h"

namespace hitcost::client {

NoiseEffect noise_effect(const RunRecord& r) {
  NoiseEffect e;
  // PLACEHOLDER until measured: a contaminated run is left out of every figure.
  e.moves_capacity = e.moves_cpu = r.contaminated.value_or(false);
  return e;
}

}  // namespace hitcost::client
