#include "server/router.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "codecs/value_codec.h"
#include "codecs/zstd_dictionary.h"
#include "core/parse_number.h"
#include "floor/floor_json.h"
#include "server/slow_log.h"
#include "server/stats_report.h"
#include "server/store_health.h"

namespace hitcost::server {

namespace http = boost::beast::http;

namespace {

// Value of `name` in a query string "a=1&b=2", percent-decoded. '+' stays '+'
// (the strategy grammar uses it); encode a space as %20.
std::optional<std::string> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    size_t eq = part.find('=');
    if (part.substr(0, eq) != name) continue;
    std::string_view raw = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%' && i + 2 < raw.size()) {
        int v = 0;
        auto r = std::from_chars(raw.data() + i + 1, raw.data() + i + 3, v, 16);
        if (r.ec == std::errc() && r.ptr == raw.data() + i + 3) {
          out += static_cast<char>(v);
          i += 2;
          continue;
        }
      }
      out += raw[i];
    }
    return out;
  }
  return std::nullopt;
}

void json_body(Response& res, std::string& body, const nlohmann::json& j, int status = 200) {
  res.status = status;
  res.content_type = "application/json";
  body = j.dump();
  body += '\n';
}

// What a cached rendering's response says of how it was served (/page and /value alike): the
// X-Cache headers and what the access log writes. X-Strategy is the strategy that answered:
// on a hit of a value another strategy wrote, its stored form, and X-Strategy-Asked the strategy
// in force, so that a client checking X-Strategy sees the mismatch (docs/http-api.md).
void tell_outcome(ServeOutcome out, Response& res) {
  res.header("X-Cache", out.hit ? "hit" : "miss");
  res.header("X-Cache-Key", out.key);
  res.header("X-Strategy", out.strategy_name);
  if (!out.stored_as.empty()) res.header("X-Stored-As", out.stored_as);
  if (out.strategy_mismatch()) res.header("X-Strategy-Asked", out.strategy_asked);
  res.cache = out.hit ? "hit" : "miss";
  res.strategy = std::move(out.strategy_name);
  res.key = std::move(out.key);
}

// X-Strategy of a ?strategy= override: its canonical name, but a preset by its own name, which
// the client asked for and checks X-Strategy against (php-default is struct:php+fastlz, and
// was reported so: every answer to hitcost-load --strategy php-default was a validation error).
std::string override_name(std::string_view asked, const Strategy& strategy) {
  return find_preset(asked) ? std::string(asked) : strategy.name();
}

// The reasons /value and warming values give when they cannot serve.
constexpr std::string_view kNoCorpus = "no corpus loaded (start hitcost-server with --corpus PATH)";
constexpr std::string_view kObjectsHoldPages =
    "the memory:objects store holds decoded pages, not value trees: serve /value from a bytes store "
    "(memory, memcached:..., mmap:..., pread:...)";

// Fills ids [from, to) with fill(id), then retries the store errors in up to 3 more rounds,
// 0.5, 1 and 2 s apart: one timeout makes the memcached store skip the node for a moment, and a
// sweep measured on a half-warm store measures misses. Unstorable values (the strategy cannot
// write them) are not retried: another round cannot change that. A SIGTERM (`stopping`) ends
// the fill between two ids (the drain would otherwise wait for a fill of millions until the drain
// timeout cut it); the answer says how far it got.
template <class Fill, class Stopping>
nlohmann::json warm_range(int64_t from, int64_t to, Fill&& fill, Stopping&& stopping) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<int64_t> failed;
  int64_t next = from, unstorable = 0;
  for (; next < to && !stopping(); ++next) {
    WarmResult r = fill(next);
    if (r == WarmResult::store_error) failed.push_back(next);
    if (r == WarmResult::unstorable) ++unstorable;
  }
  uint64_t first_round_errors = failed.size();
  for (int round = 0; round < 3 && !failed.empty() && !stopping(); ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500 << round));
    std::vector<int64_t> still;
    for (int64_t id : failed)
      if (stopping() || fill(id) != WarmResult::stored) still.push_back(id);
    failed.swap(still);
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json answer = {{"warmed", next - from - static_cast<int64_t>(failed.size()) - unstorable},
                           {"errors", failed.size()},
                           {"retried", first_round_errors},
                           {"ms", ms}};
  if (unstorable > 0) answer["unstorable"] = unstorable;  // values only: see server/value_service.h
  if (next < to) answer["stopped_at"] = next;             // the server is shutting down
  return answer;
}

}  // namespace

