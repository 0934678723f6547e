#pragma once
// What `hitcost-corpus recommend` searches, and what PHP can do with each candidate: the space
// of storing choices under one flag scheme, and the settings that configure a choice. The
// engine (recommend.cpp) measures; this file only lists and names.
//
// The space (under the corpus's own scheme, so the application keeps reading its cache):
//   representations  html, and struct:<serializer> for each serializer the scheme can flag
//   compressors      each one the scheme can flag, at the levels people use:
//                    zlib 1, 6 (its default) and 9; zstd 1, 3 (default), 9 and 19; lz4 1 and its
//                    high-compression mode (9); FastLZ as PHP writes it (level by size) and 2;
//                    zstd with a dictionary trained on the representation (1, 3, 9) when
//                    recommend trained one
//   thresholds       0, every power of two from 64 B to the largest plain value, and the
//                    scheme's default (php-memcached 2000 B, php-memcache 20000 B)
//
// PHP's reach, for Debian 12's extensions (php-memcached 3.2.0, pecl memcache 4.0.5.2; the
// ini settings are these versions' — `php -i` lists them):
//   php-memcached  reads php, igbinary (php-igbinary), JSON, msgpack (php-msgpack) and strings,
//                  zlib and FastLZ; not zstd (0x80 needs 3.3.0). It writes the serializer of
//                  memcached.serializer, compresses with memcached.compression_type at the
//                  library's own level (zlib 6, FastLZ by size: no level setting in 3.2.0)
//                  above memcached.compression_threshold, kept when plain > packed x
//                  memcached.compression_factor. Another level: it reads, it cannot write.
//   php-memcache   reads serialize() and strings, zlib at any level; writes zlib at zlib's
//                  default level above memcache.compress_threshold with the 20 % saving rule;
//                  a JSON or msgpack value (hitcost's user flags) comes back as its bytes,
//                  for the application to decode.
//   native         hitcost's own layout: PHP cannot read it.
//   a zstd dictionary  no PHP extension loads one (php-memcached 3.3.0's zstd reads frames
//                  without a dictionary only).
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/strategy.h"

namespace hitcost::corpus {

struct SpaceRepresentation {
  Representation rep = Representation::html;
  SerializerId serializer = SerializerId::none;
};
// html first, then the serializers in table order.
std::vector<SpaceRepresentation> space_representations(FlagScheme scheme);

struct SpaceCompressor {
  CompressorId id = CompressorId::none;
  int level = 0;            // 0: the compressor's default (FastLZ: by size, as PHP)
  bool dictionary = false;  // zstd with the dictionary trained for the representation
};
// The compressors and levels above that `plain` (a representation, no compressor) can be
// stored with under its scheme; with `dictionary`, zstd with a dictionary too (levels 1, 3, 9).
std::vector<SpaceCompressor> space_compressors(const Strategy& plain, bool dictionary = false);

// The file a representation's trained dictionary is kept in, inside recommend's --dict-dir:
// "struct-json.zdict", "html.zdict".
std::string dictionary_file_name(const std::string& scope);

// 0, the powers of two from 64 up to the first at or above `largest_plain_bytes`, and the
// scheme's default threshold; ascending, no repeats.
std::vector<uint32_t> space_thresholds(FlagScheme scheme, size_t largest_plain_bytes);

// What PHP's extension does with a candidate's values (see above).
enum class PhpUse : uint8_t {
  writes,      // reads and writes it with ini settings alone
  reads_only,  // reads it; cannot write it so (a level it has no setting for, app-side decoding)
  cannot,      // cannot read it
};
const char* to_string(PhpUse) noexcept;

struct PhpReach {
  PhpUse use = PhpUse::cannot;
  std::string note;  // why, in a few words
};
// `compressing`: the candidate compresses some values (its threshold is in strategy.rule).
PhpReach php_reach(const Strategy& strategy, bool compressing);

// The PHP settings that make the extension write it (ini lines), when PHP writes it; empty
// otherwise.
std::vector<std::string> php_settings(const Strategy& strategy, bool compressing);
// The hitcost-server options that store it (--strategy, --flags, the rule, and --zstd-dict with
// `dictionary_file` for a dictionary strategy).
std::vector<std::string> hitcost_settings(const Strategy& strategy, bool compressing,
                                          const std::string& dictionary_file = "FILE");

}  // namespace hitcost::corpus
