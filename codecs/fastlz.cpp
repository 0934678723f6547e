#include "codecs/fastlz.h"

#include <cstdint>
#include <cstring>
#include <optional>
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

// Where a block goes wrong; fault_error gives each its kind and message.
enum class Fault : uint8_t {
  literal_past_input,   // a literal run past the end of the input
  length_past_input,    // a match's length bytes past the end of the input
  distance_past_input,  // a match's distance byte past the end of the input
  far_past_input,       // a far distance past the end of the input
  before_start,         // a match reaching before the start of the output
  match_too_long,       // level 2: length bytes adding up to more than the length prefix
  past_prefix,          // a copy past the length prefix
};

Error fault_error(Fault f, size_t expected) {
  switch (f) {
    case Fault::literal_past_input: return truncated("literal run past the end of the input");
    case Fault::length_past_input: return truncated("match length past the end of the input");
    case Fault::distance_past_input: return truncated("match distance past the end of the input");
    case Fault::far_past_input: return truncated("far distance past the end of the input");
    case Fault::before_start: return truncated("match reaches before the start");
    case Fault::match_too_long:
      return Error{Errc::bad_length, "fastlz: match longer than the length prefix " + std::to_string(expected)};
    case Fault::past_prefix: break;
  }
  return Error{Errc::bad_length, "fastlz: block writes past the length prefix " + std::to_string(expected)};
}

// fastlz_decompress's cursors: the block left to read and the output left to write, each
// checked before every read and copy. The steps answer a Fault, not an Error: nothing is
// built on the hot path. The faults are [[unlikely]]: without the hint the compiler lays the
// checks out as the fall-through path and decoding is 25 % slower.
class BlockReader {
 public:
  BlockReader(std::string_view in, std::string& out, size_t expected, int level)
      : ip_(reinterpret_cast<const unsigned char*>(in.data())),
        ip_end_(ip_ + in.size()),
        op_begin_(reinterpret_cast<unsigned char*>(out.data())),
        op_(op_begin_),
        op_end_(op_begin_ + expected),
        expected_(expected),
        level_(level) {}

  bool input_left() const { return ip_ != ip_end_; }
  size_t next_byte() { return *ip_++; }
  size_t written() const { return static_cast<size_t>(op_ - op_begin_); }

  // A literal run: the next ctrl + 1 bytes as they are (ctrl < 32).
  std::optional<Fault> literals(size_t ctrl) {
    const size_t run = ctrl + 1;
    if (run > static_cast<size_t>(ip_end_ - ip_)) [[unlikely]]
      return Fault::literal_past_input;
    if (run > static_cast<size_t>(op_end_ - op_)) [[unlikely]]
      return Fault::past_prefix;
    if (ip_end_ - ip_ >= 32 && op_end_ - op_ >= 32) {
      std::memcpy(op_, ip_, 32);  // a fixed size compiles to two moves; the extra bytes are rewritten later
    } else {
      std::memcpy(op_, ip_, run);
    }
    ip_ += run;
    op_ += run;
    return std::nullopt;
  }

  // A match (ctrl >= 32): its length and distance read, then copied from the output.
  std::optional<Fault> match(size_t ctrl) {
    size_t len = (ctrl >> 5) + 2, distance = 0;
    if (len == 9) {
      if (auto f = long_length(len)) [[unlikely]]
        return f;
    }
    if (auto f = match_distance(ctrl, distance)) [[unlikely]]
      return f;
    if (distance > written()) [[unlikely]]
      return Fault::before_start;
    if (len > static_cast<size_t>(op_end_ - op_)) [[unlikely]]
      return Fault::past_prefix;
    copy_match(len, distance);
    return std::nullopt;
  }

 private:
  // Length code 7 reads more: one byte at level 1, bytes while they are 255 at level 2.
  std::optional<Fault> long_length(size_t& len) {
    if (level_ == 1) {
      if (ip_ == ip_end_) [[unlikely]]
        return Fault::length_past_input;
      len += *ip_++;
      return std::nullopt;
    }
    unsigned char more = 255;
    while (more == 255) {
      if (ip_ == ip_end_) [[unlikely]]
        return Fault::length_past_input;
      more = *ip_++;
      len += more;
      if (len > expected_) [[unlikely]]
        return Fault::match_too_long;
    }
    return std::nullopt;
  }

  // The low byte after the length, and at level 2 the far form's 16 bits; distance >= 1.
  std::optional<Fault> match_distance(size_t ctrl, size_t& distance) {
    distance = (ctrl & 31) << 8;
    if (ip_ == ip_end_) [[unlikely]]
      return Fault::distance_past_input;
    const unsigned char low = *ip_++;
    distance += low;
    if (level_ == 2 && low == 255 && (ctrl & 31) == 31) {
      if (ip_end_ - ip_ < 2) [[unlikely]]
        return Fault::far_past_input;
      distance = kLevel2NearLimit + ((size_t{ip_[0]} << 8) | ip_[1]);
      ip_ += 2;
    }
    distance += 1;
    return std::nullopt;
  }

  // The caller checked that the match fits and starts inside what is written.
  void copy_match(size_t len, size_t distance) {
    const unsigned char* ref = op_ - distance;
    if (distance >= 8 && static_cast<size_t>(op_end_ - op_) >= len + 8) {
      // 8 bytes at a time: each chunk reads only bytes already written (distance >= 8);
      // up to 7 bytes past the match are scratch, rewritten by what follows.
      for (size_t i = 0; i < len; i += 8) std::memcpy(op_ + i, ref + i, 8);
      op_ += len;
    } else {
      for (size_t i = 0; i < len; ++i) *op_++ = *ref++;  // near the end, or a short repeat
    }
  }

  const unsigned char* ip_;
  const unsigned char* const ip_end_;
  unsigned char* const op_begin_;
  unsigned char* op_;
  unsigned char* const op_end_;
  const size_t expected_;
  const int level_;
};

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
  const int level = (static_cast<unsigned char>(in.front()) >> 5) + 1;
  if (level != 1 && level != 2) {
    return Error{Errc::decompress_failed, "fastlz: unknown level " + std::to_string(level)};
  }
  BlockReader r(in, out, expected, level);
  size_t ctrl = r.next_byte() & 31;
  for (;;) {
    if (auto f = ctrl < 32 ? r.literals(ctrl) : r.match(ctrl)) [[unlikely]]
      return fault_error(*f, expected);
    if (!r.input_left()) break;
    ctrl = r.next_byte();
  }
  if (r.written() != expected) {
    return Error{Errc::bad_length, "fastlz: block decodes to " + std::to_string(r.written()) +
                                       " bytes, length prefix says " + std::to_string(expected)};
  }
  return ok_status();
}

}  // namespace hitcost
