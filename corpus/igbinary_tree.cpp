// igbinary v2 (php-igbinary 3.x, compact_strings on: its default) <-> the generic value tree.
// Layout: header 00 00 00 02, then one value; every number is big-endian.
//   00 null   04 false   05 true   0c double (8 bytes, the IEEE bits)
//   06/08/0a <u8/u16/u32> and 20 <u64>: a non-negative int
//   07/09/0b <u8/u16/u32> and 21 <u64>: a negative int, stored as its magnitude
//       (INT64_MIN is 21 80 00 00 00 00 00 00 00)
//   0d: ""   11/12/13 <len u8/u16/u32> <bytes>: a string seen for the first time, which gets
//       the next string id (keys and values share one table; "" never gets one)
//   0e/0f/10 <id u8/u16/u32>: that string again
//   14/15/16 <count u8/u16/u32> then count (key, value) pairs: an array; keys are ints or
//       strings in the forms above. Every array written in full gets the next array id,
//       in the order they start (the outermost is 0).
//   01/02/03 <id u8/u16/u32>: the same array (the same zend_array) as array `id` again. PHP
//       reads it back as a copy, so the tree does too.
// Objects (17..1f, 22..24), enums (27) and PHP references (25) are refused.
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codecs/igbinary_format.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

using namespace igbinary;  // the type bytes and the header: codecs/igbinary_format.h

// Array references copy what they point at; what copies may add to the tree is bounded, so
// that a few bytes of references to references cannot expand into gigabytes.
constexpr uint64_t kMaxCopiedBytes = uint64_t(64) << 20;

std::string hex_byte(uint8_t b) {
  static const char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[b >> 4] + kHex[b & 15];
}

// One array id: where the array starts and the table sizes there, so that a reference to it
// can be resolved by reading those bytes again (no second copy of every array is kept).
struct ArrayEntry {
  size_t offset = 0;          // of its type byte
  size_t strings_before = 0;  // string ids assigned before it
  size_t arrays_before = 0;   // = its own id
  bool complete = false;      // fully read: a reference may copy it (else: a cycle)
  uint64_t bytes = 0;         // what one copy of it costs (see cost_of)
};

struct Tables {
  std::vector<std::string_view> strings;  // by string id; views into the input
  std::vector<ArrayEntry> arrays;         // by array id
  uint64_t copied_bytes = 0;
};

// Rough memory of a decoded node: what the copy budget counts.
constexpr uint64_t kNodeBytes = sizeof(Value);

class IgbReader {
 public:
  // replay: re-reading an earlier array for a reference to it; ids are then recomputed from
  // `strings_before` / `arrays_before` instead of being added to the tables.
  IgbReader(std::string_view in, size_t pos, Tables& tables, bool replay, size_t strings_before, size_t arrays_before)
      : in_(in), pos_(pos), t_(tables), replay_(replay), next_string_(strings_before), next_array_(arrays_before) {}

  bool value(Value& out, size_t depth, uint64_t& bytes) {
    if (pos_ >= in_.size()) return fail("unexpected end of input");
    const size_t at = pos_;
    const uint8_t type = static_cast<uint8_t>(in_[pos_++]);
    switch (type) {
      case kNull:
        out = make_null();
        bytes = kNodeBytes;
        return true;
      case kFalse:
      case kTrue:
        out = make_bool(type == kTrue);
        bytes = kNodeBytes;
        return true;
      case kDouble: {
        uint64_t bits = 0;
        if (!be(8, bits)) return false;
        out = make_real(std::bit_cast<double>(bits));
        bytes = kNodeBytes;
        return true;
      }
      case kPos8:
      case kNeg8:
      case kPos16:
      case kNeg16:
      case kPos32:
      case kNeg32:
      case kPos64:
      case kNeg64: {
        int64_t i = 0;
        if (!long_body(type, at, i)) return false;
        out = make_int(i);
        bytes = kNodeBytes;
        return true;
      }
      case kEmptyString:
      case kStringId8:
      case kStringId8 + 1:
      case kStringId8 + 2:
      case kString8:
      case kString8 + 1:
      case kString8 + 2: {
        std::string_view s;
        if (!string_body(type, at, s)) return false;
        out = make_string(std::string(s));
        bytes = kNodeBytes + s.size();
        return true;
      }
      case kArray8:
      case kArray8 + 1:
      case kArray8 + 2: return array_body(type, at, out, depth, bytes);
      case kArrayRef8:
      case kArrayRef8 + 1:
      case kArrayRef8 + 2: return array_ref(type, at, out, depth, bytes);
      case kReference: return fail_at(at, "PHP reference (type 0x25) not supported");
      case kEnum: return fail_at(at, "PHP enum (type 0x27) not supported");
      default:
        if ((type >= 0x17 && type <= 0x1f) || (type >= 0x22 && type <= 0x24))
          return fail_at(at, "PHP object (type " + hex_byte(type) + ") not supported");
        return fail_at(at, "unknown type byte " + hex_byte(type));
    }
  }

