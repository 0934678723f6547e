// Every compressor's exact-size decoder on arbitrary bytes, every inflate library held against
// zlib, and the FastLZ encoder on arbitrary text. Input: [mode byte][compressor byte][le32
// expected size][bytes...].
//   mode % 3 == 0: decompress_exact(bytes, expected) must never overrun, and a success must
//              produce exactly `expected` bytes that compress and decompress back. For zlib,
//              each library of codecs/inflate.h answers as zlib does: the same bytes when zlib
//              succeeds, a failure when it fails.
//   mode % 3 == 1: FastLZ levels 1 and 2 must round-trip `bytes` (the encoder's output is
//              what PHP will read, so an encoder bug is as bad as a decoder bug).
//   mode % 3 == 2: zlib without a known size (php-memcache), capped at `expected`: every
//              library gives zlib's bytes, or fails where zlib fails.
// `expected` is capped at 1 MiB so that a hostile prefix costs memory, not the fuzzer.
#include <string>

#include "codecs/compressor.h"
#include "codecs/fastlz.h"
#include "codecs/inflate.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;

namespace {

// `lib`'s answer against zlib's (`reference`, `want`): equal bytes on success, a failure on failure.
void same_as_zlib(const Status& reference, const std::string& want, const Status& got, const std::string& out) {
  if (reference.ok() != got.ok()) fuzz::violated("an inflate library disagrees with zlib on success");
  if (got.ok() && out != want) fuzz::violated("an inflate library inflated other bytes than zlib");
  if (!got.ok() && got.error().code == Errc::not_found) fuzz::violated("an inflate library answered not_found");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const uint8_t mode = in.byte() % 3;
  const CompressorId id = kCompressors[in.byte() % std::size(kCompressors)];
  const size_t expected = in.u32() % (size_t{1} << 20);
  const std::string bytes(in.rest);  // exact-size copy for ASan

  if (mode == 1) {
    for (int level : {1, 2}) {
      std::string packed, back;
      if (!fastlz_compress(level, bytes, packed)) fuzz::violated("fastlz refused to compress");
      if (!fastlz_decompress(packed, bytes.size(), back)) fuzz::violated("fastlz could not read its own block");
      if (back != bytes) fuzz::violated("fastlz round trip changed the bytes");
    }
    return 0;
  }
  if (mode == 2) {
    std::string want;
    const Status reference = inflate_unknown_size(bytes, want, expected + 1, InflateLibrary::zlib);
    for (const InflateRow& lib : kInflateLibraries) {
      std::string out;
      same_as_zlib(reference, want, inflate_unknown_size(bytes, out, expected + 1, lib.id), out);
    }
    return 0;
  }
  std::string out;
  Status s = decompress_exact(id, bytes, expected, out, InflateLibrary::zlib);
  if (id == CompressorId::zlib) {
    for (const InflateRow& lib : kInflateLibraries) {
      std::string other;
      same_as_zlib(s, out, decompress_exact(id, bytes, expected, other, lib.id), other);
    }
  }
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
