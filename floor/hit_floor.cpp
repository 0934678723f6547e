#include "floor/hit_floor.h"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <deque>
#include <memory>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "floor/loopback.h"

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

double Step::mb_per_s() const noexcept {
  const double bytes = static_cast<double>(std::max(bytes_in, bytes_out));
  return timing.median_ns > 0 ? bytes / timing.median_ns * 1e3 : 0;  // bytes/ns = GB/s; x1000 = MB/s
}

namespace {

namespace http = boost::beast::http;

// A GET as hitcost-load sends it, padded to `bytes` with a header the parser reads like any other.
std::string request_text(size_t bytes) {
  std::string r = "GET /page/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: hitcost-load\r\n";
  const std::string tail = "\r\n";
  const std::string pad = "X-Pad: ";
  if (r.size() + pad.size() + 2 + tail.size() < bytes)
    r += pad + std::string(bytes - r.size() - pad.size() - 4, 'p') + "\r\n";
  return r + tail;
}

// The steps of one calibration and what their ops need, at stable addresses.
struct Plan {
  std::deque<Step> steps;
  std::deque<TimedOp> ops;
  std::vector<std::unique_ptr<LoopbackPeer>> links;
  std::deque<std::string> buffers;

  std::string& buffer(size_t n = 0) { return buffers.emplace_back(n, 'x'); }
  void add(Step s, std::function<bool()> op, std::function<bool()> check = {}) {
    steps.push_back(std::move(s));
    ops.push_back(TimedOp{std::move(op), std::move(check), {}, false, {}});
  }
};

Step step(const char* part, const char* name, std::string library, size_t in, size_t out, bool in_force = true) {
  Step s;
  s.part = part;
  s.name = name;
  s.library = std::move(library);
  s.bytes_in = in;
  s.bytes_out = out;
  s.in_force = in_force;
  return s;
}

// Per part: each step name's lowest alternative (floor) and its alternative in force, summed.
void sum_parts(HitFloor& f) {
  struct Alternatives {
    const Step* fastest = nullptr;
    const Step* in_force = nullptr;
  };
  std::map<std::pair<std::string, std::string>, Alternatives> by_name;
  for (const Step& s : f.steps) {
    if (!s.error.empty()) continue;
    Alternatives& a = by_name[{s.part, s.name}];
    if (!a.fastest || s.timing.median_ns < a.fastest->timing.median_ns) a.fastest = &s;
    if (s.in_force) a.in_force = &s;
  }
  for (const char* part : {"receive", "fetch", "unwrap", "decode", "render", "write", "other"}) {
    f.floor_us[part] = 0;
    f.in_force_us[part] = 0;
  }
  for (auto& [key, a] : by_name) {
    f.floor_us[key.first] += a.fastest->timing.median_ns / 1e3;
    f.in_force_us[key.first] += (a.in_force ? a.in_force : a.fastest)->timing.median_ns / 1e3;
  }
  for (Step& s : f.steps) {
    auto it = by_name.find({s.part, s.name});
    s.fastest = it != by_name.end() && it->second.fastest == &s;
  }
  double floor_total = 0, in_force_total = 0;
  for (auto& [part, us] : f.floor_us) floor_total += us;
  for (auto& [part, us] : f.in_force_us) in_force_total += us;
  f.floor_us["total"] = floor_total;
  f.in_force_us["total"] = in_force_total;
}

}  // namespace

