#pragma once
// The hit path and the miss path of GET /page/{id}, timed phase by phase.
//   hit : store.get -> unwrap (flags, inflate) -> decode -> render
//         (a value another strategy wrote under the key is decoded by its flags and said so:
//         X-Strategy names its form, X-Strategy-Asked the strategy in force; see hit_steps.h)
//   miss: origin (generate, optional simulated backend wait) -> render -> encode -> store.set
// A decode error or a store error is counted and answered from the origin (a miss):
// the client always gets the right page.
//
// Blocking: store calls (memcached round trips, pread) block the calling io thread,
// like a PHP-FPM worker. One thread = one request in flight to the store; use
// --threads to add concurrency. This keeps per-request CPU attribution simple.
#include <chrono>
#include <cstdint>
#include <string>

#include "codecs/page.h"
#include "server/cpu_sampler.h"
#include "server/hit_steps.h"
#include "server/metrics.h"
#include "server/runtime_config.h"

namespace hitcost::server {

struct PageRequest {
  int64_t id = 0;
  uint32_t rows = 0;
  const Strategy* strategy_override = nullptr;  // ?strategy=, already parsed
  std::string_view strategy_override_text;
};

// One per io thread: owns reusable buffers (no allocation per hit in steady state).
class PageService {
 public:
  PageService(ThreadMetrics& metrics, CpuSampler& sampler, bool timing, uint32_t origin_delay_us)
      : m_(metrics), steps_(metrics, sampler, timing), origin_delay_us_(origin_delay_us) {}

  // Writes the HTML into `body` (cleared first).
  ServeOutcome serve(const RuntimeConfig& cfg, const PageRequest& req, std::string& body);

  // The origin alone: the page data for (id, rows) under cfg's seed and compressibility.
  static Page origin_page(const RuntimeConfig& cfg, int64_t id, uint32_t rows);
  static std::string key_for(const RuntimeConfig& cfg, int64_t id, uint32_t rows);

  // Fills the store with one page (the miss path without serving); false on a store error
  // (counted in store_errors like any other failed set).
  bool warm(const RuntimeConfig& cfg, int64_t id, uint32_t rows);

 private:
  using clock = HitSteps::clock;
  bool try_hit(const RuntimeConfig& cfg, const Strategy& strategy, ServeOutcome& out, std::string& body);
  void miss(const RuntimeConfig& cfg, const Strategy& strategy, const PageRequest& req, const std::string& key,
            std::string& body);
  // Encodes and sets one page (or holds it as an object); counts a failure as a store error.
  bool store_page(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key, Page&& page,
                  std::string_view html);

  ThreadMetrics& m_;
  HitSteps steps_;  // begin/finish, phase laps, fetch + unwrap: shared with the other service
  // The page a hit decodes into: its rows and strings keep their buffers from one hit to the
  // next, so a warm decode allocates nothing (codecs/value_codec.h decode_page_into).
  Page decoded_;
  uint32_t origin_delay_us_;
};

}  // namespace hitcost::server
