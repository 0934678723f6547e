#include "trace/top_keys.h"

#include <algorithm>

namespace hitcost::trace {

TopKeys::TopKeys(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {
  counters_.reserve(capacity_);
  by_key_.reserve(capacity_);
}

TopKeys::Bucket* TopKeys::new_bucket(uint64_t count, Bucket* after) {
  Bucket* b;
  if (!free_buckets_.empty()) {
    b = free_buckets_.back();
    free_buckets_.pop_back();
  } else {
    bucket_pool_.push_back(std::make_unique<Bucket>());
    b = bucket_pool_.back().get();
  }
  *b = Bucket{count, nullptr, after, after ? after->next : least_};
  if (b->next) b->next->prev = b;
  if (after)
    after->next = b;
  else
    least_ = b;
  return b;
}

void TopKeys::link(Counter& c, Bucket& b) {
  c.bucket = &b;
  c.prev = nullptr;
  c.next = b.head;
  if (b.head) b.head->prev = &c;
  b.head = &c;
}

void TopKeys::unlink(Counter& c) {
  Bucket* b = c.bucket;
  if (c.prev) c.prev->next = c.next;
  if (c.next) c.next->prev = c.prev;
  if (b->head == &c) b->head = c.next;
  c.bucket = nullptr;
  if (b->head) return;
  if (b->prev) b->prev->next = b->next;
  if (b->next) b->next->prev = b->prev;
  if (least_ == b) least_ = b->next;
  free_buckets_.push_back(b);
}

void TopKeys::increment(Counter& c) {
  Bucket* from = c.bucket;
  ++c.count;
  Bucket* to = from->next && from->next->count == c.count ? from->next : new_bucket(c.count, from);
  unlink(c);  // may free `from`: `to` is already linked after it
  link(c, *to);
}

void TopKeys::add(std::string_view key) {
  ++events_;
  if (auto it = by_key_.find(key); it != by_key_.end()) return increment(*it->second);
  if (counters_.size() < capacity_) {
    Counter& c = counters_.emplace_back();
    c.key.assign(key);
    c.count = 0;
    Bucket* zero = least_ && least_->count == 0 ? least_ : new_bucket(0, nullptr);
    link(c, *zero);
    by_key_.emplace(c.key, &c);
    return increment(c);
  }
  // Full: the new key takes the least-counted key's counter and its count as possible overcount.
  Counter& c = *least_->head;
  by_key_.erase(c.key);
  c.key.assign(key);
  c.error = c.count;
  by_key_.emplace(c.key, &c);
  increment(c);
}

TopKeys::Top TopKeys::top(size_t n) const {
  Top out;
  std::vector<const Counter*> held;
  held.reserve(counters_.size());
  for (const Counter& c : counters_) held.push_back(&c);
  std::sort(held.begin(), held.end(), [](const Counter* a, const Counter* b) {
    return a->count != b->count ? a->count > b->count : a->key < b->key;
  });
  // A key outside the counters was asked at most the least count (when the summary is full;
  // never, when it is not); one held but not returned at most its count. The answer is certain
  // when the lowest count among those returned is at least every such upper bound.
  uint64_t outside = counters_.size() == capacity_ && least_ ? least_->count : 0;
  if (held.size() > n) {
    outside = std::max(outside, held[n]->count);
    held.resize(n);
  }
  uint64_t lowest = UINT64_MAX;
  for (const Counter* c : held) {
    out.keys.push_back({c->key, c->count, c->error});
    lowest = std::min(lowest, c->count - c->error);
  }
  out.certain = out.keys.empty() || lowest >= outside;
  return out;
}

}  // namespace hitcost::trace
