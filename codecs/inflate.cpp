#include "codecs/inflate.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <climits>
#include <memory>

#include "codecs/row_table.h"

namespace hitcost {
namespace {

// zlib's and ISA-L's avail_in/avail_out are 32-bit; our values are far below 4 GiB but check anyway.
bool fits_uint(size_t n) { return n <= UINT_MAX; }

// The first output buffer when the size is not known: twice the input, as php-memcache starts;
// doubling from there keeps the retries logarithmic.
size_t first_guess(size_t in, size_t cap) {
  size_t first = in * 2 < 4096 ? 4096 : in * 2;
  return first < cap ? first : cap;
}
size_t doubled(size_t n, size_t cap) { return n * 2 < cap ? n * 2 : cap; }

Error failed(const char* lib, const std::string& why) {
  return Error{Errc::decompress_failed, std::string(lib) + ": " + why};
}
Error too_large(const char* lib, size_t cap) {
  return Error{Errc::too_large, std::string(lib) + ": inflated value exceeds " + std::to_string(cap) + " bytes"};
}
Error wrong_size(const char* lib, size_t expected, size_t have) {
  return Error{Errc::bad_length, std::string(lib) + ": length prefix says " + std::to_string(expected) +
                                     " bytes, stream inflates to " + std::to_string(have)};
}
Error past_prefix(const char* lib, size_t expected) {
  return Error{Errc::bad_length,
               std::string(lib) + ": stream inflates past the length prefix " + std::to_string(expected)};
}

// ---- zlib: streaming. One inflate state per thread, reset per value: inflateInit/inflateEnd per
// call would malloc and free ~40 KB (window + state) on every hit; measured in the hit path that
// costs far more than the malloc itself (the freed block lands at the heap top and glibc trims
// and re-grows it, page faults included).
struct Inflater {
  z_stream zs{};
  bool ready = inflateInit(&zs) == Z_OK;
  ~Inflater() {
    if (ready) inflateEnd(&zs);
  }
};

// Inflates `in` into out[0..); `grow` says whether out may be enlarged (unknown size).
Status zlib_inflate(std::string_view in, std::string& out, size_t expected, bool grow, size_t cap) {
  if (!fits_uint(in.size())) return Error{Errc::too_large, "zlib: input too large"};
  thread_local Inflater inflater;
  if (!inflater.ready || inflateReset(&inflater.zs) != Z_OK) return failed("zlib", "inflateInit failed");
  z_stream& zs = inflater.zs;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  size_t have = 0;
  // Exact: one spare byte so a stream longer than `expected` is caught (rc != Z_STREAM_END).
  out.resize(grow ? first_guess(in.size(), cap) : expected + 1);
  int rc = Z_OK;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    zs.avail_out = static_cast<uInt>(out.size() - have);
    rc = inflate(&zs, Z_NO_FLUSH);
    have = out.size() - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input ended mid-stream
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    if (zs.avail_out == 0) {
      if (!grow) break;  // more output than the prefix promised
      if (out.size() >= cap) {
        out.clear();
        return too_large("zlib", cap);
      }
      out.resize(doubled(out.size(), cap));
    }
  }
  if (rc == Z_STREAM_END) {
    if (zs.avail_in != 0) return failed("zlib", "trailing bytes after the stream");
    if (!grow && have != expected) return wrong_size("zlib", expected, have);
    out.resize(have);
    return ok_status();
  }
  if (!grow && have > expected) return past_prefix("zlib", expected);
  if (rc == Z_DATA_ERROR) return failed("zlib", zs.msg ? zs.msg : "corrupt stream");
  if (rc == Z_MEM_ERROR) return failed("zlib", "out of memory");
  return failed("zlib", "truncated stream");
}

// ---- libdeflate: one call over whole buffers. It cannot resume, so an unknown size is found by
// inflating again into a buffer twice as large.
struct Libdeflate {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  ~Libdeflate() {
    if (d) libdeflate_free_decompressor(d);
  }
};

libdeflate_decompressor* libdeflate_state() {
  thread_local Libdeflate state;
  return state.d;
}

// ---- ISA-L igzip: streaming, so a full output buffer is enlarged and inflate resumes. Its state
// is large (the 64 KB history buffer is inside it): one per thread, on the heap.
inflate_state& isal_state() {
  thread_local auto state = std::make_unique<inflate_state>();
  return *state;
}

// Input bytes ISA-L has not used: what is still in avail_in plus the whole bytes it read ahead
// into its bit buffer. Without the second part one trailing byte after the stream would pass.
size_t isal_unused(const inflate_state& st) {
  return st.avail_in + static_cast<size_t>(st.read_in_length > 0 ? st.read_in_length / 8 : 0);
}

Status isal_run(std::string_view in, std::string& out, size_t expected, bool grow, size_t cap) {
  if (!fits_uint(in.size())) return Error{Errc::too_large, "isal: input too large"};
  inflate_state& st = isal_state();
  isal_inflate_init(&st);
  st.crc_flag = ISAL_ZLIB;  // the zlib header is parsed and the adler32 trailer checked
  st.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
  st.avail_in = static_cast<uint32_t>(in.size());
  out.resize(grow ? first_guess(in.size(), cap) : expected + 1);
  size_t have = 0;
  for (;;) {
    if (!fits_uint(out.size() - have)) return Error{Errc::too_large, "isal: output too large"};
    st.next_out = reinterpret_cast<uint8_t*>(out.data() + have);
    st.avail_out = static_cast<uint32_t>(out.size() - have);
    int rc = isal_inflate(&st);
    have = out.size() - st.avail_out;
    if (rc < 0) return failed("isal", "corrupt stream (igzip error " + std::to_string(rc) + ")");
    if (st.block_state == ISAL_BLOCK_FINISH) break;
    if (st.avail_out != 0) return failed("isal", "truncated stream");  // the input ran out first
    if (!grow) return past_prefix("isal", expected);
    if (out.size() >= cap) {
      out.clear();
      return too_large("isal", cap);
    }
    out.resize(doubled(out.size(), cap));
  }
  if (isal_unused(st) != 0) return failed("isal", "trailing bytes after the stream");
  if (!grow && have != expected) return wrong_size("isal", expected, have);
  out.resize(have);
  return ok_status();
}

}  // namespace

