#pragma once
// MemoryStore: an in-process cache, two modes.
//   memory / memory:bytes — encoded values (bytes + flags), like a local memcached.
//   memory:objects        — additionally an ObjectCache of decoded pages held as
//                           shared_ptr<const Page> (the APCu-style floor: no bytes, no
//                           decode). Its byte get/set work too (a separate table with the
//                           same bound), so the server can fall back to the byte path.
// Thread-safety: 64 shards, each a shared_mutex over a hash map; gets take the shard
// shared, sets/removes exclusive. Bounded by `size` bytes (0 = unbounded; charge = key +
// value + 64 bytes of overhead, pages are estimated from their strings) split evenly over
// the shards; eviction is CLOCK (insertion order with a second chance for entries read
// since they were last considered).
#include <cstdint>
#include <memory>
#include <string>

#include "stores/store.h"

namespace hitcost {

struct MemoryStoreOptions {
  bool objects = false;
  uint64_t size = 0;  // bytes, 0 = unbounded
};

class MemoryStore final : public Store, public ObjectCache {
 public:
  explicit MemoryStore(MemoryStoreOptions opts);
  ~MemoryStore() override;

  Status get(std::string_view key, std::string& value, uint32_t& flags) override;
  Status set(std::string_view key, std::string_view value, uint32_t flags) override;
  Status remove(std::string_view key) override;
  StoreStats stats() override;
  std::string describe() const override;
  ObjectCache* objects() override { return opts_.objects ? this : nullptr; }

  // ObjectCache (objects mode; also usable in bytes mode through a MemoryStore*).
  std::shared_ptr<const Page> get_page(std::string_view key) override;
  void set_page(std::string_view key, std::shared_ptr<const Page> page) override;

  // Approximate bytes a page holds (what the bound charges for it).
  static uint64_t page_bytes(const Page& p);

 private:
  struct Impl;
  MemoryStoreOptions opts_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hitcost
