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
// Objects (17..1f, 22..24), enums (27) and PHP references (25) are refused. The bytes are read
// and written through codecs/igbinary_format.h's Cursor and Writer; the id tables are here.
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/igbinary_format.h"
#include "corpus/duplicate_key.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {
namespace {

using namespace igbinary;  // the type bytes, Cursor and Writer: codecs/igbinary_format.h

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

bool is_string_type(uint8_t t) {
  return t == kEmptyString || Cursor::in_family(t, kStringId8) || Cursor::in_family(t, kString8);
}

class IgbReader {
 public:
  // replay: re-reading an earlier array for a reference to it; ids are then recomputed from
  // `strings_before` / `arrays_before` instead of being added to the tables.
  IgbReader(std::string_view in, size_t pos, Tables& tables, bool replay, size_t strings_before, size_t arrays_before)
      : in_(in, pos), t_(tables), replay_(replay), next_string_(strings_before), next_array_(arrays_before) {}

  bool value(Value& out, size_t depth, uint64_t& bytes) {
    const size_t at = in_.pos();
    uint8_t type = 0;
    if (!in_.type(type)) return false;
    bytes = kNodeBytes;
    if (Cursor::is_int_type(type)) {
      out = make_int(0);
      return in_.int_body(type, at, out.i);
    }
    if (is_string_type(type)) {
      std::string_view s;
      if (!string_body(type, at, s)) return false;
      out = make_string(std::string(s));
      bytes += s.size();
      return true;
    }
    if (Cursor::in_family(type, kArray8)) return array_body(type, at, out, depth, bytes);
    if (Cursor::in_family(type, kArrayRef8)) return array_ref(type, at, out, depth, bytes);
    return scalar(type, at, out);
  }

  size_t pos() const { return in_.pos(); }
  const Error& error() const { return in_.error(); }

 private:
  bool scalar(uint8_t type, size_t at, Value& out) {
    switch (type) {
      case kNull: out = make_null(); return true;
      case kFalse:
      case kTrue: out = make_bool(type == kTrue); return true;
      case kDouble: {
        uint64_t bits = 0;
        if (!in_.be(8, bits)) return false;
        out = make_real(std::bit_cast<double>(bits));
        return true;
      }
      case kReference: return in_.fail_at(at, "PHP reference (type 0x25) not supported");
      case kEnum: return in_.fail_at(at, "PHP enum (type 0x27) not supported");
      default:
        if ((type >= 0x17 && type <= 0x1f) || (type >= 0x22 && type <= 0x24))
          return in_.fail_at(at, "PHP object (type " + hex_byte(type) + ") not supported");
        return in_.fail_at(at, "unknown type byte " + hex_byte(type));
    }
  }

  bool string_body(uint8_t type, size_t at, std::string_view& out) {
    if (type == kEmptyString) {
      out = {};
      return true;
    }
    uint64_t n = 0;
    if (type >= kString8) {
      if (!in_.be(Cursor::width_of(type, kString8), n)) return false;
      if (n > in_.left())
        return in_.fail_at(at, "string length " + std::to_string(n) + " runs past the end (" +
                                   std::to_string(in_.left()) + " bytes left)");
      out = in_.take(n);
      if (replay_) {
        ++next_string_;  // its id was assigned when the array was first read
      } else {
        t_.strings.push_back(out);
        next_string_ = t_.strings.size();
      }
      return true;
    }
    if (!in_.be(Cursor::width_of(type, kStringId8), n)) return false;
    if (n >= next_string_ || n >= t_.strings.size())
      return in_.fail_at(at, "string id " + std::to_string(n) + " not yet defined");
    out = t_.strings[n];
    return true;
  }

  // An int or a string (make_key: "7" is the int key 7, as in PHP); `bytes` grows by its text.
  bool key(MapKey& out, uint64_t& bytes) {
    const size_t at = in_.pos();
    uint8_t type = 0;
    if (in_.at_end()) return in_.fail("unexpected end of input in an array");
    in_.type(type);
    if (Cursor::is_int_type(type)) {
      int64_t i = 0;
      if (!in_.int_body(type, at, i)) return false;
      out = make_int_key(i);
      return true;
    }
    if (!is_string_type(type)) return in_.fail_at(at, "array key of type " + hex_byte(type));
    std::string_view s;
    if (!string_body(type, at, s)) return false;
    out = make_key(std::string(s));
    bytes += s.size();
    return true;
  }

