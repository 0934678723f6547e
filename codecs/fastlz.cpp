#include "codecs/fastlz.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace hitcost {
namespace {

constexpr size_t kMinMatch = 3;
constexpr size_t kMaxLiteralRun = 32;      // ctrl & 31, plus one
constexpr size_t kLevel1MaxMatch = 264;    // 7 + 2 + one length byte of 255
constexpr size_t kNearDistance = 8192;     // 13 bits of (distance - 1)
constexpr size_t kLevel2NearLimit = 8191;  // level 2 reserves (31, 255) for the far form
constexpr size_t kLevel2MaxDistance = 8191 + 65535 + 1;
constexpr size_t kFarMinMatch = 5;  // a far match costs two more bytes
constexpr int kHashBits = 14;

uint32_t read3(const unsigned char* p) { return p[0] | (p[1] << 8) | (p[2] << 16); }
uint32_t hash3(uint32_t v) { return (v * 2654435761u) >> (32 - kHashBits); }

class BlockWriter {
 public:
  BlockWriter(int level, std::string& out) : level_(level), out_(out) {}

  void literals(const char* p, size_t n) {
    while (n > 0) {
      size_t run = n < kMaxLiteralRun ? n : kMaxLiteralRun;
      out_.push_back(static_cast<char>(run - 1));
      out_.append(p, run);
      p += run;
      n -= run;
    }
  }

  // A match of `len` >= 3 bytes, `distance` >= 1 back; long matches are split.
  void match(size_t len, size_t distance) {
    while (len > 0) {  // level 2 codes any length; level 1 is split
      size_t chunk = len;
      if (level_ == 1 && chunk > kLevel1MaxMatch) {
        chunk = kLevel1MaxMatch;
        if (len - chunk < kMinMatch) chunk = len - kMinMatch;  // leave a codable tail
      }
      level_ == 1 ? match1(chunk, distance) : match2(chunk, distance);
      len -= chunk;
    }
  }

 private:
  void byte(size_t v) { out_.push_back(static_cast<char>(static_cast<unsigned char>(v))); }

  void match1(size_t len, size_t distance) {
    size_t d = distance - 1, code = len - 2;
    if (code < 7) {
      byte((code << 5) | (d >> 8));
    } else {
      byte((7u << 5) | (d >> 8));
      byte(len - 9);
    }
    byte(d & 255);
  }

  void match2(size_t len, size_t distance) {
    size_t d = distance - 1, code = len - 2;
    bool far = d >= kLevel2NearLimit;
    size_t high = far ? 31 : d >> 8, low = far ? 255 : d & 255;
    if (code < 7) {
      byte((code << 5) | high);
    } else {
      byte((7u << 5) | high);
      size_t rest = len - 9;
      for (; rest >= 255; rest -= 255) byte(255);
      byte(rest);
    }
    byte(low);
    if (far) {
      size_t beyond = d - kLevel2NearLimit;
      byte(beyond >> 8);
      byte(beyond & 255);
    }
  }

  int level_;
  std::string& out_;
};

Error truncated(const char* what) { return Error{Errc::decompress_failed, std::string("fastlz: ") + what}; }

}  // namespace

Status fastlz_compress(int level, std::string_view in, std::string& out) {
  if (level == 0) level = in.size() < kFastlzLevel2FromBytes ? 1 : 2;
  if (level != 1 && level != 2) return Error{Errc::invalid_argument, "fastlz: level must be 1 or 2"};
  if (in.empty()) return ok_status();
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  const size_t max_distance = level == 1 ? kNearDistance : kLevel2MaxDistance;
  const size_t first_byte = out.size();

  // Greedy LZ77 over one hash slot per 3-byte prefix; positions stored + 1 (0 = empty).
  thread_local std::vector<uint32_t> table;
  table.assign(size_t{1} << kHashBits, 0);
  BlockWriter w(level, out);
  size_t anchor = 0;  // first byte not yet written
  size_t ip = 1;      // position 0 has nothing behind it: the block starts with a literal
  while (ip + kMinMatch <= n) {
    uint32_t h = hash3(read3(src + ip));
    size_t candidate = table[h];
    table[h] = static_cast<uint32_t>(ip + 1);
    if (candidate == 0) {
      ++ip;
      continue;
    }
    size_t ref = candidate - 1, distance = ip - ref;
    if (distance > max_distance || read3(src + ref) != read3(src + ip)) {
      ++ip;
      continue;
    }
    size_t len = kMinMatch;
    while (ip + len < n && src[ref + len] == src[ip + len]) ++len;
    if (level == 2 && distance - 1 >= kLevel2NearLimit && len < kFarMinMatch) {
      ++ip;
      continue;
    }
    w.literals(in.data() + anchor, ip - anchor);
    w.match(len, distance);
    ip += len;
    anchor = ip;
    // Index the match's last positions so the next search sees recent data.
    for (size_t k = ip >= 2 ? ip - 2 : 0; k < ip && k + kMinMatch <= n; ++k) {
      table[hash3(read3(src + k))] = static_cast<uint32_t>(k + 1);
    }
  }
  w.literals(in.data() + anchor, n - anchor);
  if (level == 2) out[first_byte] = static_cast<char>(out[first_byte] | (1 << 5));
  return ok_status();
}

