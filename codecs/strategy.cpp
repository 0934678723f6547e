#include "codecs/strategy.h"

#include <charconv>

#include "codecs/compressor.h"

namespace hitcost {

const char* to_string(SerializerId s) noexcept {
  switch (s) {
    case SerializerId::none: return "none";
    case SerializerId::json: return "json";
    case SerializerId::msgpack: return "msgpack";
    case SerializerId::php: return "php";
    case SerializerId::simdjson: return "simdjson";
    case SerializerId::igbinary: return "igbinary";
  }
  return "unknown";
}

const char* to_string(CompressorId c) noexcept {
  switch (c) {
    case CompressorId::none: return "none";
    case CompressorId::zlib: return "zlib";
    case CompressorId::zstd: return "zstd";
    case CompressorId::lz4: return "lz4";
    case CompressorId::fastlz: return "fastlz";
  }
  return "unknown";
}

const char* to_string(FlagScheme s) noexcept {
  switch (s) {
    case FlagScheme::php_memcache: return "php-memcache";
    case FlagScheme::php_memcached: return "php-memcached";
    case FlagScheme::native: return "native";
  }
  return "unknown";
}

Result<FlagScheme> parse_flag_scheme(std::string_view t) {
  if (t == "php-memcache") return FlagScheme::php_memcache;
  if (t == "php-memcached") return FlagScheme::php_memcached;
  if (t == "native") return FlagScheme::native;
  return Error{Errc::invalid_argument,
               "unknown flag scheme '" + std::string(t) + "' (php-memcache, php-memcached, native)"};
}

CompressionRule CompressionRule::defaults_for(FlagScheme s) {
  CompressionRule r;
  if (s == FlagScheme::php_memcache) {
    r.threshold_bytes = 20000;
    r.min_savings = 0.20;
    r.factor = 0;
  } else {
    r.threshold_bytes = 2000;
    r.min_savings = 0;
    r.factor = 1.3;
  }
  return r;
}

bool CompressionRule::keep(size_t plain, size_t packed) const noexcept {
  auto p = static_cast<double>(plain), c = static_cast<double>(packed);
  if (min_savings > 0 && !(c <= p * (1.0 - min_savings))) return false;  // php-memcache
  if (factor > 0 && !(p > c * factor)) return false;                      // php-memcached
  return true;  // both unused: compression forced
}

std::string Strategy::name() const {
  std::string s = rep == Representation::html ? "html" : std::string("struct:") + to_string(serializer);
  if (compressor != CompressorId::none) {
    s += '+';
    s += to_string(compressor);
    if (level != 0) {
      s += ':';
      s += std::to_string(level);
    }
  }
  return s;
}

namespace {

// "{json,msgpack,...}" from a codec table, for the grammar in error messages.
template <class Ids>
std::string alternatives(const Ids& ids) {
  std::string s = "{";
  for (auto id : ids) s += std::string(s.size() > 1 ? "," : "") + to_string(id);
  return s + "}";
}

Error bad(std::string_view text, std::string why) {
  std::string presets;
  for (const StrategyPreset& p : kStrategyPresets) presets += std::string("|") + p.name;
  return Error{Errc::invalid_argument, "strategy '" + std::string(text) + "': " + std::move(why) +
                                           " (expected html|struct:" + alternatives(kSerializers) + "[+" +
                                           alternatives(kCompressors) + "[:level]]" + presets + ")"};
}

template <class Id, class Ids>
std::optional<Id> by_name(const Ids& ids, std::string_view name) {
  for (Id id : ids) {
    if (name == to_string(id)) return id;
  }
  return std::nullopt;
}

// Presets carry their own scheme and rule.
std::optional<Result<Strategy>> parse_preset(std::string_view text, FlagScheme scheme) {
  const StrategyPreset* p = find_preset(text);
  if (!p) return std::nullopt;
  if (scheme != p->scheme) {
    return Result<Strategy>(bad(text, std::string("the preset stores under the ") + to_string(p->scheme) +
                                          " flag scheme, this namespace uses " + to_string(scheme) +
                                          " (use --flags " + to_string(p->scheme) + ")"));
  }
  return parse_strategy(p->strategy, p->scheme);  // the scheme's defaults are the preset's rule
}

}  // namespace

const StrategyPreset* find_preset(std::string_view name) noexcept {
  for (const StrategyPreset& p : kStrategyPresets) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

Result<Strategy> parse_strategy(std::string_view text, FlagScheme scheme) {
  if (auto preset = parse_preset(text, scheme)) return std::move(*preset);
  Strategy st;
  st.scheme = scheme;
  st.rule = CompressionRule::defaults_for(scheme);
  std::string_view rep = text, comp;
  if (auto plus = text.find('+'); plus != std::string_view::npos) {
    rep = text.substr(0, plus);
    comp = text.substr(plus + 1);
    if (comp.empty()) return bad(text, "missing compressor after '+'");
  }
  if (rep == "html") {
    st.rep = Representation::html;
  } else if (rep.starts_with("struct:")) {
    st.rep = Representation::structured;
    std::string_view s = rep.substr(7);
    auto id = by_name<SerializerId>(kSerializers, s);
    if (!id) return bad(text, "unknown serializer '" + std::string(s) + "'");
    st.serializer = *id;
  } else {
    return bad(text, "unknown representation '" + std::string(rep) + "'");
  }
  if (scheme == FlagScheme::php_memcache && st.serializer == SerializerId::igbinary) {
    return bad(text, "php-memcache has no flag for igbinary (use --flags php-memcached or native)");
  }
  if (comp.empty()) return st;

  std::string_view cname = comp, clevel;
  bool has_level = false;
  if (auto colon = comp.find(':'); colon != std::string_view::npos) {
    cname = comp.substr(0, colon);
    clevel = comp.substr(colon + 1);
    has_level = true;
  }
  if (cname == "none" && !has_level) return st;
  auto cid = by_name<CompressorId>(kCompressors, cname);
  if (!cid) return bad(text, "unknown compressor '" + std::string(cname) + "'");
  st.compressor = *cid;

  if (has_level) {
    LevelRange lr = level_range(st.compressor);
    int lv = 0;
    auto r = std::from_chars(clevel.data(), clevel.data() + clevel.size(), lv);
    if (clevel.empty() || r.ec != std::errc() || r.ptr != clevel.data() + clevel.size()) {
      return bad(text, "level '" + std::string(clevel) + "' is not a number");
    }
    if (lv < lr.min || lv > lr.max) {
      return bad(text, std::string(to_string(st.compressor)) + " level must be " + std::to_string(lr.min) +
                           ".." + std::to_string(lr.max));
    }
    st.level = lv;
  }

  if (scheme == FlagScheme::php_memcache && st.compressor != CompressorId::zlib) {
    return bad(text, std::string(to_string(st.compressor)) +
                         " cannot be stored under php-memcache, which only knows zlib (use --flags native)");
  }
  if (scheme == FlagScheme::php_memcached && st.compressor == CompressorId::lz4) {
    return bad(text, "php-memcached cannot read lz4 (use --flags native)");
  }
  return st;
}

}  // namespace hitcost
