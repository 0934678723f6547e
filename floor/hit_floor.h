#pragma once
// The floor of one hit: each step the server takes for a cache hit, timed on this host, on the
// very bytes of the value, with every library this host has for those bytes — and per part of
// the server's CPU (the parts of server/metrics.h CpuPart: receive, fetch, unwrap, decode, render,
// write, other) the lowest that part can cost: where several libraries read the same bytes the
// fastest of them, and no glue at all. The measured CPU per hit divided by this is how far the
// server is above its floor, part by part (report/summary.h, README "How close to the floor").
//
//   receive  recv of the request's bytes from a loopback socket + Beast's parse of them
//   fetch    memory, mmap: a memcpy of the stored bytes; pread: a pread(2) of them from the page
//            cache; memcached: a loopback round trip (a get's request out, the value's bytes
//            back; the peer, like memcached, pays for delivering them); memory:objects: nothing
//   unwrap   the value's decompressor, every library of its format (zlib: codecs/inflate.h)
//   decode   the serializer's decoder, every library of its format (JSON: codecs/decoders.h)
//   render   the renderer; for an html value, the one copy of it into the response
//   write    a send of the response (head + body) on loopback to a peer that reads it
//   other    routing and the response head: nothing a library could do faster, floor 0
// Each step is checked before it is timed (the page decodes back equal, the value inflates to
// its payload); a step that fails its check is reported with its error and left out.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codecs/decoders.h"
#include "codecs/page.h"
#include "codecs/strategy.h"
#include "core/result.h"
#include "floor/step_plan.h"

namespace hitcost::floor {

// How the server's store hands it a value (the fetch step's floor).
enum class FetchKind { memory, objects, mmap, pread, memcached };
// From a store spec: "memory", "memory:objects", "mmap:PATH", "pread:PATH", "memcached:...".
// invalid_argument for another kind.
Result<FetchKind> fetch_kind_of(std::string_view store_spec);
const char* to_string(FetchKind k) noexcept;

struct HitSpec {
  Strategy strategy;  // how the value is stored: its scheme and compression rule included
  Page page;          // what the hit serves
  FetchKind fetch = FetchKind::memory;
  Decoders in_force;          // the libraries the server reads with now (marked in the steps)
  size_t request_bytes = 96;  // a GET as hitcost-load sends it
  size_t head_bytes = 170;    // the response head beside the body
  int peer_cpu = -1;          // where the loopback peer runs; -1: anywhere
  // How many values the run reads from (its keys, uniform): a memory or mmap fetch then copies one
  // of that many (up to kMaxWorkingSet bytes of them), not one value the caches keep hot.
  uint64_t values = 1;
};
inline constexpr uint64_t kMaxWorkingSet = uint64_t{128} << 20;

struct HitFloor {
  std::vector<Step> steps;
  // µs per hit by CPU part: the fastest libraries (floor_us) and the libraries in force
  // (in_force_us). "total" sums the parts.
  std::map<std::string, double> floor_us, in_force_us;
  // The whole hit in one loop with the libraries in force (receive, fetch, unwrap, decode,
  // render, send one after another, as a hit runs them): each step's floor is timed hot in a
  // loop of its own, where its code and data keep the caches; here the steps evict each other's
  // lines as they do in a hit. CPU per hit ÷ this is what the server adds (event loop, HTTP,
  // routing, the sampler), apart from what the steps cost each other. 0 when not timed.
  double composed_us = 0;
  int cpu = -1, peer_cpu = -1;  // where the steps ran (sched_getcpu at the start) and their peer
  size_t stored_bytes = 0, payload_bytes = 0, body_bytes = 0;
};

// Calibrates the hit `spec` describes with `plan`. Errors: io_error when a loopback socket or a
// memfd cannot be made.
Result<HitFloor> calibrate_hit(const HitSpec& spec, const TimingPlan& plan);

}  // namespace hitcost::floor
