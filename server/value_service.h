#pragma once
// The hit path and the miss path of GET /value/{n}: PageService's paths for a user's own
// values (server/value_origin.h) instead of generated pages, timed with the same phases and
// CPU parts, so a sweep over /value/{id} measures CPU per hit exactly as one over /page/{id}.
//   hit : store.get -> unwrap (flags, inflate) -> decode_tree -> render_tree_html
//         (html strategies: the stored bytes are the rendering, served as they are; a value
//         another strategy wrote under the key is decoded by its flags and said so, as for pages)
//   miss: origin (tree n, optional simulated backend wait) -> render_tree_html ->
//         encode (encode_tree, or the rendering for html) -> wrap_payload -> store.set
// A decode error or a store error is counted (decode_errors / store_errors, as for pages) and
// answered from the origin: the client always gets the right body. A value the strategy cannot
// write (JSON and a non-UTF-8 string, NaN; a compressor the flag scheme cannot say) is counted
// in value_encode_errors, answered from the origin and not stored: every request for it stays
// a miss under that strategy, which /stats and the warm answer ("unstorable") show.
//
// The bytes stores only: memory:objects holds decoded Pages, not trees; the router refuses
// /value there (409) before calling in.
//
// One per io thread (owns reusable buffers); blocking store calls, as PageService.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "codecs/strategy.h"
#include "server/cpu_sampler.h"
#include "server/hit_steps.h"
#include "server/metrics.h"
#include "server/runtime_config.h"
#include "server/value_origin.h"

namespace hitcost::server {

struct ValueRequest {
  size_t n = 0;                                 // any id; past the corpus: value n mod N (ValueOrigin)
  const Strategy* strategy_override = nullptr;  // ?strategy=, already parsed
  std::string_view strategy_override_text;
};

// What filling the store with one value came to.
enum class WarmResult { stored, store_error, unstorable };

class ValueService {
 public:
  ValueService(ThreadMetrics& metrics, CpuSampler& sampler, bool timing, uint32_t origin_delay_us)
      : m_(metrics), steps_(metrics, sampler, timing), origin_delay_us_(origin_delay_us) {}

  // Writes the body into `body` (cleared first). Counts the request in pages and values, and
  // its outcome in hits / misses (the figures a sweep's hit ratio and CPU per hit read).
  ServeOutcome serve(const RuntimeConfig& cfg, const ValueOrigin& origin, const ValueRequest& req, std::string& body);

  // "hc:{ns}:v{n}": values have their own keys, apart from pages' "hc:{ns}:p{id}:r{rows}".
  static std::string key_for(const RuntimeConfig& cfg, size_t n);

  // The miss path without serving, under the strategy in force. A store error is counted as on
  // the miss path; unstorable is counted in value_encode_errors (retrying cannot help).
  WarmResult warm(const RuntimeConfig& cfg, const ValueOrigin& origin, size_t n);

 private:
  using clock = HitSteps::clock;
  bool try_hit(const RuntimeConfig& cfg, const Strategy& strategy, ServeOutcome& out, std::string& body);
  void miss(const RuntimeConfig& cfg, const Strategy& strategy, const corpus::Value& tree, const std::string& key,
            std::string& body);
  // Encodes `tree` (or takes `html`, its rendering, for html strategies) and sets it.
  WarmResult store_value(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key,
                         const corpus::Value& tree, std::string_view html);

  ThreadMetrics& m_;
  HitSteps steps_;  // begin/finish, phase laps, fetch + unwrap: shared with the other service
  uint32_t origin_delay_us_;
};

}  // namespace hitcost::server
