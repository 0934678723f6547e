#pragma once
// A strategy is how a page sits in the cache:
//   representation   html | struct:<serializer>
//   compression      none | zlib[:level] | zstd[:level] | zstd-dict[:level] | lz4[:level] | fastlz[:1|2]
//                    zstd-dict: zstd with the dictionary loaded for the strategy's form
//                    (codecs/zstd_dictionary.h) when it is parsed; its values carry zstd's
//                    flags, the frame names the dictionary
//   rule             threshold + minimum saving (defaults from the flag scheme)
//   flag scheme      php-memcache | php-memcached | native
// Grammar (command line, /admin/config, ?strategy=):
//   html, html+zlib, struct:json, struct:msgpack+zlib, struct:php+zlib:9, struct:json+zstd:3,
//   struct:igbinary+fastlz
// Presets name what a stock PHP install writes (scheme and rule included):
//   php-default   struct:php+fastlz under php-memcached, threshold 2000 B, factor 1.3
//                 (Debian 12 php8.2-memcached 3.2.0 with its shipped ini)
//   php-memcache-default  struct:php+zlib under php-memcache, threshold 20000 B,
//                 20 % minimum saving (Debian 12 php8.2-memcache 4.0.5.2's defaults)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "codecs/codec_table.h"
#include "core/result.h"

namespace hitcost {

enum class Representation : uint8_t { html, structured };
enum class FlagScheme : uint8_t { php_memcache, php_memcached, native };
// Every scheme, for parsing and for tests that cover them all.
inline constexpr FlagScheme kFlagSchemes[] = {FlagScheme::php_memcache, FlagScheme::php_memcached, FlagScheme::native};

// SerializerId, CompressorId, their names and kSerializers/kCompressors: codecs/codec_table.h.
const char* to_string(FlagScheme) noexcept;
Result<FlagScheme> parse_flag_scheme(std::string_view);

// When a value is compressed at all. Defaults depend on the scheme (FORMATS.md):
//   php-memcache : threshold 20000 B, kept when compressed <= len * (1 - 0.20)
//   php-memcached: threshold  2000 B, kept when len > compressed * 1.3
//   native       : same as php-memcached
struct CompressionRule {
  uint32_t threshold_bytes = 2000;
  double min_savings = 0.0;  // php-memcache style; 0 = unused
  double factor = 1.3;       // php-memcached style; 0 = unused
  static CompressionRule defaults_for(FlagScheme);
  // true when a value of `plain` bytes that compressed to `packed` bytes is kept compressed
  bool keep(size_t plain, size_t packed) const noexcept;
};

struct Strategy {
  Representation rep = Representation::html;
  SerializerId serializer = SerializerId::none;  // none for html
  CompressorId compressor = CompressorId::none;
  int level = 0;               // 0 = the compressor's default
  bool dictionary = false;     // zstd-dict: zstd with a dictionary ...
  uint32_t dictionary_id = 0;  // ... this one: parse_strategy takes the one loaded for the form
                               // (0: none loaded, the strategy cannot store); every value the
                               // strategy writes uses it, plain strings among them
  FlagScheme scheme = FlagScheme::php_memcached;
  CompressionRule rule = CompressionRule::defaults_for(FlagScheme::php_memcached);

  // Canonical text form: "html", "struct:msgpack+zlib:9", "struct:json+zstd-dict:3" (scheme and
  // rule not included).
  std::string name() const;
  // The scope of the dictionary a zstd-dict value is written with: "html", "struct:json", ...
  std::string dictionary_scope() const;
};

// Parses the grammar above. The rule is set to the scheme's defaults; callers
// override rule fields afterwards from the command line.
// A preset sets its own scheme and rule; under another `scheme` it is refused
// (invalid_argument naming the scheme it needs), never silently re-schemed.
Result<Strategy> parse_strategy(std::string_view text, FlagScheme scheme);

// The presets above, for help texts and tests: name, what it expands to, its scheme.
struct StrategyPreset {
  const char* name;
  const char* strategy;
  FlagScheme scheme;
  const char* matches;  // the PHP settings it reproduces
};
inline constexpr StrategyPreset kStrategyPresets[] = {
    {"php-default", "struct:php+fastlz", FlagScheme::php_memcached,
     "php-memcached 3.2.0 as Debian 12 ships it: memcached.serializer=php, compression_type=fastlz, "
     "compression_threshold=2000, compression_factor=1.3"},
    {"php-memcache-default", "struct:php+zlib", FlagScheme::php_memcache,
     "pecl memcache 4.0.5.2 as Debian 12 ships it: serialize() for arrays, "
     "memcache.compress_threshold=20000, zlib kept at 20 % saving (min_savings 0.2)"},
};
// The preset of that name, or nullptr.
const StrategyPreset* find_preset(std::string_view name) noexcept;

}  // namespace hitcost