Result<HitFloor> calibrate_hit(const HitSpec& spec, const TimingPlan& timing_plan) {
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
  const Representation rep = un->rep;
  const SerializerId serializer = un->serializer;
  const CompressorId compressor = un->compressor;
  f.stored_bytes = stored.bytes.size();
  f.payload_bytes = payload.size();
  f.body_bytes = html.size();
  Plan plan;

  // receive: the request's bytes off the socket, then Beast's parse of them.
  const std::string request = request_text(spec.request_bytes);
  auto feed = LoopbackPeer::open(LoopbackPeer::Role::feed, 0, request.size(), spec.peer_cpu);
  if (!feed) return feed.error();
  LoopbackPeer* feeder = plan.links.emplace_back(std::move(*feed)).get();
  std::string& request_in = plan.buffer(request.size());
  plan.add(step("receive", "recv", "kernel", request.size(), request.size()),
           [feeder, &request_in] { return feeder->recv_exact(request_in.data(), request_in.size()); });
  plan.add(step("receive", "http_parse", "beast", request.size(), 0), [&request] {
    http::request_parser<http::string_body> parser;
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(request), ec);
    return !ec && parser.is_done();
  });

  // fetch: the stored bytes into a reused buffer, as the store's get does.
  std::string& fetched = plan.buffer();
  switch (spec.fetch) {
    case FetchKind::objects: break;  // a shared pointer: nothing to floor
    case FetchKind::memory:
    case FetchKind::mmap:
      plan.add(step("fetch", "memcpy", "libc", stored.bytes.size(), stored.bytes.size()), [&fetched, &stored] {
        fetched.assign(stored.bytes);
        return true;
      });
      break;
    case FetchKind::pread: {
      // A memfd: the page cache without a disk, as a warm file store reads.
      const int fd = ::memfd_create("hitcost-floor", MFD_CLOEXEC);
      if (fd < 0) return Error{Errc::io_error, "memfd_create failed"};
      auto closer = std::shared_ptr<void>(nullptr, [fd](void*) { ::close(fd); });
      if (::pwrite(fd, stored.bytes.data(), stored.bytes.size(), 0) != static_cast<ssize_t>(stored.bytes.size())) {
        return Error{Errc::io_error, "pwrite to the memfd failed"};
      }
      fetched.resize(stored.bytes.size());
      plan.add(step("fetch", "pread", "kernel", stored.bytes.size(), stored.bytes.size()), [fd, closer, &fetched] {
        return ::pread(fd, fetched.data(), fetched.size(), 0) == static_cast<ssize_t>(fetched.size());
      });
      break;
    }
    case FetchKind::memcached: {
      // A get: the key's line out, the value with its header and END back (ASCII protocol sizes).
      const size_t get_bytes = 32, reply_bytes = stored.bytes.size() + 48;
      auto cache = LoopbackPeer::open(LoopbackPeer::Role::reply, get_bytes, reply_bytes, spec.peer_cpu);
      if (!cache) return cache.error();
      LoopbackPeer* link = plan.links.emplace_back(std::move(*cache)).get();
      std::string& get_line = plan.buffer(get_bytes);
      fetched.resize(reply_bytes);
      plan.add(step("fetch", "round_trip", "kernel", get_bytes, reply_bytes), [link, &get_line, &fetched] {
        return link->send_all(get_line.data(), get_line.size()) && link->recv_exact(fetched.data(), fetched.size());
      });
      break;
    }
  }

  // unwrap: every library of the value's format.
  if (compressor != CompressorId::none && spec.fetch != FetchKind::objects) {
    std::string& scratch = plan.buffer();
    auto add_unwrap = [&](Decoders d, std::string library, bool in_force) {
      plan.add(
          step("unwrap", "decompress", std::move(library), stored.bytes.size(), payload.size(), in_force),
          [&stored, &spec, &scratch, d] {
            return unwrap_value(stored.bytes, stored.flags, spec.strategy.scheme, scratch, d).ok();
          },
          [&scratch, &payload] { return scratch == payload; });
    };
    if (compressor == CompressorId::zlib) {
      for (const InflateRow& lib : kInflateLibraries) {
        add_unwrap(Decoders{.inflate = lib.id}, lib.name, lib.id == spec.in_force.inflate);
      }
    } else {
      add_unwrap(spec.in_force, to_string(compressor), true);
    }
  }

  // decode: every library of the serializer's format.
  if (rep == Representation::structured && spec.fetch != FetchKind::objects) {
    for (const PageDecoder& dec : page_decoders()) {
      if (dec.serializer != serializer) continue;
      const bool in_force = serializer != SerializerId::json || dec.decoders.json == spec.in_force.json;
      auto decoded = std::make_shared<Result<Page>>(Page{});
      plan.add(
          step("decode", "decode", dec.name, payload.size(), 0, in_force),
          [&payload, dec, decoded] {
            *decoded = decode_page(dec.serializer, payload, dec.decoders);
            return decoded->ok();
          },
          [decoded, &spec] { return decoded->ok() && **decoded == spec.page; });
    }
  }

  // render: the page into the response body; an html value is copied in whole.
  std::string& body = plan.buffer();
  if (rep == Representation::html && spec.fetch != FetchKind::objects) {
    plan.add(step("render", "memcpy", "libc", payload.size(), payload.size()), [&body, &payload] {
      body.assign(payload);
      return true;
    });
  } else {
    plan.add(
        step("render", "render", "hitcost", 0, html.size()),
        [&body, &spec] {
          body.clear();
          render_page(spec.page, body);
          return true;
        },
        [&body, &html] { return body == html; });
  }

  // write: the response's head and body in one send, to a peer that reads it.
  auto reader = LoopbackPeer::open(LoopbackPeer::Role::drain, 0, 0, spec.peer_cpu);
  if (!reader) return reader.error();
  LoopbackPeer* client = plan.links.emplace_back(std::move(*reader)).get();
  std::string& response = plan.buffer(spec.head_bytes + html.size());
  plan.add(step("write", "send", "kernel", response.size(), response.size()),
           [client, &response] { return client->send_all(response.data(), response.size()); });

  std::vector<TimedOp*> ops;
  for (TimedOp& op : plan.ops) ops.push_back(&op);
  time_interleaved(ops, timing_plan);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    Step& s = plan.steps[i];
    s.timing = plan.ops[i].timing;
    if (!plan.ops[i].ok) s.error = plan.ops[i].error;
    f.steps.push_back(std::move(s));
  }
  sum_parts(f);
  return f;
}

}  // namespace hitcost::floor
