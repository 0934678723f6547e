#include "server/runtime_config.h"

#include <boost/asio/ip/address.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "codecs/zstd_dictionary.h"
#include "core/duration.h"

namespace hitcost::server {

nlohmann::json RuntimeConfig::to_json() const {
  // The dictionaries +zstd-dict writes with and reads by (process-wide, loaded at the start).
  nlohmann::json dictionaries = nlohmann::json::array();
  for (const ZstdDictionaryInfo& d : zstd_dictionaries())
    dictionaries.push_back({{"id", d.id}, {"bytes", d.bytes}, {"writes_for", d.writes_for}});
  return {{"strategy", strategy_text},
          {"store", store_spec},
          {"flags", to_string(scheme)},
          {"rows", rows},
          {"namespace", ns},
          {"seed", seed},
          {"compressibility", compressibility},
          {"threshold", strategy.rule.threshold_bytes},
          {"min_savings", strategy.rule.min_savings},
          {"factor", strategy.rule.factor},
          {"log", log.to_string()},
          {"inflate", to_string(decoders.inflate)},
          {"json_decoder", to_string(decoders.json)},
          {"zstd_dictionaries", std::move(dictionaries)}};
}

Result<ConfigPatch> ConfigPatch::from_json(std::string_view body, uint32_t max_rows) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error{Errc::parse_error, "body must be a JSON object"};
  ConfigPatch p;
  try {
    for (auto& [k, v] : j.items()) {
      if (k == "strategy")
        p.strategy = v.get<std::string>();
      else if (k == "store")
        p.store = v.get<std::string>();
      else if (k == "flags")
        p.flags = v.get<std::string>();
      else if (k == "namespace")
        p.ns = v.get<std::string>();
      else if (k == "rows") {
        auto r = v.get<int64_t>();
        if (r < 0 || r > max_rows)
          return Error{Errc::invalid_argument, "rows out of range 0.." + std::to_string(max_rows)};
        p.rows = static_cast<uint32_t>(r);
      } else if (k == "threshold") {
        auto t = v.get<int64_t>();
        if (t < 0 || t > (int64_t{1} << 31)) return Error{Errc::invalid_argument, "threshold out of range"};
        p.threshold = static_cast<uint32_t>(t);
      } else if (k == "min_savings")
        p.min_savings = v.get<double>();
      else if (k == "factor")
        p.factor = v.get<double>();
      else if (k == "compressibility")
        p.compressibility = v.get<double>();
      else if (k == "inflate") {
        auto lib = parse_inflate(v.get<std::string>());
        if (!lib) return lib.error();
        p.inflate = *lib;
      } else if (k == "json_decoder") {
        auto dec = parse_json_decoder(v.get<std::string>());
        if (!dec) return dec.error();
        p.json_decoder = *dec;
      } else if (k == "log") {
        auto mode = LogMode::parse(v.get<std::string>());
        if (!mode) return mode.error();
        p.log = *mode;
      } else
        return Error{Errc::invalid_argument, "unknown config field '" + k + "'"};
    }
  } catch (const nlohmann::json::exception& e) {
    return Error{Errc::invalid_argument, std::string("wrong type in config: ") + e.what()};
  }
  if (p.ns) {
    // The namespace goes into memcached keys: no spaces or control characters.
    if (p.ns->empty() || p.ns->size() > 120) return Error{Errc::invalid_argument, "namespace must be 1..120 bytes"};
    for (unsigned char c : *p.ns)
      if (c <= 32 || c >= 127) return Error{Errc::invalid_argument, "namespace must be printable ASCII without spaces"};
  }
  if (p.min_savings && (*p.min_savings < 0 || *p.min_savings >= 1))
    return Error{Errc::invalid_argument, "min_savings must be in [0,1)"};
  if (p.factor && (*p.factor < 0 || *p.factor > 1000))
    return Error{Errc::invalid_argument, "factor must be in [0,1000]"};
  if (p.compressibility && (*p.compressibility < 0 || *p.compressibility > 1))
    return Error{Errc::invalid_argument, "compressibility must be in [0,1]"};
  return p;
}

namespace {

// Applies scheme defaults, then explicit overrides, to the strategy's rule.
Result<Strategy> build_strategy(const std::string& text, FlagScheme scheme, std::optional<uint32_t> threshold,
                                std::optional<double> min_savings, std::optional<double> factor) {
  auto s = parse_strategy(text, scheme);
  if (!s) return s.error();
  Strategy st = *s;
  st.scheme = scheme;
  st.rule = CompressionRule::defaults_for(scheme);
  if (threshold) st.rule.threshold_bytes = *threshold;
  if (min_savings) st.rule.min_savings = *min_savings;
  if (factor) st.rule.factor = *factor;
  return st;
}

}  // namespace

ConfigHolder::ConfigHolder(std::shared_ptr<const RuntimeConfig> initial, bool log_file, OpenStoreOptions stores)
    : current_(std::move(initial)), log_file_(log_file), stores_(stores) {}

std::shared_ptr<const RuntimeConfig> ConfigHolder::current() const {
  std::lock_guard lk(mu_);
  return current_;
}

