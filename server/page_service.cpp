#include "server/page_service.h"

#include <thread>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"

namespace hitcost::server {

std::string PageService::key_for(const RuntimeConfig& cfg, int64_t id, uint32_t rows) {
  std::string k;
  k.reserve(cfg.ns.size() + 32);
  k += "hc:";
  k += cfg.ns;
  k += ":p";
  k += std::to_string(id);
  k += ":r";
  k += std::to_string(rows);
  return k;
}

Page PageService::origin_page(const RuntimeConfig& cfg, int64_t id, uint32_t rows) {
  PageSpec spec;
  spec.id = id;
  spec.rows = rows;
  spec.seed = cfg.seed;
  spec.compressibility = cfg.compressibility;
  return generate_page(spec);
}

ServeOutcome PageService::serve(const RuntimeConfig& cfg, const PageRequest& req, std::string& body) {
  const Strategy& strategy = req.strategy_override ? *req.strategy_override : cfg.strategy;
  ServeOutcome out;
  out.key = key_for(cfg, req.id, req.rows);
  out.strategy_name = req.strategy_override ? std::string(req.strategy_override_text) : cfg.strategy_text;
  m_.pages.add();
  body.clear();
  steps_.begin();
  out.hit = try_hit(cfg, strategy, out, body);
  steps_.finish(out);
  if (!out.hit) miss(cfg, strategy, req, out.key, body);
  return out;
}

bool PageService::try_hit(const RuntimeConfig& cfg, const Strategy& strategy, ServeOutcome& out, std::string& body) {
  Store& store = *cfg.store;
  auto t0 = clock::now();
  if (ObjectCache* objects = store.objects()) {
    // memory:objects: no bytes at all, the APCu-style floor (no flags: every strategy reads it).
    auto page = objects->get_page(out.key);
    steps_.lap(Phase::fetch, t0);
    if (!page) return false;
    render_page(*page, body);
    steps_.lap(Phase::render, t0);
    return true;
  }
  std::optional<Unwrapped> un = steps_.fetch(store, strategy, cfg.scheme, cfg.decoders, out, t0);
  if (!un) return false;
  if (un->rep == Representation::html) {
    body.assign(un->payload);  // the pre-rendered page: one copy
    steps_.lap(Phase::render, t0);
    return true;
  }
  Status decoded = decode_page_into(un->serializer, un->payload, decoded_, cfg.decoders);
  steps_.lap(Phase::decode, t0);
  if (!decoded) {
    m_.count_decode_error(decoded.error().code);
    return false;
  }
  render_page(decoded_, body);
  steps_.lap(Phase::render, t0);
  return true;
}

void PageService::miss(const RuntimeConfig& cfg, const Strategy& strategy, const PageRequest& req,
                       const std::string& key, std::string& body) {
  auto t0 = clock::now();
  if (origin_delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(origin_delay_us_));
  Page page = origin_page(cfg, req.id, req.rows);
  steps_.lap(Phase::origin, t0);
  body.clear();
  render_page(page, body);
  steps_.lap(Phase::render, t0);
  store_page(cfg, strategy, key, std::move(page), body);
  steps_.lap(Phase::store_set, t0);
}

bool PageService::store_page(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key, Page&& page,
                             std::string_view html) {
  Store& store = *cfg.store;
  if (ObjectCache* objects = store.objects()) {
    objects->set_page(key, std::make_shared<const Page>(std::move(page)));
    return true;
  }
  EncodedValue v = encode_value(strategy, page, html);
  Status st = store.set(key, v.bytes, v.flags);
  if (st) {
    m_.cache_bytes_written.add(v.bytes.size());
    return true;
  }
  m_.store_set_errors.add();  // a failed set is a store error too, counted by kind with the others
  m_.count_store_error(st.error().code);
  return false;
}

bool PageService::warm(const RuntimeConfig& cfg, int64_t id, uint32_t rows) {
  Page page = origin_page(cfg, id, rows);
  std::string html = cfg.store->objects() ? std::string() : render_page(page);  // objects need no HTML
  return store_page(cfg, cfg.strategy, key_for(cfg, id, rows), std::move(page), html);
}

}  // namespace hitcost::server
