#pragma once
// Small JSON records of 100-1,000 bytes, as an application caches one user and their orders: the
// same keys in every record, values that differ. For the tests of zstd dictionaries (the codec,
// and recommend's dictionary candidates). Reproducible: SplitMix64 from `seed`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/prng.h"

namespace hitcost::test {

inline std::vector<std::string> small_json_records(size_t n, uint64_t seed) {
  static const char* const kWords[] = {"alpha", "bravo",  "charlie", "delta", "echo", "foxtrot",  "golf",  "hotel",
                                       "india", "juliet", "kilo",    "lima",  "mike", "november", "oscar", "papa"};
  SplitMix64 r(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string s = "{\"id\":" + std::to_string(100000 + r.below(900000)) + ",\"name\":\"" + kWords[r.below(16)] + " " +
                    kWords[r.below(16)] + "\",\"email\":\"user" + std::to_string(r.below(100000)) +
                    "@example.com\",\"active\":" + (r.below(2) ? "true" : "false") + ",\"created_at\":\"2026-" +
                    std::to_string(1 + r.below(12)) + "-" + std::to_string(1 + r.below(28)) +
                    "T12:00:00Z\",\"roles\":[\"reader\"" + (r.below(3) == 0 ? ",\"editor\"" : "") + "],\"orders\":[";
    const size_t orders = r.below(8);
    for (size_t k = 0; k < orders; ++k) {
      s += std::string(k ? "," : "") + "{\"order_id\":" + std::to_string(r.below(10000000)) + ",\"status\":\"" +
           (r.below(2) ? "shipped" : "pending") + "\",\"total_cents\":" + std::to_string(r.below(100000)) +
           ",\"currency\":\"EUR\"}";
    }
    s += "]}";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace hitcost::test
