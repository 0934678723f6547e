#pragma once
// The calibration of this host (hitcost-bench --calibrate): every step a hit can take, on one page
// of `rows` rows and its encodings, with every library this host has — memcpy; every compressor's
// decompression (zlib with each inflate library) of the HTML and of each serialization; every
// serializer's decode (JSON with each decoder) and encode; the render; and loopback: a request's
// receive and parse, a round trip with a page-sized reply, a send of the page. Timed as every
// calibration is (cpu_timing.h: thread CPU, interleaved repeats), each checked before timing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codecs/codec_table.h"
#include "core/result.h"
#include "floor/step_plan.h"

namespace hitcost::floor {

struct HostSpec {
  uint32_t rows = 50;
  uint64_t seed = 1;
  int peer_cpu = -1;
  size_t request_bytes = 96, head_bytes = 170;
};

// The bytes the table is timed on, for whoever times the same bytes elsewhere (PHP beside it).
struct HostBytes {
  std::string html;
  std::vector<std::pair<SerializerId, std::string>> serialized;  // every serializer's bytes of the page
  std::string zlib_of_json, zlib_of_html;                        // bare zlib streams (level 6), as gzcompress
};
HostBytes host_bytes(const HostSpec& spec);

// Groups (Step::part): "copy", "decompress", "decode", "encode", "render", "loopback".
Result<std::vector<Step>> calibrate_host(const HostSpec& spec, const TimingPlan& timing);

}  // namespace hitcost::floor
