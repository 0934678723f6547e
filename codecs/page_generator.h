#pragma once
// The origin: a deterministic page generator. Same (id, rows, seed, compressibility)
// gives the same Page on every machine and run (no std:: distributions, whose output
// differs between standard libraries).
#include <cstdint>

#include "codecs/page.h"

namespace hitcost {

struct PageSpec {
  int64_t id = 0;
  uint32_t rows = 50;
  uint64_t seed = 1;
  // 1.0: text drawn from a vocabulary, zlib ratio about 3-5x like real pages.
  // 0.0: random characters, incompressible. Values between mix the two.
  double compressibility = 1.0;
};

Page generate_page(const PageSpec& spec);

}  // namespace hitcost
