#include "corpus/slab_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hitcost::corpus {
namespace {

constexpr uint64_t kItemHeader = 48;   // sizeof(item) on 64-bit
constexpr uint64_t kChunkHeader = 48;  // a chained item's chunk header (1.6.18's, by stats slabs)
constexpr uint64_t kCas = 8;
constexpr uint32_t kAlign = 8;      // CHUNK_ALIGN_BYTES
constexpr size_t kMaxClasses = 63;  // MAX_NUMBER_OF_SLAB_CLASSES - 1

const std::string* find_stat(const std::vector<std::pair<std::string, std::string>>& stats, const char* name) {
  for (const auto& [k, v] : stats)
    if (k == name) return &v;
  return nullptr;
}

}  // namespace

Result<SlabSettings> slab_settings_from_stats(const std::vector<std::pair<std::string, std::string>>& stats,
                                              const std::string& address) {
  SlabSettings s;
  auto whole = [&](const char* name, uint32_t& into, uint64_t lo, uint64_t hi) -> Status {
    const std::string* v = find_stat(stats, name);
    if (!v) return ok_status();
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || end != v->data() + v->size() || n < lo || n > hi)
      return Error{Errc::invalid_argument, address + ": stats settings " + name + " '" + *v + "' is not in " +
                                               std::to_string(lo) + ".." + std::to_string(hi)};
    into = static_cast<uint32_t>(n);
    return ok_status();
  };
  if (Status st = whole("chunk_size", s.chunk_size, 1, 1u << 20); !st) return st.error();
  if (Status st = whole("slab_chunk_max", s.slab_chunk_max, 1024, 1u << 30); !st) return st.error();
  if (const std::string* f = find_stat(stats, "growth_factor")) {
    char* end = nullptr;
    const double g = std::strtod(f->c_str(), &end);
    if (end != f->c_str() + f->size() || !(g > 1.0) || g > 100)
      return Error{Errc::invalid_argument, address + ": stats settings growth_factor '" + *f + "' is not above 1"};
    s.growth_factor = g;
  }
  if (const std::string* cas = find_stat(stats, "cas_enabled")) s.use_cas = *cas != "no";
  // memcached 1.6's pages are 1 MiB whatever -I says (item_size_max is not read): an item above
  // slab_chunk_max is chained (1.6.18 with -I 4m: total_malloced in whole 1 MiB pages).
  s.source = "stats settings of " + address;
  return s;
}

std::vector<SlabClass> slab_classes(const SlabSettings& s) {
  std::vector<SlabClass> out;
  // memcached keeps the size in an unsigned int: each growth truncates before it is aligned.
  uint32_t size = static_cast<uint32_t>(kItemHeader + s.chunk_size);
  while (out.size() + 1 < kMaxClasses && double(size) < double(s.slab_chunk_max) / s.growth_factor) {
    if (size % kAlign) size += kAlign - size % kAlign;
    out.push_back({uint32_t(out.size() + 1), size, s.slab_page_size / size});
    size = static_cast<uint32_t>(double(size) * s.growth_factor);
  }
  out.push_back({uint32_t(out.size() + 1), s.slab_chunk_max, s.slab_page_size / s.slab_chunk_max});
  return out;
}

uint64_t item_bytes(const SlabSettings& s, size_t key_bytes, size_t value_bytes, uint32_t flags) {
  return kItemHeader + (s.use_cas ? kCas : 0) + key_bytes + 1 + (flags != 0 ? 4 : 0) + value_bytes + 2;
}

SlabTally::SlabTally(const SlabSettings& s)
    : settings_(s), classes_(slab_classes(s)), chunks_(classes_.size() + 1, 0) {}

void SlabTally::take_chunk(uint64_t bytes) {
  auto it = std::lower_bound(classes_.begin(), classes_.end(), bytes,
                             [](const SlabClass& c, uint64_t b) { return c.chunk_bytes < b; });
  if (it == classes_.end()) --it;  // callers never ask for more than the largest chunk
  ++chunks_[it->id];
  chunk_bytes_ += it->chunk_bytes;
}

void SlabTally::add(size_t key_bytes, size_t value_bytes, uint32_t flags) {
  ++items_;
  const uint64_t whole = item_bytes(settings_, key_bytes, value_bytes, flags);
  if (whole <= settings_.slab_chunk_max) {
    take_chunk(whole);
    return;
  }
  take_chunk(whole - value_bytes - 2 + kChunkHeader);  // the header item
  uint64_t rest = value_bytes + 2;
  const uint64_t room = settings_.slab_chunk_max - kChunkHeader;
  while (rest > 0) {
    const uint64_t part = std::min(rest, room);
    take_chunk(part + kChunkHeader);
    rest -= part;
  }
}

uint64_t SlabTally::page_bytes() const {
  uint64_t pages = 0;
  for (const SlabClass& c : classes_) pages += (chunks_[c.id] + c.per_page - 1) / c.per_page;
  return pages * settings_.slab_page_size;
}

}  // namespace hitcost::corpus