Result<std::shared_ptr<const RuntimeConfig>> ConfigHolder::apply(const ConfigPatch& p) {
  std::lock_guard lk(mu_);
  auto next = std::make_shared<RuntimeConfig>(*current_);
  if (p.flags) {
    auto scheme = parse_flag_scheme(*p.flags);
    if (!scheme) return scheme.error();
    next->scheme = *scheme;
  }
  // A scheme change resets the rule to that scheme's defaults unless overridden.
  bool scheme_changed = next->scheme != current_->scheme;
  std::optional<uint32_t> threshold = p.threshold;
  std::optional<double> min_savings = p.min_savings, factor = p.factor;
  if (!scheme_changed) {
    if (!threshold) threshold = current_->strategy.rule.threshold_bytes;
    if (!min_savings) min_savings = current_->strategy.rule.min_savings;
    if (!factor) factor = current_->strategy.rule.factor;
  }
  auto st = build_strategy(p.strategy.value_or(current_->strategy_text), next->scheme, threshold, min_savings, factor);
  if (!st) return st.error();
  if (Status ready = strategy_dictionary_ready(*st); !ready) return ready.error();
  next->strategy = *st;
  next->strategy_text = st->name();
  if (p.store && *p.store != current_->store_spec) {
    auto store = open_store(*p.store, stores_);
    if (!store) return store.error();
    next->store = std::shared_ptr<Store>(std::move(store.value()));
    next->store_spec = *p.store;
  }
  if (p.rows) next->rows = *p.rows;
  if (p.ns) next->ns = *p.ns;
  if (p.compressibility) next->compressibility = *p.compressibility;
  if (p.inflate) next->decoders.inflate = *p.inflate;
  if (p.json_decoder) next->decoders.json = *p.json_decoder;
  if (p.log) {
    if (p.log->on() && !log_file_)
      return Error{
          Errc::invalid_argument,
          "log mode " + p.log->to_string() + " needs an access log file: start hitcost-server with --access-log PATH"};
    next->log = *p.log;
  }
  current_ = next;
  generation_.fetch_add(1, std::memory_order_release);
  return std::shared_ptr<const RuntimeConfig>(next);
}

void check_start_values(const ServerOptions& o) {
  if (o.threads < 1) throw UsageError("--threads must be at least 1, not " + std::to_string(o.threads));
  if (o.port < 0 || o.port > 65535) throw UsageError("--port must be 0..65535, not " + std::to_string(o.port));
  boost::system::error_code ec;
  boost::asio::ip::make_address(o.host, ec);
  if (ec) throw UsageError("--host: not an IP address: '" + o.host + "'");
  auto scheme = parse_flag_scheme(o.flags);
  if (!scheme) throw UsageError("--flags: " + scheme.error().message);
  auto st = build_strategy(o.strategy, *scheme, o.threshold, o.min_savings, o.factor);
  if (!st) throw UsageError("--strategy: " + st.error().message);
  bool strategy_has_dictionary = !st->dictionary;
  for (const std::string& option : o.zstd_dicts) {
    auto d = parse_dictionary_option(option);
    if (!d) throw UsageError("--zstd-dict " + d.error().message);
    strategy_has_dictionary |= d->scope.empty() || d->scope == st->dictionary_scope();
  }
  if (!strategy_has_dictionary)
    throw UsageError("--strategy " + st->name() + " needs --zstd-dict " + st->dictionary_scope() +
                     "=FILE (or --zstd-dict FILE)");
  if (auto log = LogMode::from_flags(!o.access_log.empty(), o.log_buffer, o.log_flush_ms, o.log_sync); !log)
    throw UsageError(log.error().message);
  if (auto lib = parse_inflate(o.inflate); !lib) throw UsageError("--inflate: " + lib.error().message);
  if (!o.slow_log.empty()) {
    if (!parse_duration_ns(o.slow_log)) throw UsageError("--slow-log: not a duration: '" + o.slow_log + "' (e.g. 2ms)");
    if (!o.metrics) throw UsageError("--slow-log needs the per-part timing that --no-metrics turns off");
  } else if (!o.slow_log_file.empty()) {
    throw UsageError("--slow-log-file needs --slow-log THRESHOLD");
  }
  if (auto dec = parse_json_decoder(o.json_decoder); !dec) throw UsageError("--json-decoder: " + dec.error().message);
  if (auto spec = check_store_spec(o.store); !spec) throw UsageError("--store: " + spec.error().message);
}

std::shared_ptr<const RuntimeConfig> make_initial_config(const ServerOptions& o) {
  check_start_values(o);
  // The dictionaries are inputs, like a store: one that cannot be read or is not a dictionary
  // stops the start (exit 1). Loading one twice keeps one (the same id, the same bytes).
  for (const std::string& option : o.zstd_dicts) {
    const DictionaryOption d = *parse_dictionary_option(option);  // checked above
    if (auto id = load_zstd_dictionary_file(d.path, d.scope); !id)
      throw std::runtime_error("--zstd-dict: " + id.error().message);
  }
  auto cfg = std::make_shared<RuntimeConfig>();
  const FlagScheme scheme = *parse_flag_scheme(o.flags);  // checked above
  cfg->scheme = scheme;
  const Strategy st = *build_strategy(o.strategy, scheme, o.threshold, o.min_savings, o.factor);
  cfg->strategy = st;
  cfg->strategy_text = st.name();
  // Last: every value checked before a store file may be made.
  auto s = open_store(o.store, OpenStoreOptions{.create_files = o.store_create});
  if (!s) {
    // A spec that does not parse is a bad value; a store that does not open could not start.
    if (s.error().code == Errc::invalid_argument) throw UsageError("--store: " + s.error().message);
    throw std::runtime_error("--store: " + s.error().message);
  }
  cfg->store = std::shared_ptr<Store>(std::move(s.value()));
  cfg->store_spec = o.store;
  cfg->rows = o.rows;
  cfg->ns = o.ns;
  cfg->seed = o.seed;
  cfg->compressibility = o.compressibility;
  cfg->log = *LogMode::from_flags(!o.access_log.empty(), o.log_buffer, o.log_flush_ms, o.log_sync);
  cfg->decoders = {*parse_inflate(o.inflate), *parse_json_decoder(o.json_decoder)};  // checked above
  return cfg;
}

}  // namespace hitcost::server
