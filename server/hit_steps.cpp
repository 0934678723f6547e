#include "server/hit_steps.h"

namespace hitcost::server {

void HitSteps::finish(ServeOutcome& out) noexcept {
  if (out.hit) {
    m_.hits.add();
    if (out.strategy_mismatch()) m_.strategy_mismatches.add();
    sampler_.set_outcome(Outcome::hit);
    return;
  }
  m_.misses.add();
  sampler_.set_outcome(Outcome::miss);
  out.stored_as = {};
  if (out.strategy_mismatch()) out.strategy_name = std::move(out.strategy_asked);
  out.strategy_asked.clear();
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

std::optional<Unwrapped> HitSteps::fetch(Store& store, const Strategy& in_force, FlagScheme scheme,
                                         const Decoders& decoders, ServeOutcome& out, clock::time_point& t0) {
  uint32_t flags = 0;
  Status got = store.get(out.key, value_, flags);
  lap(Phase::fetch, t0);
  if (!got) {
    if (got.error().code != Errc::not_found) m_.count_store_error(got.error().code);
    return std::nullopt;
  }
  m_.cache_bytes_read.add(value_.size());
  auto un = unwrap_value(value_, flags, scheme, scratch_, decoders);
  lap(Phase::unwrap, t0);
  if (!un) {
    m_.count_decode_error(un.error().code);
    return std::nullopt;
  }
  m_.cache_bytes_unwrapped.add(un->payload.size());
  out.stored_as = stored_form_name(*un);
  if (!strategy_writes(in_force, *un)) {
    out.strategy_asked = std::move(out.strategy_name);
    out.strategy_name.assign(out.stored_as);
  }
  return *un;
}

}  // namespace hitcost::server
