#include "floor/step_plan.h"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <map>
#include <tuple>

#include "codecs/flag_scheme.h"
#include "codecs/renderer.h"

namespace hitcost::floor {
namespace {

namespace http = boost::beast::http;

// A GET as hitcost-load sends it, padded to `bytes` with a header the parser reads like any other.
std::string request_text(size_t bytes) {
  std::string r = "GET /page/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: hitcost-load\r\n";
  const std::string pad = "X-Pad: ";
  if (r.size() + pad.size() + 4 < bytes) r += pad + std::string(bytes - r.size() - pad.size() - 4, 'p') + "\r\n";
  return r + "\r\n";
}

Step make_step(const std::string& part, const char* name, std::string library, size_t in, size_t out,
               std::string bytes_of = "", bool in_force = true) {
  Step s;
  s.part = part;
  s.name = name;
  s.library = std::move(library);
  s.bytes_of = std::move(bytes_of);
  s.bytes_in = in;
  s.bytes_out = out;
  s.in_force = in_force;
  return s;
}

}  // namespace

double Step::mb_per_s() const noexcept {
  const double bytes = static_cast<double>(std::max(bytes_in, bytes_out));
  return timing.median_ns > 0 ? bytes / timing.median_ns * 1e3 : 0;  // bytes/ns = GB/s; x1000 = MB/s
}

void Plan::add(Step s, std::function<bool()> op, std::function<bool()> check) {
  entries_.push_back(Entry{std::move(s), TimedOp{std::move(op), std::move(check), {}, false, {}}});
}

Result<LoopbackPeer*> Plan::open_peer(LoopbackPeer::Role role, size_t request_bytes, size_t reply_bytes) {
  auto peer = LoopbackPeer::open(role, request_bytes, reply_bytes, peer_cpu_);
  if (!peer) return peer.error();
  return links_.emplace_back(std::move(*peer)).get();
}

Status Plan::add_receive(const std::string& part, size_t request_bytes) {
  const std::string& request = keep(request_text(request_bytes));
  auto feed = LoopbackPeer::open(LoopbackPeer::Role::feed, 0, request.size(), peer_cpu_);
  if (!feed) return feed.error();
  LoopbackPeer* feeder = links_.emplace_back(std::move(*feed)).get();
  std::string& in = buffer(request.size());
  add(make_step(part, "recv", "kernel", request.size(), request.size()),
      [feeder, &in] { return feeder->recv_exact(in.data(), in.size()); });
  add(make_step(part, "http_parse", "beast", request.size(), 0), [&request] {
    http::request_parser<http::string_body> parser;
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(request), ec);
    return !ec && parser.is_done();
  });
  return ok_status();
}

Status Plan::add_send(const std::string& part, size_t bytes) {
  auto reader = LoopbackPeer::open(LoopbackPeer::Role::drain, 0, 0, peer_cpu_);
  if (!reader) return reader.error();
  LoopbackPeer* client = links_.emplace_back(std::move(*reader)).get();
  std::string& out = buffer(bytes);
  add(make_step(part, "send", "kernel", bytes, bytes),
      [client, &out] { return client->send_all(out.data(), out.size()); });
  return ok_status();
}

Status Plan::add_round_trip(const std::string& part, size_t request, size_t reply) {
  auto peer = LoopbackPeer::open(LoopbackPeer::Role::reply, request, reply, peer_cpu_);
  if (!peer) return peer.error();
  LoopbackPeer* link = links_.emplace_back(std::move(*peer)).get();
  std::string& out = buffer(request);
  std::string& in = buffer(reply);
  add(make_step(part, "round_trip", "kernel", request, reply),
      [link, &out, &in] { return link->send_all(out.data(), out.size()) && link->recv_exact(in.data(), in.size()); });
  return ok_status();
}

void Plan::add_memcpy(const std::string& part, const std::string& bytes, std::string bytes_of, size_t copies) {
  std::string& to = buffer();
  if (copies <= 1) {
    const std::string& from = keep(bytes);
    add(make_step(part, "memcpy", "libc", from.size(), from.size(), std::move(bytes_of)), [&from, &to] {
      to.assign(from);
      return true;
    });
    return;
  }
  auto set = std::make_shared<std::vector<std::string>>(copies, bytes);
  auto next = std::make_shared<size_t>(0);
  add(make_step(part, "memcpy", "libc, " + std::to_string(copies) + " values", bytes.size(), bytes.size(),
                std::move(bytes_of)),
      [set, next, &to] {
        to.assign((*set)[*next]);
        *next = *next + 1 == set->size() ? 0 : *next + 1;
        return true;
      });
}

