#include "codecs/strategy.h"

#include <charconv>
#include <vector>

#include "codecs/decoders.h"
#include "codecs/flag_scheme.h"
#include "codecs/zstd_dictionary.h"

namespace hitcost {
namespace {
// "zstd-dict": the one compressor a dictionary goes with, and the word's suffix.
constexpr std::string_view kDictionarySuffix = "-dict";
}  // namespace

std::string Strategy::dictionary_scope() const {
  return hitcost::dictionary_scope(rep == Representation::html, serializer);
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
  std::string names;
  for (FlagScheme s : kFlagSchemes) {
    if (t == to_string(s)) return s;
    names += std::string(names.empty() ? "" : ", ") + to_string(s);
  }
  return Error{Errc::invalid_argument, "unknown flag scheme '" + std::string(t) + "' (" + names + ")"};
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
  if (factor > 0 && !(p > c * factor)) return false;                     // php-memcached
  return true;                                                           // both unused: compression forced
}

std::string Strategy::name() const {
  std::string s = rep == Representation::html ? "html" : std::string("struct:") + to_string(serializer);
  if (compressor != CompressorId::none) {
    s += '+';
    s += to_string(compressor);
    if (dictionary) s += kDictionarySuffix;
    if (level != 0) {
      s += ':';
      s += std::to_string(level);
    }
  }
  return s;
}

namespace {

// "{json,msgpack,...}" from a codec table, for the grammar in error messages.
template <class Rows>
std::string alternatives(const Rows& rows, std::string_view extra = {}) {
  std::string s = "{";
  for (const auto& row : rows) s += std::string(s.size() > 1 ? "," : "") + row.name;
  if (!extra.empty()) (s += ',') += extra;  // apart: GCC 12's -Wrestrict false positive on "," + std::string&&
  return s + "}";
}

Error bad(std::string_view text, std::string why) {
  std::string presets;
  for (const StrategyPreset& p : kStrategyPresets) presets += std::string("|") + p.name;
  return Error{Errc::invalid_argument, "strategy '" + std::string(text) + "': " + std::move(why) +
                                           " (expected html|struct:" + alternatives(kSerializerCodecs) + "[+" +
                                           alternatives(kCompressorCodecs, "zstd-dict") + "[:level]]" + presets + ")"};
}

// "a", "a or b", "a, b or c".
std::string one_of(const std::vector<std::string>& words, const char* last_sep) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) s += i + 1 == words.size() ? last_sep : ", ";
    s += words[i];
  }
  return s;
}

// The flag schemes can say only some codecs (make_flags is the one place that knows):
// these name what they can say, for the error messages.
std::string schemes_that_store(Representation rep, SerializerId ser, CompressorId comp) {
  std::vector<std::string> names;
  for (FlagScheme f : kFlagSchemes) {
    if (make_flags(f, rep, ser, comp).ok()) names.emplace_back(to_string(f));
  }
  return one_of(names, " or ");
}

std::string compressors_of(FlagScheme scheme, Representation rep, SerializerId ser) {
  std::vector<std::string> names;
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (make_flags(scheme, rep, ser, c.id).ok()) names.emplace_back(c.name);
  }
  return names.empty() ? std::string("none") : one_of(names, " and ");
}

// Presets carry their own scheme and rule.
std::optional<Result<Strategy>> parse_preset(std::string_view text, FlagScheme scheme) {
  const StrategyPreset* p = find_preset(text);
  if (!p) return std::nullopt;
  if (scheme != p->scheme) {
    return Result<Strategy>(bad(text, std::string("the preset stores under the ") + to_string(p->scheme) +
                                          " flag scheme, this namespace uses " + to_string(scheme) + " (use --flags " +
                                          to_string(p->scheme) + ")"));
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
    const SerializerCodec* codec = find_serializer(s);
    // struct:simdjson was JSON's bytes read by simdjson: the bytes are struct:json's, the reader
    // is a choice of the server's (codecs/decoders.h), simdjson by default.
    if (!codec && s == "simdjson") {
      return bad(text,
                 "struct:simdjson is struct:json now: which library decodes JSON is the server's --json-decoder (" +
                     json_decoder_names() + "; simdjson by default)");
    }
    if (!codec) return bad(text, "unknown serializer '" + std::string(s) + "'");
    st.serializer = codec->id;
  } else {
    return bad(text, "unknown representation '" + std::string(rep) + "'");
  }
  if (!make_flags(scheme, st.rep, st.serializer, CompressorId::none).ok()) {
    return bad(text, std::string(to_string(scheme)) + " has no flag for " + to_string(st.serializer) +
                         " (use --flags " + schemes_that_store(st.rep, st.serializer, CompressorId::none) + ")");
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
  if (cname.ends_with(kDictionarySuffix)) {
    cname.remove_suffix(kDictionarySuffix.size());
    if (cname != to_string(CompressorId::zstd))
      return bad(text, "only zstd takes a dictionary ('" + std::string(cname) + std::string(kDictionarySuffix) + "')");
    st.dictionary = true;
  }
  const CompressorCodec* codec = find_compressor(cname);
  if (!codec) return bad(text, "unknown compressor '" + std::string(cname) + "'");
  st.compressor = codec->id;

  if (has_level) {
    const LevelRange& lr = codec->levels;
    int lv = 0;
    auto r = std::from_chars(clevel.data(), clevel.data() + clevel.size(), lv);
    if (clevel.empty() || r.ec != std::errc() || r.ptr != clevel.data() + clevel.size()) {
      return bad(text, "level '" + std::string(clevel) + "' is not a number");
    }
    if (lv < lr.min || lv > lr.max) {
      return bad(text, std::string(to_string(st.compressor)) + " level must be " + std::to_string(lr.min) + ".." +
                           std::to_string(lr.max));
    }
    st.level = lv;
  }

  if (st.dictionary) st.dictionary_id = zstd_dictionary_for(st.dictionary_scope());
  if (!make_flags(scheme, st.rep, st.serializer, st.compressor).ok()) {
    return bad(text, std::string(codec->name) + " cannot be stored under " + to_string(scheme) + ", which only knows " +
                         compressors_of(scheme, st.rep, st.serializer) + " (use --flags " +
                         schemes_that_store(st.rep, st.serializer, st.compressor) + ")");
  }
  return st;
}

}  // namespace hitcost
