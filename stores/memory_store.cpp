#include "stores/memory_store.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "core/string_hash.h"

namespace hitcost {
namespace {

constexpr size_t kShards = 64;
constexpr uint64_t kOverhead = 64;  // per-entry bookkeeping charged against the bound

// One bounded, sharded map key -> V with CLOCK eviction. Locks: see memory_store.h.
template <class V>
class Table {
 public:
  explicit Table(uint64_t bound) : shard_budget_(bound ? std::max<uint64_t>(bound / kShards, 1) : 0) {}

  // Calls fn(const V&) under the shard's shared lock; false on a miss.
  template <class Fn>
  bool read(std::string_view key, Fn&& fn) {
    Shard& s = shard(key);
    std::shared_lock lk(s.mu);
    auto it = s.map.find(key);
    if (it == s.map.end()) return false;
    if (shard_budget_ && !it->second.ref.load(std::memory_order_relaxed))
      it->second.ref.store(true, std::memory_order_relaxed);
    fn(it->second.value);
    return true;
  }

  void put(std::string_view key, V value, uint64_t charge) {
    Shard& s = shard(key);
    std::unique_lock lk(s.mu);
    auto it = s.map.find(key);
    if (it == s.map.end())
      it = s.map.try_emplace(std::string(key)).first;
    else
      s.used -= it->second.charge;
    Slot& slot = it->second;
    slot.value = std::move(value);
    slot.charge = charge;
    slot.gen = ++s.gen;
    slot.ref.store(false, std::memory_order_relaxed);
    s.used += charge;
    if (!shard_budget_) return;
    s.order.emplace_back(it->first, slot.gen);
    while (s.used > shard_budget_ && !s.order.empty()) {
      auto [k, gen] = std::move(s.order.front());
      s.order.pop_front();
      auto v = s.map.find(k);
      if (v == s.map.end() || v->second.gen != gen) continue;  // stale: removed/overwritten
      if (v->second.ref.load(std::memory_order_relaxed) && v->first != key) {
        v->second.ref.store(false, std::memory_order_relaxed);  // second chance
        s.order.emplace_back(std::move(k), gen);
        continue;
      }
      s.used -= v->second.charge;
      s.map.erase(v);
      evictions_.fetch_add(1, std::memory_order_relaxed);
    }
    if (s.order.size() > 2 * s.map.size() + 64) compact(s);
  }

  bool erase(std::string_view key) {
    Shard& s = shard(key);
    std::unique_lock lk(s.mu);
    auto it = s.map.find(key);
    if (it == s.map.end()) return false;
    s.used -= it->second.charge;
    s.map.erase(it);
    return true;
  }

  void totals(uint64_t& items, uint64_t& bytes) {
    for (auto& s : shards_) {
      std::shared_lock lk(s.mu);
      items += s.map.size();
      bytes += s.used;
    }
  }
  uint64_t evictions() const { return evictions_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    V value{};
    uint64_t charge = 0;
    uint64_t gen = 0;
    std::atomic<bool> ref{false};  // read since last considered for eviction
  };
  struct alignas(64) Shard {
    std::shared_mutex mu;
    std::unordered_map<std::string, Slot, StringHash, StringEq> map;
    std::deque<std::pair<std::string, uint64_t>> order;  // insertion order (key, gen)
    uint64_t used = 0, gen = 0;
  };
  Shard& shard(std::string_view key) { return shards_[(StringHash{}(key) >> 7) % kShards]; }
  static void compact(Shard& s) {
    std::deque<std::pair<std::string, uint64_t>> live;
    for (auto& e : s.order) {
      auto v = s.map.find(e.first);
      if (v != s.map.end() && v->second.gen == e.second) live.push_back(std::move(e));
    }
    s.order.swap(live);
  }

  uint64_t shard_budget_;
  Shard shards_[kShards];
  std::atomic<uint64_t> evictions_{0};
};

struct Bytes {
  std::string data;
  uint32_t flags = 0;
};

struct alignas(64) Counter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t n = 1) { v.fetch_add(n, std::memory_order_relaxed); }
  double get() const { return static_cast<double>(v.load(std::memory_order_relaxed)); }
};

}  // namespace

struct MemoryStore::Impl {
  explicit Impl(uint64_t bound) : bytes(bound), pages(bound) {}
  Table<Bytes> bytes;
  Table<std::shared_ptr<const Page>> pages;
  Counter gets, hits, misses, sets, removes, bytes_read, bytes_written, errors;
  Counter page_gets, page_hits, page_sets;
};

