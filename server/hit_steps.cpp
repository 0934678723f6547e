#include "server/hit_steps.h"

namespace hitcost::server {

void HitSteps::finish(bool hit) noexcept {
  if (hit) {
    m_.hits.add();
    sampler_.set_outcome(Outcome::hit);
  } else {
    m_.misses.add();
    sampler_.set_outcome(Outcome::miss);
  }
}

uint64_t HitSteps::lap(Phase p, clock::time_point& t0) {
  if (!timing_) return 0;
  auto now = clock::now();
  auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - t0).count());
  m_.phases[static_cast<size_t>(p)].record(ns);
  sampler_.mark(cpu_part(p), ns);
  t0 = now;
  return ns;
}

std::optional<Unwrapped> HitSteps::fetch(Store& store, const std::string& key, FlagScheme scheme,
                                         clock::time_point& t0) {
  uint32_t flags = 0;
  Status got = store.get(key, value_, flags);
  lap(Phase::fetch, t0);
  if (!got) {
    if (got.error().code != Errc::not_found) m_.count_store_error(got.error().code);
    return std::nullopt;
  }
  m_.cache_bytes_read.add(value_.size());
  auto un = unwrap_value(value_, flags, scheme, scratch_);
  lap(Phase::unwrap, t0);
  if (!un) {
    m_.count_decode_error(un.error().code);
    return std::nullopt;
  }
  return *un;
}

}  // namespace hitcost::server