Status zlib_inflate_exact(std::string_view in, size_t expected, std::string& out) {
  return zlib_inflate(in, out, expected, false, 0);
}
Status zlib_inflate_grow(std::string_view in, std::string& out, size_t cap) {
  return zlib_inflate(in, out, 0, true, cap);
}

Status libdeflate_inflate_exact(std::string_view in, size_t expected, std::string& out) {
  libdeflate_decompressor* d = libdeflate_state();
  if (!d) return failed("libdeflate", "cannot allocate a decompressor");
  out.resize(expected + 1);  // one spare byte: a longer stream is caught, not cut
  size_t used = 0, have = 0;
  libdeflate_result rc = libdeflate_zlib_decompress_ex(d, in.data(), in.size(), out.data(), out.size(), &used, &have);
  if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) return past_prefix("libdeflate", expected);
  if (rc != LIBDEFLATE_SUCCESS) return failed("libdeflate", "corrupt or truncated stream");
  if (used != in.size()) return failed("libdeflate", "trailing bytes after the stream");
  if (have != expected) return wrong_size("libdeflate", expected, have);
  out.resize(expected);
  return ok_status();
}

Status libdeflate_inflate_grow(std::string_view in, std::string& out, size_t cap) {
  libdeflate_decompressor* d = libdeflate_state();
  if (!d) return failed("libdeflate", "cannot allocate a decompressor");
  out.resize(first_guess(in.size(), cap));
  for (;;) {
    size_t used = 0, have = 0;
    libdeflate_result rc = libdeflate_zlib_decompress_ex(d, in.data(), in.size(), out.data(), out.size(), &used, &have);
    if (rc == LIBDEFLATE_SUCCESS) {
      if (used != in.size()) return failed("libdeflate", "trailing bytes after the stream");
      out.resize(have);
      return ok_status();
    }
    if (rc != LIBDEFLATE_INSUFFICIENT_SPACE) return failed("libdeflate", "corrupt or truncated stream");
    if (out.size() >= cap) {
      out.clear();
      return too_large("libdeflate", cap);
    }
    out.resize(doubled(out.size(), cap));
  }
}

Status isal_inflate_exact(std::string_view in, size_t expected, std::string& out) {
  return isal_run(in, out, expected, false, 0);
}
Status isal_inflate_grow(std::string_view in, std::string& out, size_t cap) { return isal_run(in, out, 0, true, cap); }

const InflateRow& inflate_row(InflateLibrary id) noexcept { return row_by_id(kInflateLibraries, id); }
const InflateRow* find_inflate(std::string_view name) noexcept { return row_by_name(kInflateLibraries, name); }
const char* to_string(InflateLibrary id) noexcept { return inflate_row(id).name; }
std::string inflate_names() { return row_names(kInflateLibraries); }

}  // namespace hitcost
