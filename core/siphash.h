#pragma once
// SipHash-2-4 (Aumasson and Bernstein, 2012), implemented from the paper: a 64-bit PRF keyed by
// 128 bits (k0 = the key's first 8 bytes little-endian, k1 the next 8). Redaction's keyed
// replacements (corpus/redact.h) and a trace's key ids (trace/key_hash.h) use it; the paper's
// vectors are checked in tests/trace/trace_file_test.cpp.
#include <cstdint>
#include <string_view>

namespace hitcost {

uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view data) noexcept;

}  // namespace hitcost
