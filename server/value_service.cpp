#include "server/value_service.h"

#include <thread>

#include "codecs/value_codec.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"

namespace hitcost::server {

std::string ValueService::key_for(const RuntimeConfig& cfg, size_t n) {
  std::string k;
  k.reserve(cfg.ns.size() + 24);
  k += "hc:";
  k += cfg.ns;
  k += ":v";
  k += std::to_string(n);
  return k;
}

ServeOutcome ValueService::serve(const RuntimeConfig& cfg, const ValueOrigin& origin, const ValueRequest& req,
                                 std::string& body) {
  const Strategy& strategy = req.strategy_override ? *req.strategy_override : cfg.strategy;
  ServeOutcome out;
  out.key = key_for(cfg, req.n);
  out.strategy_name = req.strategy_override ? std::string(req.strategy_override_text) : cfg.strategy_text;
  m_.pages.add();  // a cached rendering served, like a page: the sweep's figures count both
  m_.values.add();
  body.clear();
  steps_.begin();
  out.hit = try_hit(cfg, strategy, out, body);
  steps_.finish(out);
  if (!out.hit) miss(cfg, strategy, origin.value(req.n), out.key, body);
  return out;
}

bool ValueService::try_hit(const RuntimeConfig& cfg, const Strategy& strategy, ServeOutcome& out, std::string& body) {
  auto t0 = clock::now();
  std::optional<Unwrapped> un = steps_.fetch(*cfg.store, strategy, cfg.scheme, cfg.decoders, out, t0);
  if (!un) return false;
  if (un->rep == Representation::html) {
    body.assign(un->payload);  // the rendering, stored by an html strategy: one copy
    steps_.lap(Phase::render, t0);
    return true;
  }
  auto tree = corpus::decode_tree(un->serializer, un->payload);
  steps_.lap(Phase::decode, t0);
  if (!tree) {
    m_.count_decode_error(tree.error().code);
    return false;
  }
  corpus::render_tree_html(*tree, body);
  steps_.lap(Phase::render, t0);
  return true;
}

void ValueService::miss(const RuntimeConfig& cfg, const Strategy& strategy, const corpus::Value& tree,
                        const std::string& key, std::string& body) {
  auto t0 = clock::now();
  // The origin is a lookup in memory: only the simulated backend wait gives it a cost, as it
  // does for pages (whose origin also generates the data).
  if (origin_delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(origin_delay_us_));
  steps_.lap(Phase::origin, t0);
  body.clear();
  corpus::render_tree_html(tree, body);
  steps_.lap(Phase::render, t0);
  store_value(cfg, strategy, key, tree, body);
  steps_.lap(Phase::store_set, t0);
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
  // A layout the scheme cannot say: every reader would reject it, so storing it would only turn
  // a miss into a decode error.
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
  m_.count_store_error(st.error().code);
  return WarmResult::store_error;
}

WarmResult ValueService::warm(const RuntimeConfig& cfg, const ValueOrigin& origin, size_t n) {
  const corpus::Value& tree = origin.value(n);
  std::string html;
  if (cfg.strategy.rep == Representation::html) corpus::render_tree_html(tree, html);  // struct: no rendering
  return store_value(cfg, cfg.strategy, key_for(cfg, n), tree, html);
}

}  // namespace hitcost::server
