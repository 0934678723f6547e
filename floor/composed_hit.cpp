#include "floor/composed_hit.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <memory>
#include <vector>

#include "codecs/renderer.h"

namespace hitcost::floor {
namespace {

namespace http = boost::beast::http;

// What one composed hit works on, made once before the timing.
class ComposedHit {
 public:
  ComposedHit(const HitSpec& spec, const EncodedValue& stored) : spec_(spec), stored_(stored) {}
  ~ComposedHit() {
    if (memfd_ >= 0) ::close(memfd_);
  }

  Status prepare(Plan& plan) {
    const uint64_t fit = std::max<uint64_t>(1, kMaxWorkingSet / std::max<size_t>(stored_.bytes.size(), 1));
    if (spec_.fetch == FetchKind::memory || spec_.fetch == FetchKind::mmap)
      values_.assign(static_cast<size_t>(std::min(spec_.values, fit)), stored_.bytes);
    if (spec_.fetch == FetchKind::pread) {
      memfd_ = ::memfd_create("hitcost-floor-hit", MFD_CLOEXEC);
      if (memfd_ < 0 ||
          ::pwrite(memfd_, stored_.bytes.data(), stored_.bytes.size(), 0) != static_cast<ssize_t>(stored_.bytes.size()))
        return Error{Errc::io_error, "cannot make the memfd of the composed hit"};
      fetched_.resize(stored_.bytes.size());
    }
    request_in_.resize(request_.size());
    head_.assign(spec_.head_bytes, 'h');
    auto feeder = plan.open_peer(LoopbackPeer::Role::feed, 0, request_.size());
    if (!feeder) return feeder.error();
    feeder_ = *feeder;
    auto client = plan.open_peer(LoopbackPeer::Role::drain, 0, 0);
    if (!client) return client.error();
    client_ = *client;
    if (spec_.fetch == FetchKind::memcached) {
      get_line_.assign(32, 'g');  // a get's line, as calibrate_hit's round trip sends it
      fetched_.resize(stored_.bytes.size() + 48);
      auto cache = plan.open_peer(LoopbackPeer::Role::reply, get_line_.size(), fetched_.size());
      if (!cache) return cache.error();
      cache_ = *cache;
    }
    return ok_status();
  }

  // One hit, start to send; false on any failure.
  bool run() {
    if (!feeder_->recv_exact(request_in_.data(), request_in_.size())) return false;
    http::request_parser<http::string_body> parser;
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(request_), ec);  // the peer's bytes stand in for it, as in add_receive
    if (ec || !parser.is_done()) return false;
    std::string_view bytes;
    if (!fetch(bytes)) return false;
    body_.clear();
    if (spec_.fetch == FetchKind::objects) {
      render_page(spec_.page, body_);
    } else {
      auto un = unwrap_value(bytes, stored_.flags, spec_.strategy.scheme, scratch_, spec_.in_force);
      if (!un) return false;
      if (un->rep == Representation::html) {
        body_.assign(un->payload);
      } else {
        if (!decode_page_into(un->serializer, un->payload, page_, spec_.in_force)) return false;
        render_page(page_, body_);
      }
    }
    return client_->send_two(head_.data(), head_.size(), body_.data(), body_.size());
  }

  const std::string& body() const { return body_; }

 private:
  // The value's bytes as the store hands them over (memcached: the reply stands in for the value).
  bool fetch(std::string_view& bytes) {
    bytes = stored_.bytes;
    switch (spec_.fetch) {
      case FetchKind::objects: return true;
      case FetchKind::memory:
      case FetchKind::mmap:
        fetched_.assign(values_[next_]);
        next_ = next_ + 1 == values_.size() ? 0 : next_ + 1;
        bytes = fetched_;
        return true;
      case FetchKind::pread:
        bytes = fetched_;
        return ::pread(memfd_, fetched_.data(), fetched_.size(), 0) == static_cast<ssize_t>(fetched_.size());
      case FetchKind::memcached:
        return cache_->send_all(get_line_.data(), get_line_.size()) &&
               cache_->recv_exact(fetched_.data(), fetched_.size());
    }
    return false;
  }

  const HitSpec& spec_;
  const EncodedValue& stored_;
  std::vector<std::string> values_;  // memory, mmap: the working set the fetch copies from
  size_t next_ = 0;
  int memfd_ = -1;
  const std::string request_ = "GET /page/1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: hitcost-load\r\n\r\n";
  std::string request_in_, get_line_, fetched_, scratch_, body_, head_;
  Page page_;
  LoopbackPeer *feeder_ = nullptr, *cache_ = nullptr, *client_ = nullptr;
};

}  // namespace

Status add_composed_hit(Plan& plan, const HitSpec& spec, const EncodedValue& stored, const std::string& html) {
  auto hit = std::make_shared<ComposedHit>(spec, stored);
  if (Status s = hit->prepare(plan); !s) return s;
  Step step;
  step.part = "composed";
  step.name = "hit";
  step.library = "in force";
  step.bytes_in = stored.bytes.size();
  step.bytes_out = spec.head_bytes + html.size();
  step.in_force = true;
  plan.add_op(
      std::move(step), [hit] { return hit->run(); }, [hit, &html] { return hit->body() == html; });
  return ok_status();
}

}  // namespace hitcost::floor
