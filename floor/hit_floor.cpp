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

namespace http = boost::beast::http;

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

// The whole hit in one op (HitFloor::composed_us): the steps of calibrate_hit in a hit's order,
// with the libraries in force, on state of its own.
Status add_composed(Plan& plan, const HitSpec& spec, const EncodedValue& stored, const std::string& html) {
  struct State {
    std::vector<std::string> values;  // memory, mmap: the working set the fetch copies from
    size_t next = 0;
    int memfd = -1;
    std::string request, request_in, get_line, fetched, scratch, body, head;
    Page page;
    LoopbackPeer *feeder = nullptr, *cache = nullptr, *client = nullptr;
    ~State() {
      if (memfd >= 0) ::close(memfd);
    }
  };
  auto st = std::make_shared<State>();
  const uint64_t fit = std::max<uint64_t>(1, kMaxWorkingSet / std::max<size_t>(stored.bytes.size(), 1));
  if (spec.fetch == FetchKind::memory || spec.fetch == FetchKind::mmap)
    st->values.assign(static_cast<size_t>(std::min(spec.values, fit)), stored.bytes);
  if (spec.fetch == FetchKind::pread) {
    st->memfd = ::memfd_create("hitcost-floor-hit", MFD_CLOEXEC);
    if (st->memfd < 0 ||
        ::pwrite(st->memfd, stored.bytes.data(), stored.bytes.size(), 0) != static_cast<ssize_t>(stored.bytes.size()))
      return Error{Errc::io_error, "memfd for the composed hit"};
    st->fetched.resize(stored.bytes.size());
  }
  st->request = "GET /page/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: hitcost-load\r\n\r\n";
  st->request_in.resize(st->request.size());
  st->head.assign(spec.head_bytes, 'h');
  auto feeder = plan.open_peer(LoopbackPeer::Role::feed, 0, st->request.size());
  if (!feeder) return feeder.error();
  st->feeder = *feeder;
  auto client = plan.open_peer(LoopbackPeer::Role::drain, 0, 0);
  if (!client) return client.error();
  st->client = *client;
  if (spec.fetch == FetchKind::memcached) {
    st->get_line.assign(32, 'g');
    st->fetched.resize(stored.bytes.size() + 48);
    auto cache = plan.open_peer(LoopbackPeer::Role::reply, 32, stored.bytes.size() + 48);
    if (!cache) return cache.error();
    st->cache = *cache;
  }
  Step step;
  step.part = "composed";
  step.name = "hit";
  step.library = "in force";
  step.bytes_in = stored.bytes.size();
  step.bytes_out = spec.head_bytes + html.size();
  step.in_force = true;
  const FlagScheme scheme = spec.strategy.scheme;
  const Decoders d = spec.in_force;
  const bool objects = spec.fetch == FetchKind::objects;
  plan.add_op(
      std::move(step),
      [st, &stored, scheme, d, objects, &spec] {
        State& s = *st;
        if (!s.feeder->recv_exact(s.request_in.data(), s.request_in.size())) return false;
        http::request_parser<http::string_body> parser;
        boost::beast::error_code ec;
        parser.put(boost::asio::buffer(s.request), ec);  // the peer's bytes stand in for it, as in add_receive
        if (ec || !parser.is_done()) return false;
        std::string_view bytes = stored.bytes;  // memcached: the reply's bytes stand in for the value
        switch (spec.fetch) {
          case FetchKind::objects: break;
          case FetchKind::memory:
          case FetchKind::mmap:
            s.fetched.assign(s.values[s.next]);
            s.next = s.next + 1 == s.values.size() ? 0 : s.next + 1;
            bytes = s.fetched;
            break;
          case FetchKind::pread:
            if (::pread(s.memfd, s.fetched.data(), s.fetched.size(), 0) != static_cast<ssize_t>(s.fetched.size()))
              return false;
            bytes = s.fetched;
            break;
          case FetchKind::memcached:
            if (!s.cache->send_all(s.get_line.data(), s.get_line.size()) ||
                !s.cache->recv_exact(s.fetched.data(), s.fetched.size()))
              return false;
            break;
        }
        s.body.clear();
        if (objects) {
          render_page(spec.page, s.body);
        } else {
          auto un = unwrap_value(bytes, stored.flags, scheme, s.scratch, d);
          if (!un) return false;
          if (un->rep == Representation::html) {
            s.body.assign(un->payload);
          } else {
            if (!decode_page_into(un->serializer, un->payload, s.page, d)) return false;
            render_page(s.page, s.body);
          }
        }
        return s.client->send_two(s.head.data(), s.head.size(), s.body.data(), s.body.size());
      },
      [st, &html] { return st->body == html; });
  return ok_status();
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
  if (Status s = add_composed(plan, spec, stored, html); !s) return s.error();
  f.steps = plan.run(timing);
  for (const Step& s : f.steps)
    if (s.part == "composed" && s.error.empty()) f.composed_us = s.timing.median_ns / 1e3;
  sum_parts(f);
  return f;
}

}  // namespace hitcost::floor