  bool array_body(uint8_t type, size_t at, Value& out, size_t depth, uint64_t& bytes) {
    if (depth + 1 > kMaxDepth) return in_.fail_at(at, "arrays nested deeper than " + std::to_string(kMaxDepth));
    uint64_t count = 0;
    if (!in_.be(Cursor::width_of(type, kArray8), count)) return false;
    // The smallest pair is two bytes (0d 00: "" => null).
    if (count > in_.left() / 2)
      return in_.fail_at(at, "array count " + std::to_string(count) + " exceeds what the " +
                                 std::to_string(in_.left()) + " bytes left can hold");
    const size_t id = next_array_++;
    if (!replay_) t_.arrays.push_back(ArrayEntry{at, next_string_, id, false, 0});
    Fields fields;
    fields.reserve(count);
    for (uint64_t k = 0; k < count; ++k) {
      MapKey key_of;
      if (!key(key_of, bytes)) return false;
      Value v;
      uint64_t child_bytes = 0;
      if (!value(v, depth + 1, child_bytes)) return false;
      bytes += child_bytes;
      fields.emplace_back(std::move(key_of), std::move(v));
    }
    if (const size_t dup = detail::find_duplicate_key(fields); dup != fields.size())
      return in_.fail_at(at, detail::duplicate_key_message(fields[dup].first));
    if (!replay_) {
      t_.arrays[id].complete = true;
      t_.arrays[id].bytes = bytes;
    }
    out = make_map(std::move(fields));
    return true;
  }

  bool array_ref(uint8_t type, size_t at, Value& out, size_t depth, uint64_t& bytes) {
    uint64_t id = 0;
    if (!in_.be(Cursor::width_of(type, kArrayRef8), id)) return false;
    if (id >= next_array_ || id >= t_.arrays.size())
      return in_.fail_at(at, "array reference to id " + std::to_string(id) + " not yet defined");
    const ArrayEntry entry = t_.arrays[id];
    if (!entry.complete)
      return in_.fail_at(at,
                         "array reference to array " + std::to_string(id) + " while it is still being read (a cycle)");
    if (entry.bytes > kMaxCopiedBytes - t_.copied_bytes)
      return in_.fail_at(at, "array references expand to more than " + std::to_string(kMaxCopiedBytes >> 20) + " MiB",
                         Errc::too_large);
    t_.copied_bytes += entry.bytes;
    IgbReader again(in_.input(), entry.offset, t_, true, entry.strings_before, entry.arrays_before);
    if (!again.value(out, depth, bytes)) return in_.fail_with(again.error());
    return true;
  }

  Cursor in_;
  Tables& t_;
  bool replay_;
  size_t next_string_;  // the id the next new string gets
  size_t next_array_;   // the id the next array gets
};

// ---- encoder ----

Status write_value(Writer& w, const Value& v, size_t depth);

Status write_array(Writer& w, const Value& v, size_t depth) {
  if (depth + 1 > kMaxDepth)
    return Error{Errc::invalid_argument, "igbinary: arrays nested deeper than " + std::to_string(kMaxDepth)};
  const bool is_list = v.kind == Value::Kind::list;
  const size_t n = is_list ? v.items.size() : v.fields.size();
  if (n > kMaxLength) return Error{Errc::invalid_argument, "igbinary: an array of more than 2^32 elements"};
  if (!w.array(n)) return ok_status();  // the shared empty array, by reference
  for (size_t k = 0; k < n; ++k) {
    if (is_list) {
      w.integer(static_cast<int64_t>(k));
    } else if (const MapKey& key = v.fields[k].first; key.is_int) {
      w.integer(key.i);
    } else if (key.s.size() > kMaxLength) {
      return Error{Errc::invalid_argument, "igbinary: a string longer than 4 GiB"};
    } else {
      w.string(key.s);
    }
    const Value& child = is_list ? v.items[k] : v.fields[k].second;
    if (Status st = write_value(w, child, depth + 1); !st) return st;
  }
  return ok_status();
}

Status write_value(Writer& w, const Value& v, size_t depth) {
  switch (v.kind) {
    case Value::Kind::null: w.null(); break;
    case Value::Kind::boolean: w.boolean(v.b); break;
    case Value::Kind::integer: w.integer(v.i); break;
    case Value::Kind::real: w.dbl(v.d); break;
    case Value::Kind::string:
      if (v.s.size() > kMaxLength) return Error{Errc::invalid_argument, "igbinary: a string longer than 4 GiB"};
      w.string(v.s);
      break;
    case Value::Kind::list:
    case Value::Kind::map: return write_array(w, v, depth);
  }
  return ok_status();
}

}  // namespace

Result<Value> decode_igbinary_tree(std::string_view bytes) {
  if (Status header = check_header(bytes); !header) return header.error();
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
  Writer w(out);
  w.header();
  Status st = write_value(w, v, 0);
  if (!st) out.resize(had);  // nothing half-written is left behind
  return st;
}

}  // namespace hitcost::corpus
