#pragma once
// The steps every cached-rendering request shares, whatever it renders (PageService for
// generated pages, ValueService for a user's own values), so that /page and /value are timed
// and counted by one piece of code and a sweep over either measures the same thing:
//   - begin/finish: the CPU sampler's part for routing, and the outcome (hits / misses, the
//     figures a sweep's hit ratio and CPU per hit read);
//   - lap: a phase's wall time into its histogram and its CPU part into the sampler;
//   - fetch: store.get then unwrap_value (flags, inflate), the first two steps of every hit on
//     a bytes store, with a store error (not a miss) and a value that does not unwrap counted.
// One per io thread, owned by its service (reused buffers; not thread-safe).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "codecs/value_codec.h"
#include "server/cpu_sampler.h"
#include "server/metrics.h"
#include "stores/store.h"

namespace hitcost::server {

// What serving one request came to, for the response's headers and the access log.
struct ServeOutcome {
  bool hit = false;
  std::string key;            // exact store key
  std::string strategy_name;  // the strategy that answered (X-Strategy)
};

class HitSteps {
 public:
  using clock = std::chrono::steady_clock;

  HitSteps(ThreadMetrics& metrics, CpuSampler& sampler, bool timing)
      : m_(metrics), sampler_(sampler), timing_(timing) {}

  void begin() { sampler_.mark(CpuPart::other); }  // routing, up to here
  void finish(bool hit) noexcept;                   // counts the outcome, tells the sampler

  // Records now - t0 into phase p, then t0 = now; the nanoseconds (0 when timing is off).
  uint64_t lap(Phase p, clock::time_point& t0);

  // The stored value under `key`, unwrapped; its payload lives in this object's buffers until
  // the next fetch. nullopt on a miss, a store error or a value that does not unwrap (the two
  // errors counted). Laps fetch and unwrap.
  std::optional<Unwrapped> fetch(Store& store, const std::string& key, FlagScheme scheme, clock::time_point& t0);

  ThreadMetrics& metrics() noexcept { return m_; }

 private:
  ThreadMetrics& m_;
  CpuSampler& sampler_;
  bool timing_;
  std::string value_, scratch_;  // reused store and inflate buffers
};

}  // namespace hitcost::server
