#pragma once
// CRC-32C (Castagnoli), as used by iSCSI/ext4: crc32c(0, "123456789", 9) == 0xE3069283.
// SSE4.2 crc32 instruction with three interleaved streams when the CPU has it
// (about 0.1 ns per byte on large inputs), byte table otherwise. Thread-safe.
#include <cstddef>
#include <cstdint>

namespace hitcost {

// Extends `crc` (0 for a fresh checksum) over n bytes: crc32c(crc32c(0, a), b) == crc32c(0, a+b).
uint32_t crc32c(uint32_t crc, const void* data, size_t n) noexcept;

}  // namespace hitcost
