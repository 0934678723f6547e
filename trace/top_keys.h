#pragma once
// The most-asked keys of a stream, in clear, in bounded memory: `record --values N` fetches
// their values into a corpus, so the traffic and the values it asks for travel together.
//
// Space-Saving (Metwally, Agrawal, El Abbadi 2005): `capacity` counters; a key not counted takes
// the counter of the least-counted key and inherits its count as its possible overcount
// (`error`). Every key asked more than events/capacity times is held, and a held key's true count
// lies in [count - error, count]. With capacity well above N (record uses 16 N, at least 4,096)
// the top N of a skewed stream come out exact, and `certain` says when the figures prove it:
// the N-th key's lowest possible count is above the highest any key outside could have.
// Memory: capacity keys (up to memcached's 250 bytes each) and three words per key.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hitcost::trace {

class TopKeys {
 public:
  explicit TopKeys(size_t capacity);

  void add(std::string_view key);

  struct Entry {
    std::string key;
    uint64_t count = 0;  // an upper bound on the key's events
    uint64_t error = 0;  // count - error is a lower bound
  };
  struct Top {
    std::vector<Entry> keys;  // most asked first (ties by key, so the order is reproducible)
    bool certain = false;     // these are the N most-asked keys, whatever the stream was
  };
  // The `n` most-counted keys held (fewer when fewer distinct keys came).
  Top top(size_t n) const;

  uint64_t events() const noexcept { return events_; }
  size_t capacity() const noexcept { return capacity_; }

 private:
  // Stream-Summary: counters in buckets of equal count, the buckets in a list by count, so the
  // least-counted key is the first bucket's and adding one moves a counter to the next bucket:
  // O(1) per event, whatever the stream.
  struct Bucket;
  struct Counter {
    std::string key;
    uint64_t count = 0, error = 0;
    Counter *prev = nullptr, *next = nullptr;  // within its bucket
    Bucket* bucket = nullptr;
  };
  struct Bucket {
    uint64_t count = 0;
    Counter* head = nullptr;
    Bucket *prev = nullptr, *next = nullptr;
  };
  void increment(Counter& c);
  void link(Counter& c, Bucket& b);
  void unlink(Counter& c);  // frees its bucket when it empties
  Bucket* new_bucket(uint64_t count, Bucket* after);

  size_t capacity_;
  uint64_t events_ = 0;
  std::vector<Counter> counters_;  // reserved to capacity: pointers into it stay valid
  std::vector<std::unique_ptr<Bucket>> bucket_pool_;
  std::vector<Bucket*> free_buckets_;
  Bucket* least_ = nullptr;                                // the bucket list's head
  std::unordered_map<std::string_view, Counter*> by_key_;  // views into counters_' keys
};

}  // namespace hitcost::trace