Router::Router(ServerContext& ctx, ThreadMetrics& metrics, CpuSampler& sampler)
    : ctx_(ctx),
      m_(metrics),
      view_(ctx.config),
      pages_(metrics, sampler, ctx.opts.metrics, ctx.opts.origin_delay_us),
      values_(metrics, sampler, ctx.opts.metrics, ctx.opts.origin_delay_us) {}

void Router::error(Response& res, std::string& body, int status, std::string_view reason) {
  res.status = status;
  res.content_type = "text/plain; charset=utf-8";
  body.assign(reason);
  body += '\n';
}

void Router::handle(const HttpRequest& req, const boost::asio::ip::address& peer, Response& res, std::string& body) {
  body.clear();
  std::string_view target(req.target().data(), req.target().size());
  size_t qpos = target.find('?');
  std::string_view path = target.substr(0, qpos);
  std::string_view query = qpos == std::string_view::npos ? std::string_view{} : target.substr(qpos + 1);
  const bool is_get = req.method() == http::verb::get;
  const bool is_post = req.method() == http::verb::post;

  auto method_not_allowed = [&](const char* allow) {
    res.header("Allow", allow);
    error(res, body, 405, "method not allowed");
  };

  if (path.starts_with("/page/")) {
    if (is_get) return page(path.substr(6), query, res, body);
    if (req.method() == http::verb::put || req.method() == http::verb::delete_)
      return page_write(req.method() == http::verb::delete_, path.substr(6), query, res, body);
    return method_not_allowed("GET, PUT, DELETE");
  }
  if (path.starts_with("/value/")) {
    if (is_get) return value(path.substr(7), query, res, body);
    if (req.method() == http::verb::put || req.method() == http::verb::delete_)
      return value_write(req.method() == http::verb::delete_, path.substr(7), res, body);
    return method_not_allowed("GET, PUT, DELETE");
  }
  if (path.starts_with("/data/")) {
    if (!is_get) return method_not_allowed("GET");
    return data(path.substr(6), query, res, body);
  }
  if (path == "/healthz") {
    if (!is_get) return method_not_allowed("GET");
    // Probes the store's nodes on connections of its own, on this io thread: the thread's
    // other connections wait with it, at most the store's timeout_ms (a node that refuses
    // answers at once), as they would for one memcached call. 200 also when degraded: the
    // server still answers every page (from the origin); see docs/http-api.md.
    res.content_type = "text/plain; charset=utf-8";
    body = healthz_body(probe_store(*view_.get().store));
    return;
  }
  if (path == "/stats" || path == "/metrics") {
    if (!is_get) return method_not_allowed("GET");
    const StatsFigures figures = read_stats(ctx_, view_.get());
    if (path == "/stats") return json_body(res, body, stats_json(figures));
    res.content_type = "text/plain; version=0.0.4; charset=utf-8";
    body = metrics_text(figures);
    return;
  }
  if (path.starts_with("/admin/")) {
    if (!is_post) return method_not_allowed("POST");
    switch (admin_access(req, peer)) {
      case AdminAccess::allowed: return admin(req, path, query, res, body);
      case AdminAccess::remote_refused:
        m_.admin_refused_remote.add();
        return error(res, body, 403, "admin routes answer only on loopback (or with --admin-remote and a token)");
      case AdminAccess::no_token:
        m_.admin_refused_no_token.add();
        res.header("WWW-Authenticate", "Bearer realm=\"hitcost admin\"");
        return error(res, body, 401, "admin routes want Authorization: Bearer TOKEN from a remote peer");
      case AdminAccess::wrong_token:
        m_.admin_refused_wrong_token.add();
        return error(res, body, 403, "wrong admin token");
    }
  }
  if (req.method() == http::verb::unknown) return method_not_allowed("GET, POST");
  error(res, body, 404, "no such route");
}