MemoryStore::MemoryStore(MemoryStoreOptions opts) : opts_(opts), impl_(std::make_unique<Impl>(opts.size)) {}
MemoryStore::~MemoryStore() = default;

std::string MemoryStore::describe() const {
  std::string d = opts_.objects ? "memory:objects" : "memory:bytes";
  if (opts_.size) d += "?size=" + std::to_string(opts_.size);
  return d;
}

Status MemoryStore::get(std::string_view key, std::string& value, uint32_t& flags) {
  impl_->gets.add();
  bool hit = impl_->bytes.read(key, [&](const Bytes& b) {
    value.assign(b.data);
    flags = b.flags;
  });
  if (!hit) {
    impl_->misses.add();
    return Error{Errc::not_found, {}};
  }
  impl_->hits.add();
  impl_->bytes_read.add(value.size());
  return ok_status();
}

Status MemoryStore::set(std::string_view key, std::string_view value, uint32_t flags) {
  impl_->sets.add();
  if (key.empty()) {
    impl_->errors.add();
    return Error{Errc::invalid_argument, "empty key"};
  }
  const uint64_t charge = key.size() + value.size() + kOverhead;
  if (opts_.size && charge > opts_.size / kShards) {
    impl_->errors.add();
    return Error{Errc::too_large, "value larger than a shard's share of size="};
  }
  impl_->bytes.put(key, Bytes{std::string(value), flags}, charge);
  impl_->bytes_written.add(value.size());
  return ok_status();
}

Status MemoryStore::remove(std::string_view key) {
  impl_->removes.add();
  bool a = impl_->bytes.erase(key);
  bool b = impl_->pages.erase(key);
  if (!a && !b) return Error{Errc::not_found, {}};
  return ok_status();
}

uint64_t MemoryStore::page_bytes(const Page& p) {
  uint64_t n = sizeof(Page) + p.title.size();
  for (const Row& r : p.rows) {
    n += sizeof(Row) + r.title.size() + r.author.size() + r.excerpt.size() + r.url.size();
    for (const auto& t : r.tags) n += sizeof(std::string) + t.size();
  }
  return n;
}

std::shared_ptr<const Page> MemoryStore::get_page(std::string_view key) {
  impl_->page_gets.add();
  std::shared_ptr<const Page> out;
  if (impl_->pages.read(key, [&](const std::shared_ptr<const Page>& p) { out = p; })) impl_->page_hits.add();
  return out;
}

void MemoryStore::set_page(std::string_view key, std::shared_ptr<const Page> page) {
  if (!page || key.empty()) return;
  impl_->page_sets.add();
  const uint64_t charge = key.size() + page_bytes(*page) + kOverhead;
  impl_->pages.put(key, std::move(page), charge);
}

StoreStats MemoryStore::stats() {
  StoreStats s;
  const Impl& i = *impl_;
  s.gets = static_cast<uint64_t>(i.gets.get());
  s.hits = static_cast<uint64_t>(i.hits.get());
  s.misses = static_cast<uint64_t>(i.misses.get());
  s.sets = static_cast<uint64_t>(i.sets.get());
  s.removes = static_cast<uint64_t>(i.removes.get());
  s.errors = static_cast<uint64_t>(i.errors.get());
  s.bytes_read = static_cast<uint64_t>(i.bytes_read.get());
  s.bytes_written = static_cast<uint64_t>(i.bytes_written.get());
  uint64_t items = 0, bytes = 0, pitems = 0, pbytes = 0;
  impl_->bytes.totals(items, bytes);
  impl_->pages.totals(pitems, pbytes);
  s.extra["records"] = static_cast<double>(items);
  s.extra["used_bytes"] = static_cast<double>(bytes);
  s.extra["evictions"] = static_cast<double>(impl_->bytes.evictions());
  s.extra["capacity_bytes"] = static_cast<double>(opts_.size);
  if (opts_.objects) {
    s.extra["objects.records"] = static_cast<double>(pitems);
    s.extra["objects.used_bytes"] = static_cast<double>(pbytes);
    s.extra["objects.evictions"] = static_cast<double>(impl_->pages.evictions());
    s.extra["objects.gets"] = i.page_gets.get();
    s.extra["objects.hits"] = i.page_hits.get();
    s.extra["objects.sets"] = i.page_sets.get();
  }
  return s;
}

}  // namespace hitcost
