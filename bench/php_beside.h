#pragma once
// PHP's own functions on the very bytes hitcost's calibration times (hitcost-bench --calibrate):
// json_decode, unserialize, igbinary_unserialize, msgpack_unpack, gzuncompress — php-cli pinned
// to the same CPU, each function checked on its result, then timed in repeats of a batch of
// calls with hrtime (wall clock: PHP has no thread CPU clock; on a pinned, otherwise idle CPU
// the two agree, which the table's note says).
#include <map>
#include <optional>
#include <string>

#include "floor/cpu_timing.h"
#include "floor/host_calibration.h"

namespace hitcost::bench {

struct PhpTiming {
  std::string function;                 // "json_decode", ...
  std::optional<floor::Timing> timing;  // nullopt: not timed
  std::string why_not;                  // the extension is missing, the check failed, ...
};

struct PhpBeside {
  std::string version;  // "PHP 8.2.x" or "" when php-cli is not installed
  // By the bytes they read: "json", "php", "igbinary", "msgpack", "zlib of json", "zlib of html".
  std::map<std::string, PhpTiming> by_bytes;
};

PhpBeside time_php(const floor::HostBytes& bytes, uint32_t rows, int cpu, int repeats, double slice_ms);

}  // namespace hitcost::bench