bool Router::parse_rows(std::string_view query, uint32_t& rows, Response& res, std::string& body) {
  rows = view_.get().rows;
  if (auto r = query_param(query, "rows")) {
    if (!parse_number(*r, rows) || rows > ctx_.opts.max_rows) {
      error(res, body, 400, "bad rows: want 0.." + std::to_string(ctx_.opts.max_rows));
      return false;
    }
  }
  return true;
}

const Strategy* Router::strategy_override(std::string_view text, Response& res, std::string& body) {
  const RuntimeConfig& cfg = view_.get();
  uint64_t gen = ctx_.config.generation();
  if (gen != override_generation_) {  // the scheme or rule may have changed
    override_cache_.clear();
    override_generation_ = gen;
  }
  std::string key(text);
  auto it = override_cache_.find(key);
  if (it != override_cache_.end()) return &it->second;
  auto st = parse_strategy(text, cfg.scheme);
  if (!st) {
    error(res, body, 400, "bad strategy: " + st.error().message);
    return nullptr;
  }
  if (Status ready = strategy_dictionary_ready(*st); !ready) {
    error(res, body, 400, "bad strategy: " + ready.error().message);
    return nullptr;
  }
  Strategy s = *st;
  s.scheme = cfg.scheme;
  s.rule = cfg.strategy.rule;
  if (override_cache_.size() > 64) override_cache_.clear();  // bounded: ids of strategies are few
  return &override_cache_.emplace(key, s).first->second;
}

bool Router::parse_page_id(std::string_view id_text, int64_t& id, Response& res, std::string& body) {
  if (!parse_number(id_text, id) || id < 0) {
    error(res, body, 400, "bad page id: want a non-negative integer");
    return false;
  }
  if (id > ctx_.opts.max_id) {
    error(res, body, 404, "page id out of range");
    return false;
  }
  return true;
}

void Router::page(std::string_view id_text, std::string_view query, Response& res, std::string& body) {
  int64_t id = 0;
  if (!parse_page_id(id_text, id, res, body)) return;
  PageRequest pr;
  pr.id = id;
  if (!parse_rows(query, pr.rows, res, body)) return;
  std::optional<std::string> st_text = query_param(query, "strategy");
  if (st_text) {
    pr.strategy_override = strategy_override(*st_text, res, body);
    if (!pr.strategy_override) return;
  }
  std::string name_storage;  // outlives serve(): X-Strategy names the override
  if (pr.strategy_override) {
    name_storage = override_name(*st_text, *pr.strategy_override);
    pr.strategy_override_text = name_storage;
  }
  tell_outcome(pages_.serve(view_.get(), pr, body), res);
}

// PUT and DELETE of /page/{id} and /value/{n}: a client's writes to the cache (a replayed
// trace's): PUT is the application storing a fresh copy (rendered from the origin and set under
// the strategy in force, as a miss would), DELETE an invalidation (the key removed). 200 with an
// empty body on success (every client reads a Content-Length; a 204 has none), 503 with the
// reason when the store failed (counted in store_errors). Counted in client_writes and
// client_deletes, not in the miss path's fills. Not admin routes: a client of the cache may
// write to it.
void Router::page_write(bool remove, std::string_view id_text, std::string_view query, Response& res,
                        std::string& body) {
  int64_t id = 0;
  if (!parse_page_id(id_text, id, res, body)) return;
  uint32_t rows = 0;
  if (!parse_rows(query, rows, res, body)) return;
  const RuntimeConfig& cfg = view_.get();
  if (remove) return remove_key(cfg, PageService::key_for(cfg, id, rows), res, body);
  if (!pages_.warm(cfg, id, rows)) return error(res, body, 503, "store write failed (counted in store_errors)");
  m_.client_writes.add();
  res.status = 200;
  res.content_type = "text/plain; charset=utf-8";
}