Status Plan::add_pread(const std::string& part, const std::string& bytes, std::string bytes_of) {
  const int fd = ::memfd_create("hitcost-floor", MFD_CLOEXEC);
  if (fd < 0) return Error{Errc::io_error, "memfd_create failed"};
  held_.push_back(std::shared_ptr<void>(nullptr, [fd](void*) { ::close(fd); }));
  if (::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    return Error{Errc::io_error, "pwrite to the memfd failed"};
  }
  std::string& to = buffer(bytes.size());
  add(make_step(part, "pread", "kernel", bytes.size(), bytes.size(), std::move(bytes_of)),
      [fd, &to] { return ::pread(fd, to.data(), to.size(), 0) == static_cast<ssize_t>(to.size()); });
  return ok_status();
}

void Plan::add_unwrap(const std::string& part, const EncodedValue& stored_value, FlagScheme scheme,
                      const std::string& payload_text, const Decoders& in_force, std::string bytes_of) {
  const EncodedValue& stored = values_.emplace_back(stored_value);
  const std::string& payload = keep(payload_text);
  auto info = read_flags(scheme, stored.flags);
  if (!info || info->compressor == CompressorId::none) return;
  std::string& scratch = buffer();
  auto one = [&](Decoders d, std::string library, bool force) {
    add(
        make_step(part, "decompress", std::move(library), stored.bytes.size(), payload.size(), bytes_of, force),
        [&stored, scheme, &scratch, d] { return unwrap_value(stored.bytes, stored.flags, scheme, scratch, d).ok(); },
        [&scratch, &payload] { return scratch == payload; });
  };
  if (info->compressor == CompressorId::zlib) {
    for (const InflateRow& lib : kInflateLibraries) {
      Decoders d = in_force;
      d.inflate = lib.id;
      one(d, std::string("zlib:") + lib.name, lib.id == in_force.inflate);
    }
  } else {
    one(in_force, to_string(info->compressor), true);
  }
}

void Plan::add_decode(const std::string& part, SerializerId s, const std::string& payload_text, const Page& page_in,
                      const Decoders& in_force, std::string bytes_of) {
  const std::string& payload = keep(payload_text);
  const Page& page = keep(page_in);
  for (const PageDecoder& dec : page_decoders()) {
    if (dec.serializer != s) continue;
    const bool force = s != SerializerId::json || dec.decoders.json == in_force.json;
    // Into one page, reused from call to call as the server's thread reuses its own.
    auto decoded = std::make_shared<Page>();
    add(
        make_step(part, "decode", dec.name, payload.size(), 0, bytes_of, force),
        [&payload, dec, decoded] { return decode_page_into(dec.serializer, payload, *decoded, dec.decoders).ok(); },
        [decoded, &page] { return *decoded == page; });
  }
}

void Plan::add_encode(const std::string& part, SerializerId s, const Page& page_in) {
  const Page& page = keep(page_in);
  std::string& out = buffer();
  add(
      make_step(part, "encode", to_string(s), 0, encode_page(s, page).size(), to_string(s)),
      [&out, &page, s] {
        out.clear();
        encode_page_into(s, page, out);
        return true;
      },
      [&out, &page, s] { return decode_page(s, out).ok() && *decode_page(s, out) == page; });
}

void Plan::add_render(const std::string& part, const Page& page_in, const std::string& html_text) {
  const Page& page = keep(page_in);
  const std::string& html = keep(html_text);
  std::string& body = buffer();
  add(
      make_step(part, "render", "hitcost", 0, html.size(), "html"),
      [&body, &page] {
        body.clear();
        render_page(page, body);
        return true;
      },
      [&body, &html] { return body == html; });
}

std::vector<Step> Plan::run(const TimingPlan& timing) {
  std::vector<TimedOp*> ops;
  for (Entry& e : entries_) ops.push_back(&e.op);
  time_interleaved(ops, timing);
  std::vector<Step> steps;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> fastest;  // (part, name, bytes_of) -> index
  for (Entry& e : entries_) {
    Step s = std::move(e.step);
    s.timing = e.op.timing;
    if (!e.op.ok) s.error = e.op.error;
    steps.push_back(std::move(s));
    const Step& added = steps.back();
    if (!added.error.empty()) continue;
    auto [it, fresh] = fastest.try_emplace({added.part, added.name, added.bytes_of}, steps.size() - 1);
    if (!fresh && added.timing.median_ns < steps[it->second].timing.median_ns) it->second = steps.size() - 1;
  }
  for (const auto& [key, index] : fastest) steps[index].fastest = true;
  return steps;
}

}  // namespace hitcost::floor
