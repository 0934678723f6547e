#include "codecs/compressor.h"

#include <lz4.h>
#include <lz4hc.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>
#include <cstdint>

#include "codecs/fastlz.h"
#include "codecs/inflate.h"
#include "codecs/zstd_dictionary.h"

namespace hitcost {
namespace {

Error zerr(Errc c, const char* what) { return Error{c, std::string("zlib: ") + what}; }

// zlib's avail_in/avail_out are 32-bit; our values are far below 4 GiB but check anyway.
bool fits_uint(size_t n) { return n <= UINT_MAX; }

}  // namespace

Status zlib_compress(int level, std::string_view in, std::string& out) {
  if (!fits_uint(in.size())) return Error{Errc::too_large, "zlib: input too large"};
  z_stream zs{};
  if (deflateInit(&zs, level) != Z_OK) return zerr(Errc::invalid_argument, "deflateInit failed");
  size_t at = out.size();
  size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out.resize(at + bound);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data() + at);
  zs.avail_out = static_cast<uInt>(bound);
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = bound - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return zerr(Errc::invalid_argument, "deflate did not finish");
  out.resize(at + produced);
  return ok_status();
}

Status zlib_decompress(std::string_view in, size_t expected, std::string& out) {
  return zlib_inflate_exact(in, expected, out);
}

Status zstd_compress(int level, std::string_view in, std::string& out) {
  return zstd_compress_with_dictionary(0, level, in, out);
}

Status zstd_decompress(std::string_view in, size_t expected, std::string& out) {
  unsigned long long content = ZSTD_getFrameContentSize(in.data(), in.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) return Error{Errc::decompress_failed, "zstd: not a zstd frame"};
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != expected) {
    return Error{Errc::bad_length, "zstd: length prefix says " + std::to_string(expected) + " bytes, frame says " +
                                       std::to_string(content)};
  }
  // One decompression context per thread: ZSTD_decompress would allocate ~100 KB per call.
  struct Dctx {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ~Dctx() { ZSTD_freeDCtx(d); }
  };
  thread_local Dctx dctx;
  if (!dctx.d) return Error{Errc::decompress_failed, "zstd: cannot create a context"};
  // A frame written with a dictionary names it (codecs/zstd_dictionary.h); without it the
  // bytes cannot be read, and no other dictionary may be tried in its place.
  const unsigned dict_id = ZSTD_getDictID_fromFrame(in.data(), in.size());
  const auto* ddict = static_cast<const ZSTD_DDict*>(dict_id ? zstd_ddict(dict_id) : nullptr);
  if (dict_id != 0 && !ddict)
    return Error{Errc::decompress_failed, "zstd: the frame needs dictionary " + std::to_string(dict_id) +
                                              ", which is not loaded (hitcost-server --zstd-dict FILE)"};
  out.resize(expected);
  size_t n = ddict ? ZSTD_decompress_usingDDict(dctx.d, out.data(), out.size(), in.data(), in.size(), ddict)
                   : ZSTD_decompressDCtx(dctx.d, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) {
    return Error{Errc::decompress_failed, std::string("zstd: ") + ZSTD_getErrorName(n)};
  }
  if (n != expected) return Error{Errc::bad_length, "zstd: frame inflates to " + std::to_string(n)};
  return ok_status();
}

Status lz4_compress(int level, std::string_view in, std::string& out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return Error{Errc::too_large, "lz4: input too large"};
  int len = static_cast<int>(in.size());
  int bound = LZ4_compressBound(len);
  size_t at = out.size();
  out.resize(at + static_cast<size_t>(bound));
  // level 0/1: the fast compressor; 2..12: LZ4HC at that level.
  int n = level <= 1 ? LZ4_compress_default(in.data(), out.data() + at, len, bound)
                     : LZ4_compress_HC(in.data(), out.data() + at, len, bound, level);
  if (n <= 0 && len > 0) return Error{Errc::invalid_argument, "lz4: compression failed"};
  out.resize(at + static_cast<size_t>(n));
  return ok_status();
}

Status lz4_decompress(std::string_view in, size_t expected, std::string& out) {
  if (in.size() > static_cast<size_t>(INT_MAX)) return Error{Errc::too_large, "lz4: input too large"};
  out.resize(expected);
  int n = LZ4_decompress_safe(in.data(), out.data(), static_cast<int>(in.size()), static_cast<int>(expected));
  // A block that would write past `expected` fails the same way as a corrupt one.
  if (n < 0) return Error{Errc::decompress_failed, "lz4: corrupt, truncated or longer than the length prefix"};
  if (static_cast<size_t>(n) != expected) {
    return Error{Errc::bad_length, "lz4: length prefix says " + std::to_string(expected) +
                                       " bytes, block inflates to " + std::to_string(n)};
  }
  return ok_status();
}

LevelRange level_range(CompressorId id) noexcept {
  const CompressorCodec* codec = find_compressor(id);
  return codec ? codec->levels : LevelRange{0, 0, 0};
}

Status compress(CompressorId id, int level, std::string_view in, std::string& out) {
  const CompressorCodec* codec = find_compressor(id);
  if (!codec) return Error{Errc::invalid_argument, "compress: no compressor"};
  return codec->compress(level == 0 ? codec->levels.default_level : level, in, out);
}

Status decompress_exact(CompressorId id, std::string_view in, size_t expected, std::string& out,
                        InflateLibrary library) {
  if (expected > kMaxInflatedBytes) {
    return Error{Errc::bad_length, "length prefix " + std::to_string(expected) + " exceeds the " +
                                       std::to_string(kMaxInflatedBytes) + "-byte limit"};
  }
  // zlib's bytes are read by whichever library the reader chose (codecs/inflate.h); the row's
  // own function is zlib's, the reference the other libraries are tested against.
  if (id == CompressorId::zlib) return inflate_row(library).exact(in, expected, out);
  const CompressorCodec* codec = find_compressor(id);
  if (!codec) return Error{Errc::invalid_argument, "decompress: no compressor"};
  return codec->decompress(in, expected, out);
}

Status inflate_unknown_size(std::string_view in, std::string& out, size_t cap, InflateLibrary library) {
  return inflate_row(library).grow(in, out, cap);
}

}  // namespace hitcost
