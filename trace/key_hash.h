#pragma once
// Keys in a trace are private (user ids, emails in cache keys) and may be binary-unsafe, so a
// trace holds a keyed hash of each key, never the key, unless the user asks to keep them.
//
// SipHash-2-4 (core/siphash.h) under a 128-bit secret. A recording or an import draws its secret
// from the kernel (getrandom) and never writes it down, so a trace cannot be used to confirm a
// guessed key, and two traces of the same cache do not share key ids (a replay only needs keys
// told apart within one trace).
#include <cstdint>
#include <string_view>

#include "core/siphash.h"

namespace hitcost::trace {

class KeyHasher {
 public:
  // A fresh secret from getrandom(2) (throws std::runtime_error if the kernel gives none).
  static KeyHasher random();
  KeyHasher(uint64_t k0, uint64_t k1) : k0_(k0), k1_(k1) {}
  uint64_t operator()(std::string_view key) const noexcept { return siphash24(k0_, k1_, key); }

 private:
  uint64_t k0_, k1_;
};

}  // namespace hitcost::trace
