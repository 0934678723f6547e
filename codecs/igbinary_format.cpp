#include "codecs/igbinary_format.h"

#include <bit>

namespace hitcost::igbinary {

Status check_header(std::string_view bytes) {
  if (bytes.size() < 4 || bytes.substr(0, 3) != std::string_view(kHeader, 3))
    return Error{Errc::parse_error, "igbinary: no 00 00 00 0v header at byte 0"};
  if (bytes[3] != kHeader[3])
    return Error{Errc::parse_error, "igbinary: format version " + std::to_string(static_cast<uint8_t>(bytes[3])) +
                                        " not supported (only 2) at byte 3"};
  return ok_status();
}

// ---- Writer ----

void Writer::be(uint64_t v, size_t width) {
  for (size_t k = width; k-- > 0;) byte(v >> (8 * k));
}

// The smallest of type8 (1 byte), type8+1 (2), type8+2 (4) that holds v (< 2^32).
void Writer::sized(uint8_t type8, uint64_t v) {
  if (v <= 0xff) {
    byte(type8);
    be(v, 1);
  } else if (v <= 0xffff) {
    byte(type8 + 1);
    be(v, 2);
  } else {
    byte(type8 + 2);
    be(v, 4);
  }
}

void Writer::integer(int64_t v) {
  const bool negative = v < 0;
  // The magnitude of INT64_MIN is 2^63, which fits in uint64: no special case needed.
  const uint64_t m = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (m > 0xffffffffu) {
    byte(negative ? kNeg64 : kPos64);
    be(m, 8);
    return;
  }
  // 06/07, 08/09, 0a/0b: the sign alternates within each width.
  const int width = m <= 0xff ? 0 : (m <= 0xffff ? 1 : 2);
  byte(static_cast<uint8_t>(kPos8 + 2 * width + (negative ? 1 : 0)));
  be(m, size_t(1) << width);
}

void Writer::dbl(double d) {
  byte(kDouble);
  be(std::bit_cast<uint64_t>(d), 8);
}

void Writer::string(std::string_view s) {
  if (s.empty()) {
    byte(kEmptyString);
    return;
  }
  const auto [it, is_new] = ids_.try_emplace(s, static_cast<uint32_t>(ids_.size()));
  if (!is_new) {
    sized(kStringId8, it->second);
    return;
  }
  sized(kString8, s.size());
  out_.append(s);
}

// PHP's empty arrays are (nearly always: literals, unserialize(), igbinary_unserialize(),
// json_decode()) one shared zend_array, which igbinary writes once and then refers to.
bool Writer::array(size_t n) {
  if (n == 0 && has_empty_) {
    sized(kArrayRef8, empty_id_);
    return false;
  }
  if (n == 0) {
    has_empty_ = true;
    empty_id_ = next_array_id_;
  }
  ++next_array_id_;
  sized(kArray8, n);
  return true;
}

// ---- Cursor ----

bool Cursor::fail_at(size_t at, std::string_view what, Errc code) {
  if (!error_.message.empty()) return false;  // the first error is the one that counts
  error_ = Error{code, "igbinary: " + std::string(what) + " at byte " + std::to_string(at)};
  return false;
}

bool Cursor::fail_with(const Error& e) {
  if (error_.message.empty()) error_ = e;
  return false;
}

bool Cursor::fail_short(size_t width) {
  return fail("a " + std::to_string(width * 8) + "-bit number runs past the end");
}

}  // namespace hitcost::igbinary
