#pragma once
// The steps every cached-rendering request shares, whatever it renders (PageService for
// generated pages, ValueService for a user's own values), so that /page and /value are timed
// and counted by one piece of code and a sweep over either measures the same thing:
//   - begin/finish: the CPU sampler's part for routing, and the outcome (hits / misses, the
//     figures a sweep's hit ratio and CPU per hit read);
//   - lap: a phase's wall time into its histogram and its CPU part into the sampler;
//   - fetch: store.get then unwrap_value (flags, inflate), the first two steps of every hit on
//     a bytes store, with a store error (not a miss) and a value that does not unwrap counted;
//     and the value's form (its flags) held against the strategy in force: a value another
//     strategy wrote under the same key is answered as it is, but never under the name of the
//     strategy asked (ServeOutcome, counted in strategy_mismatches when it is answered).
// One per io thread, owned by its service (reused buffers; not thread-safe).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "codecs/value_codec.h"
#include "server/cpu_sampler.h"
#include "server/metrics.h"
#include "stores/store.h"

namespace hitcost::server {

// What serving one request came to, for the response's headers and the access log.
struct ServeOutcome {
  bool hit = false;
  std::string key;  // exact store key
  // The strategy that answered (X-Strategy): the strategy in force, or on a hit of a value it
  // would not have written, the form that value was stored in (stored_form_name).
  std::string strategy_name;
  // A hit from a bytes store: the form the value was stored in (X-Stored-As), e.g. struct:json
  // for a struct:json+zlib value under the threshold. Empty on a miss and for memory:objects.
  std::string_view stored_as;
  // Set only on such a mismatch: the strategy in force, that was asked (X-Strategy-Asked).
  std::string strategy_asked;
  bool strategy_mismatch() const noexcept { return !strategy_asked.empty(); }
};

class HitSteps {
 public:
  using clock = std::chrono::steady_clock;

  HitSteps(ThreadMetrics& metrics, CpuSampler& sampler, bool timing)
      : m_(metrics), sampler_(sampler), timing_(timing) {}

  void begin() { sampler_.mark(CpuPart::other); }  // routing, up to here
  // Counts the outcome (and a hit's strategy mismatch), tells the sampler. A hit that failed
  // after fetch (a decode error) is a miss answered from the origin under the strategy in
  // force: its form is forgotten here, so the headers name that strategy again.
  void finish(ServeOutcome& out) noexcept;

  // Records now - t0 into phase p, then t0 = now; the nanoseconds (0 when timing is off).
  uint64_t lap(Phase p, clock::time_point& t0);

  // The stored value under out.key, unwrapped; its payload lives in this object's buffers until
  // the next fetch. nullopt on a miss, a store error or a value that does not unwrap (the two
  // errors counted). Laps fetch and unwrap. On a value, out.stored_as names its form, and when
  // `in_force` would not have written that form (strategy_writes), out.strategy_name becomes
  // the form and out.strategy_asked the strategy in force: the caller decodes the value by its
  // flags, as it is.
  // `decoders`: which library inflates a zlib value.
  std::optional<Unwrapped> fetch(Store& store, const Strategy& in_force, FlagScheme scheme, const Decoders& decoders,
                                 ServeOutcome& out, clock::time_point& t0);

  ThreadMetrics& metrics() noexcept { return m_; }

 private:
  ThreadMetrics& m_;
  CpuSampler& sampler_;
  bool timing_;
  std::string value_, scratch_;  // reused store and inflate buffers
};

}  // namespace hitcost::server
