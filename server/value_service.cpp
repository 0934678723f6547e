#include "server/value_service.h"

#include <thread>

#include "codecs/value_codec.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"

namespace hitcost::server {

namespace {
// As in page_service.cpp: an error moves its total and its kind together, so /stats' by-kind
// figures add up to the total.
void count_error(OwnedCounter& total, std::array<OwnedCounter, kErrcCount>& by_kind, Errc kind) noexcept {
  total.add();
  by_kind[static_cast<size_t>(kind)].add();
}

// wrap_payload's answer for a strategy the flag scheme cannot express (codecs/value_codec.h):
// every reader rejects it, so storing it would only turn a miss into a decode error later.
constexpr uint32_t kUnexpressibleFlags = 0xFFFFFFFFu;
}  // namespace

void ValueService::lap(Phase p, clock::time_point& t0) {
  if (!timing_) return;
  auto now = clock::now();
  auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - t0).count());
  m_.phases[static_cast<size_t>(p)].record(ns);
  sampler_.mark(cpu_part(p), ns);
  t0 = now;
}

std::string ValueService::key_for(const RuntimeConfig& cfg, size_t n) {
  std::string k;
  k.reserve(cfg.ns.size() + 24);
  k += "hc:";
  k += cfg.ns;
  k += ":v";
  k += std::to_string(n);
  return k;
}

ValueOutcome ValueService::serve(const RuntimeConfig& cfg, const ValueOrigin& origin, const ValueRequest& req,
                                 std::string& body) {
  const Strategy& strategy = req.strategy_override ? *req.strategy_override : cfg.strategy;
  ValueOutcome out;
  out.key = key_for(cfg, req.n);
  out.strategy_name = req.strategy_override ? std::string(req.strategy_override_text) : cfg.strategy_text;
  m_.pages.add();  // a cached rendering served, like a page: the sweep's figures count both
  m_.values.add();
  body.clear();
  sampler_.mark(CpuPart::other);  // routing, up to here
  out.hit = try_hit(cfg, strategy, out.key, body);
  if (out.hit) {
    m_.hits.add();
    sampler_.set_outcome(Outcome::hit);
  } else {
    m_.misses.add();
    sampler_.set_outcome(Outcome::miss);
    miss(cfg, strategy, origin.value(req.n), out.key, body);
  }
  return out;
}

bool ValueService::try_hit(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key,
                           std::string& body) {
  auto t0 = clock::now();
  uint32_t flags = 0;
  Status got = cfg.store->get(key, value_, flags);
  lap(Phase::fetch, t0);
  if (!got) {
    if (got.error().code != Errc::not_found) count_error(m_.store_errors, m_.store_errors_by_kind, got.error().code);
    return false;
  }
  m_.cache_bytes_read.add(value_.size());
  auto un = unwrap_value(value_, flags, cfg.scheme, scratch_);
  lap(Phase::unwrap, t0);
  if (!un) {
    count_error(m_.decode_errors, m_.decode_errors_by_kind, un.error().code);
    return false;
  }
  if (un->rep == Representation::html) {
    body.assign(un->payload);  // the rendering, stored by an html strategy: one copy
    lap(Phase::render, t0);
    return true;
  }
  auto tree = corpus::decode_tree(decoder_for(un->serializer, strategy), un->payload);
  lap(Phase::decode, t0);
  if (!tree) {
    count_error(m_.decode_errors, m_.decode_errors_by_kind, tree.error().code);
    return false;
  }
  corpus::render_tree_html(*tree, body);
  lap(Phase::render, t0);
  return true;
}

void ValueService::miss(const RuntimeConfig& cfg, const Strategy& strategy, const corpus::Value& tree,
                        const std::string& key, std::string& body) {
  auto t0 = clock::now();
  // The origin is a lookup in memory: only the simulated backend wait gives it a cost, as it
  // does for pages (whose origin also generates the data).
  if (origin_delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(origin_delay_us_));
  lap(Phase::origin, t0);
  body.clear();
  corpus::render_tree_html(tree, body);
  lap(Phase::render, t0);
  store_value(cfg, strategy, key, tree, body);
  lap(Phase::store_set, t0);
}

WarmResult ValueService::store_value(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key,
                                     const corpus::Value& tree, std::string_view html) {
  std::string plain;
  if (strategy.rep == Representation::html) {
    plain.assign(html);
  } else if (Status enc = corpus::encode_tree(strategy.serializer, tree, plain); !enc) {
    m_.value_encode_errors.add();
    return WarmResult::unstorable;
  }
  EncodedValue v = wrap_payload(strategy, std::move(plain));
  if (v.flags == kUnexpressibleFlags) {
    m_.value_encode_errors.add();
    return WarmResult::unstorable;
  }
  Status st = cfg.store->set(key, v.bytes, v.flags);
  if (st) {
    m_.cache_bytes_written.add(v.bytes.size());
    return WarmResult::stored;
  }
  m_.store_set_errors.add();  // a failed set is a store error too, counted by kind with the others
  count_error(m_.store_errors, m_.store_errors_by_kind, st.error().code);
  return WarmResult::store_error;
}

WarmResult ValueService::warm(const RuntimeConfig& cfg, const ValueOrigin& origin, size_t n) {
  const corpus::Value& tree = origin.value(n);
  std::string html;
  if (cfg.strategy.rep == Representation::html) corpus::render_tree_html(tree, html);  // struct: no rendering
  return store_value(cfg, cfg.strategy, key_for(cfg, n), tree, html);
}

}  // namespace hitcost::server