  size_t pos() const { return pos_; }
  const Error& error() const { return error_; }

 private:
  bool fail(std::string what) { return fail_at(pos_, std::move(what)); }
  bool fail_at(size_t at, std::string what, Errc code = Errc::parse_error) {
    error_ = Error{code, "igbinary: " + what + " at byte " + std::to_string(at)};
    return false;
  }
  size_t left() const { return in_.size() - pos_; }

  bool be(size_t width, uint64_t& v) {
    if (left() < width) return fail("a " + std::to_string(width * 8) + "-bit number runs past the end");
    v = 0;
    for (size_t k = 0; k < width; ++k) v = (v << 8) | static_cast<uint8_t>(in_[pos_ + k]);
    pos_ += width;
    return true;
  }

  // The width of a 8/16/32-bit family member: type8 -> 1, type8+1 -> 2, type8+2 -> 4.
  static size_t width_of(uint8_t type, uint8_t type8) { return size_t(1) << (type - type8); }

  bool long_body(uint8_t type, size_t at, int64_t& out) {
    const bool negative = type == kNeg8 || type == kNeg16 || type == kNeg32 || type == kNeg64;
    const size_t width = type == kPos64 || type == kNeg64 ? 8 : size_t(1) << ((type - kPos8) / 2);
    uint64_t magnitude = 0;
    if (!be(width, magnitude)) return false;
    if (!negative) {
      if (magnitude > uint64_t(INT64_MAX)) return fail_at(at, "integer above INT64_MAX");
      out = static_cast<int64_t>(magnitude);
    } else {
      if (magnitude > uint64_t(INT64_MAX) + 1) return fail_at(at, "integer below INT64_MIN");
      out = magnitude == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(magnitude);
    }
    return true;
  }

  bool string_body(uint8_t type, size_t at, std::string_view& out) {
    if (type == kEmptyString) {
      out = {};
      return true;
    }
    uint64_t n = 0;
    if (type >= kString8) {
      if (!be(width_of(type, kString8), n)) return false;
      if (n > left())
        return fail_at(at, "string length " + std::to_string(n) + " runs past the end (" + std::to_string(left()) +
                               " bytes left)");
      out = in_.substr(pos_, n);
      pos_ += n;
      if (replay_) {
        ++next_string_;  // its id was assigned when the array was first read
      } else {
        t_.strings.push_back(out);
        next_string_ = t_.strings.size();
      }
      return true;
    }
    if (!be(width_of(type, kStringId8), n)) return false;
    if (n >= next_string_ || n >= t_.strings.size())
      return fail_at(at, "string id " + std::to_string(n) + " not yet defined");
    out = t_.strings[n];
    return true;
  }