Status fastlz_decompress(std::string_view in, size_t expected, std::string& out) {
  out.resize(expected);
  if (in.empty()) {
    if (expected == 0) return ok_status();
    return Error{Errc::bad_length, "fastlz: empty block, length prefix says " + std::to_string(expected)};
  }
  const auto* ip = reinterpret_cast<const unsigned char*>(in.data());
  const unsigned char* const ip_end = ip + in.size();
  auto* const op_begin = reinterpret_cast<unsigned char*>(out.data());
  unsigned char* op = op_begin;
  unsigned char* const op_end = op_begin + expected;

  const int level = (*ip >> 5) + 1;
  if (level != 1 && level != 2) {
    return Error{Errc::decompress_failed, "fastlz: unknown level " + std::to_string(level)};
  }
  size_t ctrl = *ip++ & 31;
  for (;;) {
    if (ctrl < 32) {
      size_t run = ctrl + 1;
      if (run > static_cast<size_t>(ip_end - ip)) return truncated("literal run past the end of the input");
      if (run > static_cast<size_t>(op_end - op)) {
        return Error{Errc::bad_length, "fastlz: block writes past the length prefix " + std::to_string(expected)};
      }
      if (ip_end - ip >= 32 && op_end - op >= 32) {
        std::memcpy(op, ip, 32);  // a fixed size compiles to two moves; the extra bytes are rewritten later
      } else {
        std::memcpy(op, ip, run);
      }
      ip += run;
      op += run;
    } else {
      size_t len = (ctrl >> 5) + 2;
      size_t distance = (ctrl & 31) << 8;
      if (len == 9) {
        if (level == 1) {
          if (ip == ip_end) return truncated("match length past the end of the input");
          len += *ip++;
        } else {
          unsigned char more = 255;
          while (more == 255) {
            if (ip == ip_end) return truncated("match length past the end of the input");
            more = *ip++;
            len += more;
            if (len > expected) {
              return Error{Errc::bad_length, "fastlz: match longer than the length prefix " + std::to_string(expected)};
            }
          }
        }
      }
      if (ip == ip_end) return truncated("match distance past the end of the input");
      unsigned char low = *ip++;
      distance += low;
      if (level == 2 && low == 255 && (ctrl & 31) == 31) {
        if (ip_end - ip < 2) return truncated("far distance past the end of the input");
        distance = kLevel2NearLimit + ((size_t{ip[0]} << 8) | ip[1]);
        ip += 2;
      }
      distance += 1;
      if (distance > static_cast<size_t>(op - op_begin)) return truncated("match reaches before the start");
      if (len > static_cast<size_t>(op_end - op)) {
        return Error{Errc::bad_length, "fastlz: block writes past the length prefix " + std::to_string(expected)};
      }
      const unsigned char* ref = op - distance;
      if (distance >= 8 && static_cast<size_t>(op_end - op) >= len + 8) {
        // 8 bytes at a time: each chunk reads only bytes already written (distance >= 8);
        // up to 7 bytes past the match are scratch, rewritten by what follows.
        for (size_t i = 0; i < len; i += 8) std::memcpy(op + i, ref + i, 8);
        op += len;
      } else {
        for (size_t i = 0; i < len; ++i) *op++ = *ref++;  // near the end, or a short repeat
      }
    }
    if (ip == ip_end) break;
    ctrl = *ip++;
  }
  if (op != op_end) {
    return Error{Errc::bad_length, "fastlz: block decodes to " + std::to_string(op - op_begin) +
                                       " bytes, length prefix says " + std::to_string(expected)};
  }
  return ok_status();
}

}  // namespace hitcost
