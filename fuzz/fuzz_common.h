#pragma once
// Small helpers shared by the fuzz targets: input splitting and the crash-on-violation check.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "codecs/decoders.h"

namespace hitcost::fuzz {

// Consumes bytes from the front of the input; past the end it yields zeros.
struct Input {
  std::string_view rest;
  uint8_t byte() {
    if (rest.empty()) return 0;
    uint8_t b = static_cast<uint8_t>(rest[0]);
    rest.remove_prefix(1);
    return b;
  }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{byte()} << (8 * i);
    return v;
  }
};

// A broken invariant is a finding: abort so libFuzzer saves the input.
[[noreturn]] inline void violated(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

// The libraries the hit path may read a value with, from one input byte: the inflate library
// from its value mod 3, the JSON decoder from the rest.
inline Decoders decoders_of(uint8_t b) {
  return {kInflateLibraries[b % std::size(kInflateLibraries)].id,
          kJsonDecoders[(b / std::size(kInflateLibraries)) % std::size(kJsonDecoders)].id};
}

}  // namespace hitcost::fuzz
