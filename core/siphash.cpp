#include "core/siphash.h"

#include <cstddef>

namespace hitcost {
namespace {
constexpr uint64_t rotl(uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }
}  // namespace

uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view data) noexcept {
  uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  const size_t whole = n - n % 8;
  auto load_le = [&](size_t at, size_t count) {
    uint64_t m = 0;
    for (size_t k = 0; k < count; ++k) m |= uint64_t(p[at + k]) << (8 * k);
    return m;
  };
  for (size_t at = 0; at < whole; at += 8) {
    const uint64_t m = load_le(at, 8);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  const uint64_t last = (uint64_t(n & 0xff) << 56) | load_le(whole, n - whole);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int k = 0; k < 4; ++k) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace hitcost