// A value the strategy in force cannot write (JSON and a non-UTF-8 string, ...) is 409: no retry
// helps, and a GET of it is a miss answered from the origin under that strategy.
void Router::value_write(bool remove, std::string_view n_text, Response& res, std::string& body) {
  uint64_t n = 0;
  const ValueOrigin* origin = value_target(n_text, n, res, body);
  if (!origin) return;
  const RuntimeConfig& cfg = view_.get();
  if (remove) return remove_key(cfg, ValueService::key_for(cfg, static_cast<size_t>(n)), res, body);
  switch (values_.warm(cfg, *origin, static_cast<size_t>(n))) {
    case WarmResult::stored: break;
    case WarmResult::store_error: return error(res, body, 503, "store write failed (counted in store_errors)");
    case WarmResult::unstorable:
      return error(res, body, 409, "the strategy in force cannot write this value (counted in value_encode_errors)");
  }
  m_.client_writes.add();
  res.status = 200;
  res.content_type = "text/plain; charset=utf-8";
}

void Router::remove_key(const RuntimeConfig& cfg, const std::string& key, Response& res, std::string& body) {
  const Status removed = cfg.store->remove(key);
  if (!removed && removed.error().code != Errc::not_found) {
    m_.store_errors.add();
    return error(res, body, 503, "store remove failed: " + removed.error().message);
  }
  m_.client_deletes.add();
  res.status = 200;
  res.content_type = "text/plain; charset=utf-8";
}

const ValueOrigin* Router::value_target(std::string_view n_text, uint64_t& n, Response& res, std::string& body) {
  auto refuse = [&](int status, std::string_view why) -> const ValueOrigin* {
    error(res, body, status, why);
    return nullptr;
  };
  const ValueOrigin* origin = ctx_.values.get();
  if (!origin) return refuse(404, kNoCorpus);
  if (!parse_number(n_text, n)) return refuse(400, "bad value number: want a non-negative integer");
  if (n > uint64_t(ctx_.opts.max_id)) return refuse(404, "value number out of range");
  if (view_.get().store->objects()) return refuse(409, kObjectsHoldPages);
  return origin;
}

void Router::value(std::string_view n_text, std::string_view query, Response& res, std::string& body) {
  uint64_t n = 0;
  const ValueOrigin* origin = value_target(n_text, n, res, body);
  if (!origin) return;
  const RuntimeConfig& cfg = view_.get();
  ValueRequest vr;
  vr.n = static_cast<size_t>(n);
  std::string name_storage;  // outlives serve(): X-Strategy names the override
  if (std::optional<std::string> st_text = query_param(query, "strategy")) {
    vr.strategy_override = strategy_override(*st_text, res, body);
    if (!vr.strategy_override) return;
    name_storage = override_name(*st_text, *vr.strategy_override);
    vr.strategy_override_text = name_storage;
  }
  tell_outcome(values_.serve(cfg, *origin, vr, body), res);
}

void Router::data(std::string_view id_text, std::string_view query, Response& res, std::string& body) {
  int64_t id = 0;
  if (!parse_page_id(id_text, id, res, body)) return;
  uint32_t rows = 0;
  if (!parse_rows(query, rows, res, body)) return;
  Page page = PageService::origin_page(view_.get(), id, rows);
  res.content_type = "application/json";
  body = encode_page(SerializerId::json, page);
}

