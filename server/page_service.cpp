#include "server/page_service.h"

#include <thread>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"

namespace hitcost::server {

namespace {
// An error is counted in its total and under its kind: the two always move together, so
// /stats' by-kind figures add up to the total. Errc::count_ sizes the by-kind arrays, so
// every kind there is has its slot.
void count_error(OwnedCounter& total, std::array<OwnedCounter, kErrcCount>& by_kind, Errc kind) noexcept {
  total.add();
  by_kind[static_cast<size_t>(kind)].add();
}
}  // namespace

uint64_t PageService::lap(Phase p, clock::time_point& t0) {
  if (!timing_) return 0;
  auto now = clock::now();
  auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - t0).count());
  m_.phases[static_cast<size_t>(p)].record(ns);
  sampler_.mark(cpu_part(p), ns);
  t0 = now;
  return ns;
}

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

PageOutcome PageService::serve(const RuntimeConfig& cfg, const PageRequest& req, std::string& body) {
  const Strategy& strategy = req.strategy_override ? *req.strategy_override : cfg.strategy;
  PageOutcome out;
  out.key = key_for(cfg, req.id, req.rows);
  out.strategy_name = req.strategy_override ? std::string(req.strategy_override_text) : cfg.strategy_text;
  m_.pages.add();
  body.clear();
  sampler_.mark(CpuPart::other);  // routing, up to here
  out.hit = try_hit(cfg, strategy, out.key, body);
  if (out.hit) {
    m_.hits.add();
    sampler_.set_outcome(Outcome::hit);
  } else {
    m_.misses.add();
    sampler_.set_outcome(Outcome::miss);
    miss(cfg, strategy, req, out.key, body);
  }
  return out;
}

bool PageService::try_hit(const RuntimeConfig& cfg, const Strategy& strategy, const std::string& key,
                          std::string& body) {
  Store& store = *cfg.store;
  auto t0 = clock::now();
  if (ObjectCache* objects = store.objects()) {
    // memory:objects: no bytes at all, the APCu-style floor.
    auto page = objects->get_page(key);
    lap(Phase::fetch, t0);
    if (!page) return false;
    render_page(*page, body);
    lap(Phase::render, t0);
    return true;
  }
  uint32_t flags = 0;
  Status got = store.get(key, value_, flags);
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
    body.assign(un->payload);  // the pre-rendered page: one copy
    lap(Phase::render, t0);
    return true;
  }
  auto page = decode_page(decoder_for(un->serializer, strategy), un->payload);
  lap(Phase::decode, t0);
  if (!page) {
    count_error(m_.decode_errors, m_.decode_errors_by_kind, page.error().code);
    return false;
  }
  render_page(*page, body);
  lap(Phase::render, t0);
  return true;
}

void PageService::miss(const RuntimeConfig& cfg, const Strategy& strategy, const PageRequest& req,
                       const std::string& key, std::string& body) {
  auto t0 = clock::now();
  if (origin_delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(origin_delay_us_));
  Page page = origin_page(cfg, req.id, req.rows);
  lap(Phase::origin, t0);
  body.clear();
  render_page(page, body);
  lap(Phase::render, t0);
  store_page(cfg, strategy, key, std::move(page), body);
  lap(Phase::store_set, t0);
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
  count_error(m_.store_errors, m_.store_errors_by_kind, st.error().code);
  return false;
}

bool PageService::warm(const RuntimeConfig& cfg, int64_t id, uint32_t rows) {
  Page page = origin_page(cfg, id, rows);
  std::string html = cfg.store->objects() ? std::string() : render_page(page);  // objects need no HTML
  return store_page(cfg, cfg.strategy, key_for(cfg, id, rows), std::move(page), html);
}

}  // namespace hitcost::server
