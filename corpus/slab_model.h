#pragma once
// What a stored value costs memcached in memory: not its bytes but the slab chunk its item
// lands in. The rules are memcached 1.6's (Debian 12's 1.6.18; checked against a real one's
// `stats slabs` in tests/corpus/slab_model_test.cpp):
//
//   item   = 48 (the item header) + 8 (CAS, unless -C) + key + 1 + suffix + value + 2 ("\r\n")
//            suffix = 4 when the flags are not 0 (the client flags live in the item), else 0
//   classes: the first chunk is 48 + chunk_size (-n, 48 by default) = 96 B; each next one is
//            the last × growth_factor (-f, 1.25) cut to whole bytes and rounded up to 8 B, while it stays below
//            slab_chunk_max / growth_factor; the last class is slab_chunk_max (half a page).
//   an item goes in the smallest class whose chunk holds it; memory comes in pages
//            (slab_page_size, 1 MiB) of chunk_bytes / chunk size chunks each.
//   an item larger than slab_chunk_max is chained: a header item (the item header, key,
//            suffix and CAS, plus a 48-byte chunk header) in its own class, then the value
//            in chunks of slab_chunk_max (each with a 48-byte chunk header), the last one in
//            the smallest class that holds the rest.
// On 1.6.18 the model's chunks per class and total_malloced equal `stats slabs` exactly, with
// the defaults and with -f, -n, -C, -I and -o slab_chunk_max (3,000 values of 5 B to 700 kB).
//
// Two figures: chunk bytes (every item's chunk: what the values occupy in a cache of any
// size, the figure a recommendation weighs) and page bytes (whole pages per class: what a
// cache holding exactly these items mallocs, `stats slabs` total_malloced).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace hitcost::corpus {

struct SlabSettings {
  uint32_t chunk_size = 48;     // -n: the smallest chunk's room beyond the item header
  double growth_factor = 1.25;  // -f
  uint32_t slab_page_size = 1u << 20;
  uint32_t slab_chunk_max = 1u << 19;  // -o slab_chunk_max; half a page by default
  bool use_cas = true;                 // -C turns it off
  std::string source = "memcached 1.6 defaults (-n 48 -f 1.25, 1 MiB pages)";
};

// From a memcached's `stats settings` (chunk_size, growth_factor, slab_chunk_max, cas_enabled):
// what it says, the defaults for what it leaves out. invalid_argument when a
// value present is not a number or is out of range.
Result<SlabSettings> slab_settings_from_stats(const std::vector<std::pair<std::string, std::string>>& stats,
                                              const std::string& address);

struct SlabClass {
  uint32_t id = 0;  // memcached's class number, from 1
  uint32_t chunk_bytes = 0;
  uint32_t per_page = 0;
};
// The classes memcached builds from these settings, smallest first.
std::vector<SlabClass> slab_classes(const SlabSettings& s);

// The item's whole size (the formula above) for a key, a value and its flags.
uint64_t item_bytes(const SlabSettings& s, size_t key_bytes, size_t value_bytes, uint32_t flags);

// Items added one by one; the memory they take, per class and in all.
class SlabTally {
 public:
  explicit SlabTally(const SlabSettings& s);
  void add(size_t key_bytes, size_t value_bytes, uint32_t flags);
  uint64_t items() const noexcept { return items_; }
  uint64_t chunk_bytes() const noexcept { return chunk_bytes_; }
  uint64_t page_bytes() const;
  // Chunks used per class id (index = id; 0 unused), what `stats slabs` calls used_chunks.
  const std::vector<uint64_t>& chunks_per_class() const noexcept { return chunks_; }
  const std::vector<SlabClass>& classes() const noexcept { return classes_; }

 private:
  void take_chunk(uint64_t bytes);  // one chunk of the smallest class holding `bytes`
  SlabSettings settings_;
  std::vector<SlabClass> classes_;
  std::vector<uint64_t> chunks_;
  uint64_t items_ = 0, chunk_bytes_ = 0;
};

}  // namespace hitcost::corpus