// POST /admin/warm?values=1[&from=A&to=B]: values A..B-1 of the corpus under the strategy in
// force (from defaults to 0, to to N, and is clamped to N: at most N values), as pages are warmed.
void Router::warm_values(std::string_view query, Response& res, std::string& body) {
  const ValueOrigin* origin = ctx_.values.get();
  if (!origin) return error(res, body, 400, "warm values=1: " + std::string(kNoCorpus));
  const RuntimeConfig& cfg = view_.get();
  if (cfg.store->objects()) return error(res, body, 409, kObjectsHoldPages);
  const auto n = static_cast<int64_t>(origin->size());
  int64_t from = 0, to = n;
  auto f = query_param(query, "from"), t = query_param(query, "to");
  if ((f && (!parse_number(*f, from) || from < 0)) || (t && (!parse_number(*t, to) || to < from)))
    return error(res, body, 400,
                 "warm values=1 wants from=A&to=B with 0 <= A <= B (B is clamped to the corpus's " + std::to_string(n) +
                     " values)");
  to = std::min(to, n);
  from = std::min(from, to);
  auto fill = [&](int64_t i) { return values_.warm(cfg, *origin, static_cast<size_t>(i)); };
  auto stopping = [&] { return ctx_.draining.load(std::memory_order_relaxed); };
  return json_body(res, body, warm_range(from, to, fill, stopping));
}

Router::AdminAccess Router::admin_access(const HttpRequest& req, const boost::asio::ip::address& peer) const {
  if (peer.is_loopback()) return AdminAccess::allowed;
  if (!ctx_.opts.admin_remote || ctx_.opts.admin_token.empty()) return AdminAccess::remote_refused;
  auto it = req.find(http::field::authorization);
  if (it == req.end()) return AdminAccess::no_token;
  const std::string_view given(it->value().data(), it->value().size());
  const std::string want = "Bearer " + ctx_.opts.admin_token;
  // Every byte compared whatever the first difference: the time says nothing of the token.
  unsigned char differ = given.size() == want.size() ? 0 : 1;
  for (size_t i = 0; i < want.size(); ++i)
    differ |= static_cast<unsigned char>((i < given.size() ? given[i] : '\0') ^ want[i]);
  return differ == 0 ? AdminAccess::allowed : AdminAccess::wrong_token;
}

void Router::admin(const HttpRequest& req, std::string_view path, std::string_view query, Response& res,
                   std::string& body) {
  if (path == "/admin/config") {
    auto patch = ConfigPatch::from_json(req.body(), ctx_.opts.max_rows);
    if (!patch) return error(res, body, 400, "bad config: " + patch.error().message);
    auto applied = ctx_.config.apply(*patch);
    if (!applied) return error(res, body, 400, "bad config: " + applied.error().message);
    return json_body(res, body, (*applied)->to_json());
  }
  if (path == "/admin/reset") {
    ctx_.metrics.reset();
    return json_body(res, body, {{"reset", true}});
  }
  if (path == "/admin/warm") {
    const std::optional<std::string> values = query_param(query, "values");
    if (values && *values != "0" && *values != "1") return error(res, body, 400, "warm: values wants 1 (or 0)");
    if (values == "1") return warm_values(query, res, body);
    int64_t from = 0, to = 0;
    auto f = query_param(query, "from"), t = query_param(query, "to");
    if (!f || !t || !parse_number(*f, from) || !parse_number(*t, to) || from < 0 || to < from ||
        to > ctx_.opts.max_id || to - from > 10'000'000)
      return error(res, body, 400, "warm wants from=A&to=B with 0 <= A <= B, at most 10M pages");
    uint32_t rows = 0;
    if (!parse_rows(query, rows, res, body)) return;
    // Runs on this io thread: its other connections wait. Fine for an admin fill.
    const RuntimeConfig& cfg = view_.get();
    auto fill = [&](int64_t id) { return pages_.warm(cfg, id, rows) ? WarmResult::stored : WarmResult::store_error; };
    auto stopping = [&] { return ctx_.draining.load(std::memory_order_relaxed); };
    return json_body(res, body, warm_range(from, to, fill, stopping));
  }
  if (path == "/admin/calibrate") return calibrate(query, res, body);
  if (path == "/admin/slow") {
    if (!ctx_.slow_log) return error(res, body, 404, "no slow log: start hitcost-server with --slow-log THRESHOLD");
    uint64_t since = 0;
    if (auto s = query_param(query, "since"); s && !parse_number(*s, since))
      return error(res, body, 400, "slow: since wants a sequence number");
    return json_body(res, body, ctx_.slow_log->since(since));
  }
  error(res, body, 404, "no such admin route");
}

