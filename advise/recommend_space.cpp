#include "advise/recommend_space.h"

#include <algorithm>
#include <cstdio>

#include "codecs/flag_scheme.h"

namespace hitcost::corpus {
namespace {

// The levels searched per compressor (recommend_space.h); 0 is the compressor's default.
struct Levels {
  CompressorId id;
  std::vector<int> levels;
};
const std::vector<Levels>& searched_levels() {
  static const std::vector<Levels> rows = {
      {CompressorId::zlib, {1, 0, 9}},
      {CompressorId::zstd, {1, 0, 9, 19}},
      {CompressorId::lz4, {1, 9}},
      {CompressorId::fastlz, {0, 2}},
  };
  return rows;
}

bool expressible(FlagScheme scheme, Representation rep, SerializerId serializer, CompressorId compressor) {
  return make_flags(scheme, rep, serializer, compressor).ok();
}

// php-memcached 3.2.0's memcached.serializer value for a serializer.
const char* php_memcached_serializer(SerializerId s) {
  switch (s) {
    case SerializerId::php: return "php";
    case SerializerId::igbinary: return "igbinary";
    case SerializerId::json: return "json_array";  // arrays back as arrays, not stdClass
    case SerializerId::msgpack: return "msgpack";
    default: return nullptr;
  }
}

std::string ini(const char* name, const std::string& value) { return std::string(name) + " = " + value; }

std::string factor_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", f);
  return buf;
}

}  // namespace

const char* to_string(PhpUse u) noexcept {
  switch (u) {
    case PhpUse::writes: return "writes";
    case PhpUse::reads_only: return "reads only";
    case PhpUse::cannot: return "cannot read";
  }
  return "unknown";
}

std::vector<SpaceRepresentation> space_representations(FlagScheme scheme) {
  std::vector<SpaceRepresentation> out = {{Representation::html, SerializerId::none}};
  for (SerializerId s : kSerializers)
    if (expressible(scheme, Representation::structured, s, CompressorId::none))
      out.push_back({Representation::structured, s});
  return out;
}

std::vector<SpaceCompressor> space_compressors(const Strategy& plain, bool dictionary) {
  std::vector<SpaceCompressor> out;
  for (const Levels& row : searched_levels()) {
    if (!expressible(plain.scheme, plain.rep, plain.serializer, row.id)) continue;
    for (int level : row.levels) out.push_back({row.id, level, false});
  }
  // A dictionary earns most on small values, where fast levels already do well: 19 is left out.
  if (dictionary && expressible(plain.scheme, plain.rep, plain.serializer, CompressorId::zstd))
    for (int level : {1, 0, 9}) out.push_back({CompressorId::zstd, level, true});
  return out;
}

std::string dictionary_file_name(const std::string& scope) {
  std::string name = scope;
  std::replace(name.begin(), name.end(), ':', '-');
  return name + ".zdict";
}

std::vector<uint32_t> space_thresholds(FlagScheme scheme, size_t largest_plain_bytes) {
  std::vector<uint32_t> out = {0};
  for (uint64_t t = 64; t <= (1ull << 31); t *= 2) {
    out.push_back(static_cast<uint32_t>(t));
    if (t >= largest_plain_bytes) break;
  }
  out.push_back(CompressionRule::defaults_for(scheme).threshold_bytes);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

PhpReach php_reach(const Strategy& s, bool compressing) {
  const bool zstd = s.compressor == CompressorId::zstd && compressing;
  if (s.dictionary && compressing && s.scheme != FlagScheme::native)
    return {PhpUse::cannot, "a zstd dictionary: no PHP extension loads one"};
  switch (s.scheme) {
    case FlagScheme::native: return {PhpUse::cannot, "hitcost's native flags: no PHP extension reads them"};
    case FlagScheme::php_memcache:
      if (s.rep == Representation::structured && s.serializer != SerializerId::php)
        return {PhpUse::reads_only, "pecl memcache hands back the bytes; the application decodes them"};
      if (compressing && s.level != 0)
        return {PhpUse::reads_only, "pecl memcache inflates any zlib level but writes only its default"};
      return {PhpUse::writes, "pecl memcache 4.0.5.2"};
    case FlagScheme::php_memcached:
      if (zstd) return {PhpUse::cannot, "zstd needs php-memcached 3.3.0; Debian 12 ships 3.2.0"};
      if (compressing && s.level != 0)
        return {PhpUse::reads_only, "php-memcached 3.2.0 inflates any level but writes only the library's default"};
      return {PhpUse::writes, "php-memcached 3.2.0"};
  }
  return {PhpUse::cannot, "unknown scheme"};
}

std::vector<std::string> php_settings(const Strategy& s, bool compressing) {
  if (php_reach(s, compressing).use != PhpUse::writes) return {};
  std::vector<std::string> out;
  if (s.scheme == FlagScheme::php_memcache) {
    // serialize() is the extension's own; only the compression rule is a setting.
    if (compressing) {
      out.push_back(ini("memcache.compress_threshold", std::to_string(s.rule.threshold_bytes)));
      out.push_back("$memcache->setCompressThreshold(" + std::to_string(s.rule.threshold_bytes) + ", " +
                    factor_text(s.rule.min_savings) + ")");
    } else {
      out.push_back("store without MEMCACHE_COMPRESSED and with no compress threshold");
    }
    return out;
  }
  if (s.rep == Representation::structured)
    out.push_back(ini("memcached.serializer", php_memcached_serializer(s.serializer)));
  else
    out.push_back("store the rendered page as a string (Memcached::set($key, $html))");
  if (!compressing) {
    out.push_back("Memcached::OPT_COMPRESSION => false");
    return out;
  }
  out.push_back(ini("memcached.compression_type", s.compressor == CompressorId::zlib ? "zlib" : "fastlz"));
  out.push_back(ini("memcached.compression_threshold", std::to_string(s.rule.threshold_bytes)));
  out.push_back(ini("memcached.compression_factor", factor_text(s.rule.factor)));
  return out;
}

std::vector<std::string> hitcost_settings(const Strategy& s, bool compressing, const std::string& dictionary_file) {
  std::vector<std::string> out = {"--strategy " + s.name(), std::string("--flags ") + to_string(s.scheme)};
  if (s.dictionary) out.push_back("--zstd-dict " + s.dictionary_scope() + "=" + dictionary_file);
  if (compressing) {
    out.push_back("--threshold " + std::to_string(s.rule.threshold_bytes));
    if (s.scheme == FlagScheme::php_memcache)
      out.push_back("--min-savings " + factor_text(s.rule.min_savings));
    else
      out.push_back("--factor " + factor_text(s.rule.factor));
  }
  return out;
}

}  // namespace hitcost::corpus
