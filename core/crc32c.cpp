#include "core/crc32c.h"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace hitcost {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // reflected Castagnoli polynomial
constexpr size_t kStride = 2048;         // bytes per stream in the interleaved loop

struct Tables {
  uint32_t byte[256];
  uint32_t shift[4][256];  // state -> state after kStride zero bytes, by byte position
  bool hw = false;

  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      byte[i] = c;
    }
    uint32_t basis[32];
    for (int j = 0; j < 32; ++j) {
      uint32_t s = 1u << j;
      for (size_t k = 0; k < kStride; ++k) s = byte[s & 0xff] ^ (s >> 8);
      basis[j] = s;
    }
    for (int pos = 0; pos < 4; ++pos) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int bit = 0; bit < 8; ++bit)
          if (b & (1u << bit)) v ^= basis[pos * 8 + bit];
        shift[pos][b] = v;
      }
    }
#if defined(__x86_64__)
    hw = __builtin_cpu_supports("sse4.2");
#endif
  }

  uint32_t shift_stride(uint32_t s) const {
    return shift[0][s & 0xff] ^ shift[1][(s >> 8) & 0xff] ^ shift[2][(s >> 16) & 0xff] ^ shift[3][s >> 24];
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

uint32_t sw_raw(const Tables& t, uint32_t s, const unsigned char* p, size_t n) {
  while (n--) s = t.byte[(s ^ *p++) & 0xff] ^ (s >> 8);
  return s;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t hw_raw(const Tables& t, uint32_t s, const unsigned char* p, size_t n) {
  auto load = [](const unsigned char* q) {
    uint64_t v;
    std::memcpy(&v, q, 8);
    return v;
  };
  while (n >= 3 * kStride) {  // three independent dependency chains, then combined
    uint64_t a = s, b = 0, c = 0;
    for (size_t i = 0; i < kStride; i += 8) {
      a = _mm_crc32_u64(a, load(p + i));
      b = _mm_crc32_u64(b, load(p + kStride + i));
      c = _mm_crc32_u64(c, load(p + 2 * kStride + i));
    }
    s = t.shift_stride(t.shift_stride(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^ static_cast<uint32_t>(c);
    p += 3 * kStride;
    n -= 3 * kStride;
  }
  uint64_t s64 = s;
  for (; n >= 8; n -= 8, p += 8) s64 = _mm_crc32_u64(s64, load(p));
  s = static_cast<uint32_t>(s64);
  for (; n > 0; --n) s = _mm_crc32_u8(s, *p++);
  return s;
}
#endif

}  // namespace

uint32_t crc32c(uint32_t crc, const void* data, size_t n) noexcept {
  const Tables& t = tables();
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (t.hw) return ~hw_raw(t, ~crc, p, n);
#endif
  return ~sw_raw(t, ~crc, p, n);
}

}  // namespace hitcost