// POST /admin/calibrate[?rows=R&strategy=S&peer_cpu=C&values=K&repeats=N&slice_us=U]: the floor of a /page
// hit under the config in force (or strategy S, as ?strategy= asks of /page) (floor/hit_floor.h), timed on this io
// thread — its CPU, its pinning — with the loopback peers on `peer_cpu` (the CPU the server's real peers use) and a
// memory or mmap fetch copying one of K values (the run's keys: a working set the caches do not hold). Runs for
// about steps x repeats x slice (~0.2 s by default); this thread's other connections wait meanwhile.
void Router::calibrate(std::string_view query, Response& res, std::string& body) {
  const RuntimeConfig& cfg = view_.get();
  uint32_t rows = cfg.rows;
  if (!parse_rows(query, rows, res, body)) return;
  int peer_cpu = -1, repeats = 5, slice_us = 2000;
  uint64_t values = 1;
  auto p = query_param(query, "peer_cpu"), r = query_param(query, "repeats"), s = query_param(query, "slice_us");
  if (p && (!parse_number(*p, peer_cpu) || peer_cpu < -1 || peer_cpu >= 4096))
    return error(res, body, 400, "calibrate: peer_cpu wants -1..4095");
  if (r && (!parse_number(*r, repeats) || repeats < 1 || repeats > 50))
    return error(res, body, 400, "calibrate: repeats wants 1..50");
  if (s && (!parse_number(*s, slice_us) || slice_us < 100 || slice_us > 100000))
    return error(res, body, 400, "calibrate: slice_us wants 100..100000");
  if (auto v = query_param(query, "values"); v && (!parse_number(*v, values) || values < 1))
    return error(res, body, 400, "calibrate: values wants a count >= 1");
  const Strategy* strategy = &cfg.strategy;
  std::string strategy_text = cfg.strategy_text;
  if (std::optional<std::string> st_text = query_param(query, "strategy")) {
    strategy = strategy_override(*st_text, res, body);
    if (!strategy) return;  // answered 400
    strategy_text = *st_text;
  }
  auto fetch = floor::fetch_kind_of(cfg.store_spec);
  if (!fetch) return error(res, body, 400, "calibrate: " + fetch.error().message);
  floor::HitSpec spec;
  spec.strategy = *strategy;
  spec.page = PageService::origin_page(cfg, 1, rows);
  spec.fetch = *fetch;
  spec.in_force = cfg.decoders;
  spec.peer_cpu = peer_cpu;
  spec.values = values;
  const floor::TimingPlan plan{repeats, std::chrono::microseconds(slice_us)};
  auto floor = floor::calibrate_hit(spec, plan);
  if (!floor) return error(res, body, 500, "calibrate: " + floor.error().message);
  nlohmann::json j = floor::to_json(*floor, plan);
  j["strategy"] = strategy_text;
  j["store"] = to_string(*fetch);
  j["rows"] = rows;
  j["inflate"] = to_string(cfg.decoders.inflate);
  j["json_decoder"] = to_string(cfg.decoders.json);
  json_body(res, body, j);
}

}  // namespace hitcost::server