  bool array_body(uint8_t type, size_t at, Value& out, size_t depth, uint64_t& bytes) {
    if (depth + 1 > kMaxDepth) return fail_at(at, "arrays nested deeper than " + std::to_string(kMaxDepth));
    uint64_t count = 0;
    if (!be(width_of(type, kArray8), count)) return false;
    // The smallest pair is two bytes (0d 00: "" => null).
    if (count > left() / 2)
      return fail_at(at, "array count " + std::to_string(count) + " exceeds what the " + std::to_string(left()) +
                             " bytes left can hold");
    const size_t id = next_array_++;
    if (!replay_) t_.arrays.push_back(ArrayEntry{at, next_string_, id, false, 0});
    bytes = kNodeBytes;
    Fields fields;
    fields.reserve(count);
    for (uint64_t k = 0; k < count; ++k) {
      const size_t key_at = pos_;
      if (pos_ >= in_.size()) return fail("unexpected end of input in an array");
      const uint8_t key_type = static_cast<uint8_t>(in_[pos_++]);
      MapKey key;
      switch (key_type) {
        case kPos8:
        case kNeg8:
        case kPos16:
        case kNeg16:
        case kPos32:
        case kNeg32:
        case kPos64:
        case kNeg64: {
          int64_t i = 0;
          if (!long_body(key_type, key_at, i)) return false;
          key = make_int_key(i);
          break;
        }
        case kEmptyString:
        case kStringId8:
        case kStringId8 + 1:
        case kStringId8 + 2:
        case kString8:
        case kString8 + 1:
        case kString8 + 2: {
          std::string_view s;
          if (!string_body(key_type, key_at, s)) return false;
          key = make_key(std::string(s));  // "7" is the int key 7, as in PHP
          bytes += s.size();
          break;
        }
        default: return fail_at(key_at, "array key of type " + hex_byte(key_type));
      }
      Value v;
      uint64_t child_bytes = 0;
      if (!value(v, depth + 1, child_bytes)) return false;
      bytes += child_bytes;
      fields.emplace_back(std::move(key), std::move(v));
    }
    if (const size_t dup = detail::find_duplicate_key(fields); dup != fields.size()) {
      const MapKey& key = fields[dup].first;
      return fail_at(at,
                     "duplicate key " + (key.is_int ? std::to_string(key.i) : "\"" + key.s + "\"") + " in the array");
    }
    if (!replay_) {
      t_.arrays[id].complete = true;
      t_.arrays[id].bytes = bytes;
    }
    out = make_map(std::move(fields));
    return true;
  }

  bool array_ref(uint8_t type, size_t at, Value& out, size_t depth, uint64_t& bytes) {
    uint64_t id = 0;
    if (!be(width_of(type, kArrayRef8), id)) return false;
    if (id >= next_array_ || id >= t_.arrays.size())
      return fail_at(at, "array reference to id " + std::to_string(id) + " not yet defined");
    const ArrayEntry entry = t_.arrays[id];
    if (!entry.complete)
      return fail_at(at, "array reference to array " + std::to_string(id) + " while it is still being read (a cycle)");
    if (entry.bytes > kMaxCopiedBytes - t_.copied_bytes)
      return fail_at(at, "array references expand to more than " + std::to_string(kMaxCopiedBytes >> 20) + " MiB",
                     Errc::too_large);
    t_.copied_bytes += entry.bytes;
    IgbReader again(in_, entry.offset, t_, true, entry.strings_before, entry.arrays_before);
    if (!again.value(out, depth, bytes)) {
      error_ = again.error();
      return false;
    }
    return true;
  }

  std::string_view in_;
  size_t pos_;
  Tables& t_;
  bool replay_;
  size_t next_string_;  // the id the next new string gets
  size_t next_array_;   // the id the next array gets
  Error error_{Errc::parse_error, ""};
};

// ---- encoder ----

class IgbWriter {
 public:
  explicit IgbWriter(std::string& out) : out_(out) {}

  Status value(const Value& v, size_t depth) {
    switch (v.kind) {
      case Value::Kind::null: byte(kNull); break;
      case Value::Kind::boolean: byte(v.b ? kTrue : kFalse); break;
      case Value::Kind::integer: long_value(v.i); break;
      case Value::Kind::real:
        byte(kDouble);
        be(std::bit_cast<uint64_t>(v.d), 8);
        break;
      case Value::Kind::string: return string(v.s);
      case Value::Kind::list:
      case Value::Kind::map: return array(v, depth);
    }
    return ok_status();
  }

