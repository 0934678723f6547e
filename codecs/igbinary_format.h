#pragma once
// igbinary format version 2 (php-igbinary 3.x): the header and the type bytes, in one place for
// both readers of the format, the page codec (codecs/igbinary_serializer.cpp) and the generic
// tree codec (corpus/igbinary_tree.cpp). Every number after a type byte is big-endian; the
// 8/16/32-bit variants of a type are consecutive bytes.
#include <cstdint>

namespace hitcost::igbinary {

enum Type : uint8_t {
  kNull = 0x00,
  kArrayRef8 = 0x01,  // the same array again, by id: 01/02/03 for u8/u16/u32 ids
  kArrayRef16 = 0x02,
  kArrayRef32 = 0x03,
  kFalse = 0x04,
  kTrue = 0x05,
  kPos8 = 0x06,  // non-negative ints: 06/08/0a (u8/u16/u32), 20 (u64)
  kNeg8 = 0x07,  // negative ints as their magnitude: 07/09/0b, 21
  kPos16 = 0x08,
  kNeg16 = 0x09,
  kPos32 = 0x0a,
  kNeg32 = 0x0b,
  kDouble = 0x0c,  // 8 bytes, the IEEE bits
  kEmptyString = 0x0d,
  kStringId8 = 0x0e,  // a string seen before, by id: 0e/0f/10
  kStringId16 = 0x0f,
  kStringId32 = 0x10,
  kString8 = 0x11,  // a new string, length then bytes: 11/12/13
  kString16 = 0x12,
  kString32 = 0x13,
  kArray8 = 0x14,  // an array, count then (key, value) pairs: 14/15/16
  kArray16 = 0x15,
  kArray32 = 0x16,
  kPos64 = 0x20,
  kNeg64 = 0x21,
  kReference = 0x25,  // a PHP reference (refused by both readers)
  kEnum = 0x27,       // a PHP enum case (refused)
};

inline constexpr char kHeader[4] = {0, 0, 0, 2};

}  // namespace hitcost::igbinary
