// Every compressor's exact-size decoder on arbitrary bytes, and the FastLZ encoder on
// arbitrary text. Input: [mode byte][compressor byte][le32 expected size][bytes...].
//   mode even: decompress_exact(bytes, expected) must never overrun, and a success must
//              produce exactly `expected` bytes that compress and decompress back.
//   mode odd:  FastLZ levels 1 and 2 must round-trip `bytes` (the encoder's output is
//              what PHP will read, so an encoder bug is as bad as a decoder bug).
// `expected` is capped at 1 MiB so that a hostile prefix costs memory, not the fuzzer.
#include <string>

#include "codecs/compressor.h"
#include "codecs/fastlz.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const uint8_t mode = in.byte();
  const CompressorId id = kCompressors[in.byte() % std::size(kCompressors)];
  const size_t expected = in.u32() % (size_t{1} << 20);
  const std::string bytes(in.rest);  // exact-size copy for ASan

  if (mode % 2 == 1) {
    for (int level : {1, 2}) {
      std::string packed, back;
      if (!fastlz_compress(level, bytes, packed)) fuzz::violated("fastlz refused to compress");
      if (!fastlz_decompress(packed, bytes.size(), back)) fuzz::violated("fastlz could not read its own block");
      if (back != bytes) fuzz::violated("fastlz round trip changed the bytes");
    }
    return 0;
  }
  std::string out;
  Status s = decompress_exact(id, bytes, expected, out);
  if (!s) {
    if (s.error().code == Errc::not_found) fuzz::violated("decompressor answered not_found");
    return 0;
  }
  if (out.size() != expected) fuzz::violated("a successful decompress has the wrong size");
  std::string again, back;
  if (!compress(id, 0, out, again)) fuzz::violated("could not compress a decompressed value");
  if (!decompress_exact(id, again, out.size(), back) || back != out) fuzz::violated("round trip failed");
  return 0;
}