 private:
  void byte(uint8_t b) { out_ += static_cast<char>(b); }
  void be(uint64_t v, size_t width) {
    for (size_t k = width; k-- > 0;) byte(static_cast<uint8_t>(v >> (8 * k)));
  }
  // The smallest of type8 (1 byte), type8+1 (2), type8+2 (4) that holds v (< 2^32).
  void sized(uint8_t type8, uint64_t v) {
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

  void long_value(int64_t i) {
    const bool negative = i < 0;
    // The magnitude of INT64_MIN is 2^63, which fits in uint64: no special case needed.
    const uint64_t m = negative ? uint64_t(0) - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    if (m <= 0xff) {
      byte(negative ? kNeg8 : kPos8);
      be(m, 1);
    } else if (m <= 0xffff) {
      byte(negative ? kNeg16 : kPos16);
      be(m, 2);
    } else if (m <= 0xffffffff) {
      byte(negative ? kNeg32 : kPos32);
      be(m, 4);
    } else {
      byte(negative ? kNeg64 : kPos64);
      be(m, 8);
    }
  }

  Status string(std::string_view s) {
    if (s.empty()) {
      byte(kEmptyString);
      return ok_status();
    }
    if (s.size() > 0xffffffffu) return Error{Errc::invalid_argument, "igbinary: a string longer than 4 GiB"};
    const auto [it, is_new] = strings_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (is_new) {
      sized(kString8, s.size());
      out_.append(s);
    } else {
      sized(kStringId8, it->second);
    }
    return ok_status();
  }

  Status array(const Value& v, size_t depth) {
    if (depth + 1 > kMaxDepth)
      return Error{Errc::invalid_argument, "igbinary: arrays nested deeper than " + std::to_string(kMaxDepth)};
    const bool is_list = v.kind == Value::Kind::list;
    const size_t n = is_list ? v.items.size() : v.fields.size();
    if (n == 0) {
      // PHP's empty arrays are (nearly always: literals, unserialize(), igbinary_unserialize(),
      // json_decode()) one shared zend_array, which igbinary writes once and then refers to.
      if (has_empty_) {
        sized(kArrayRef8, empty_id_);
        return ok_status();
      }
      has_empty_ = true;
      empty_id_ = next_array_;
    }
    if (n > 0xffffffffu) return Error{Errc::invalid_argument, "igbinary: an array of more than 2^32 elements"};
    ++next_array_;
    sized(kArray8, n);
    for (size_t k = 0; k < n; ++k) {
      if (is_list) {
        long_value(static_cast<int64_t>(k));
      } else if (const MapKey& key = v.fields[k].first; key.is_int) {
        long_value(key.i);
      } else if (Status st = string(key.s); !st) {
        return st;
      }
      const Value& child = is_list ? v.items[k] : v.fields[k].second;
      if (Status st = value(child, depth + 1); !st) return st;
    }
    return ok_status();
  }

  std::string& out_;
  std::unordered_map<std::string_view, uint32_t> strings_;  // views into the tree being written
  uint64_t next_array_ = 0;
  bool has_empty_ = false;
  uint64_t empty_id_ = 0;
};

}  // namespace

Result<Value> decode_igbinary_tree(std::string_view bytes) {
  if (bytes.size() < 4 || bytes.substr(0, 3) != std::string_view(kHeader, 3))
    return Error{Errc::parse_error, "igbinary: no 00 00 00 0v header at byte 0"};
  if (bytes[3] != kHeader[3])
    return Error{Errc::parse_error, "igbinary: format version " + std::to_string(static_cast<uint8_t>(bytes[3])) +
                                        " not supported (only 2) at byte 3"};
  Tables tables;
  IgbReader reader(bytes, 4, tables, false, 0, 0);
  Value v;
  uint64_t cost = 0;
  if (!reader.value(v, 0, cost)) return reader.error();
  if (reader.pos() != bytes.size())
    return Error{Errc::parse_error, "igbinary: " + std::to_string(bytes.size() - reader.pos()) +
                                        " trailing bytes after the value at byte " + std::to_string(reader.pos())};
  return v;
}

Status encode_igbinary_tree(const Value& v, std::string& out) {
  const size_t had = out.size();
  out.append(kHeader, 4);
  Status st = IgbWriter(out).value(v, 0);
  if (!st) out.resize(had);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
