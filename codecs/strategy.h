#pragma once
// A strategy is how a page sits in the cache:
//   representation   html | struct:<serializer>
//   compression      none | zlib[:level] | zstd[:level] | lz4
//   rule             threshold + minimum saving (defaults from the flag scheme)
//   flag scheme      php-memcache | php-memcached | native
// Grammar (command line, /admin/config, ?strategy=):
//   html, html+zlib, struct:json, struct:msgpack+zlib, struct:php+zlib:9, struct:simdjson+zstd:3
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "codecs/result.h"

namespace hitcost {

enum class Representation : uint8_t { html, structured };

// Stable ids: they appear in the native flags word; never renumber.
enum class SerializerId : uint8_t { none = 0, json = 1, msgpack = 2, php = 3, simdjson = 4 };
enum class CompressorId : uint8_t { none = 0, zlib = 1, zstd = 2, lz4 = 3 };
enum class FlagScheme : uint8_t { php_memcache, php_memcached, native };

const char* to_string(SerializerId) noexcept;
const char* to_string(CompressorId) noexcept;
const char* to_string(FlagScheme) noexcept;
Result<FlagScheme> parse_flag_scheme(std::string_view);

// When a value is compressed at all. Defaults depend on the scheme (FORMATS.md):
//   php-memcache : threshold 20000 B, kept when compressed <= len * (1 - 0.20)
//   php-memcached: threshold  2000 B, kept when len > compressed * 1.3
//   native       : same as php-memcached
struct CompressionRule {
  uint32_t threshold_bytes = 2000;
  double min_savings = 0.0;   // php-memcache style; 0 = unused
  double factor = 1.3;        // php-memcached style; 0 = unused
  static CompressionRule defaults_for(FlagScheme);
  // true when a value of `plain` bytes that compressed to `packed` bytes is kept compressed
  bool keep(size_t plain, size_t packed) const noexcept;
};

struct Strategy {
  Representation rep = Representation::html;
  SerializerId serializer = SerializerId::none;   // none for html
  CompressorId compressor = CompressorId::none;
  int level = 0;                                  // 0 = the compressor's default
  FlagScheme scheme = FlagScheme::php_memcached;
  CompressionRule rule = CompressionRule::defaults_for(FlagScheme::php_memcached);

  // Canonical text form: "html", "struct:msgpack+zlib:9" (scheme and rule not included).
  std::string name() const;
};

// Parses the grammar above. The rule is set to the scheme's defaults; callers
// override rule fields afterwards from the command line.
Result<Strategy> parse_strategy(std::string_view text, FlagScheme scheme);

}  // namespace hitcost
