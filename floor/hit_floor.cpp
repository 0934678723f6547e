#include "floor/hit_floor.h"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <map>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "floor/composed_hit.h"

namespace hitcost::floor {

Result<FetchKind> fetch_kind_of(std::string_view spec) {
  if (spec == "memory:objects" || spec.starts_with("memory:objects?")) return FetchKind::objects;
  if (spec == "memory" || spec.starts_with("memory:") || spec.starts_with("memory?")) return FetchKind::memory;
  if (spec.starts_with("mmap:")) return FetchKind::mmap;
  if (spec.starts_with("pread:")) return FetchKind::pread;
  if (spec.starts_with("memcached:")) return FetchKind::memcached;
  return Error{Errc::invalid_argument, "no fetch floor for store '" + std::string(spec) + "'"};
}

const char* to_string(FetchKind k) noexcept {
  switch (k) {
    case FetchKind::memory: return "memory";
    case FetchKind::objects: return "memory:objects";
    case FetchKind::mmap: return "mmap";
    case FetchKind::pread: return "pread";
    case FetchKind::memcached: return "memcached";
  }
  return "unknown";
}

namespace {

// Per part: each group of alternatives' fastest (floor) and its one in force, summed.
void sum_parts(HitFloor& f) {
  struct Alternatives {
    const Step* fastest = nullptr;
    const Step* in_force = nullptr;
  };
  std::map<std::pair<std::string, std::string>, Alternatives> by_name;
  for (const Step& s : f.steps) {
    if (!s.error.empty() || s.part == "composed") continue;
    Alternatives& a = by_name[{s.part, s.name}];
    if (s.fastest) a.fastest = &s;
    if (s.in_force) a.in_force = &s;
  }
  for (const char* part : {"receive", "fetch", "unwrap", "decode", "render", "write", "other"}) {
    f.floor_us[part] = 0;
    f.in_force_us[part] = 0;
  }
  for (auto& [key, a] : by_name) {
    if (!a.fastest) continue;
    f.floor_us[key.first] += a.fastest->timing.median_ns / 1e3;
    f.in_force_us[key.first] += (a.in_force ? a.in_force : a.fastest)->timing.median_ns / 1e3;
  }
  double floor_total = 0, in_force_total = 0;
  for (auto& [part, us] : f.floor_us) floor_total += us;
  for (auto& [part, us] : f.in_force_us) in_force_total += us;
  f.floor_us["total"] = floor_total;
  f.in_force_us["total"] = in_force_total;
}

}  // namespace

Result<HitFloor> calibrate_hit(const HitSpec& spec, const TimingPlan& timing) {
  HitFloor f;
  f.cpu = sched_getcpu();
  f.peer_cpu = spec.peer_cpu;
  const std::string html = render_page(spec.page);
  const EncodedValue stored = encode_value(spec.strategy, spec.page, html);
  if (stored.flags == kUnexpressibleFlags) return Error{Errc::invalid_argument, "the strategy cannot be stored"};
  std::string reference;
  auto un = unwrap_value(stored.bytes, stored.flags, spec.strategy.scheme, reference,
                         Decoders{.inflate = InflateLibrary::zlib});
  if (!un) return un.error();
  const std::string payload(un->payload);
  f.stored_bytes = stored.bytes.size();
  f.payload_bytes = payload.size();
  f.body_bytes = html.size();
  const bool objects = spec.fetch == FetchKind::objects;  // a shared pointer: no bytes to fetch or read

  Plan plan(spec.peer_cpu);
  if (Status s = plan.add_receive("receive", spec.request_bytes); !s) return s.error();
  switch (spec.fetch) {
    case FetchKind::objects: break;
    case FetchKind::memory:
    case FetchKind::mmap: {
      const uint64_t fit = std::max<uint64_t>(1, kMaxWorkingSet / std::max<size_t>(stored.bytes.size(), 1));
      plan.add_memcpy("fetch", stored.bytes, "", static_cast<size_t>(std::min(spec.values, fit)));
      break;
    }
    case FetchKind::pread:
      if (Status s = plan.add_pread("fetch", stored.bytes); !s) return s.error();
      break;
    case FetchKind::memcached:
      // A get: the key's line out (ASCII protocol, 32 B), the value with its header and END back.
      if (Status s = plan.add_round_trip("fetch", 32, stored.bytes.size() + 48); !s) return s.error();
      break;
  }
  if (!objects) plan.add_unwrap("unwrap", stored, spec.strategy.scheme, payload, spec.in_force);
  if (!objects && un->rep == Representation::structured) {
    plan.add_decode("decode", un->serializer, payload, spec.page, spec.in_force);
  }
  if (!objects && un->rep == Representation::html) {
    plan.add_memcpy("render", payload);  // an html value: one copy into the body
  } else {
    plan.add_render("render", spec.page, html);
  }
  if (Status s = plan.add_send("write", spec.head_bytes + html.size()); !s) return s.error();
  if (Status s = add_composed_hit(plan, spec, stored, html); !s) return s.error();
  f.steps = plan.run(timing);
  for (const Step& s : f.steps)
    if (s.part == "composed" && s.error.empty()) f.composed_us = s.timing.median_ns / 1e3;
  sum_parts(f);
  return f;
}

}  // namespace hitcost::floor
