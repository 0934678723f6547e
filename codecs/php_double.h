#pragma once
// How PHP 8 prints a double with serialize_precision = -1 (its default), for both PHP text
// formats hitcost writes the way PHP does: serialize() (codecs/php_format.h) and json_encode()
// (codecs/json_format.h). One layout, two spellings of it.
#include <string>

namespace hitcost {

// The shortest digits that read back exactly (D = d1 d2 ... dn, value = 0.D x 10^decpt),
// laid out as PHP's php_gcvt does with 17 as its precision:
//   decpt < -3 or decpt > 17  -> d1 "." (d2..dn or "0") <exponent_letter> sign exponent
//   -3 <= decpt <= 0          -> "0." then -decpt zeros then D
//   otherwise                 -> D padded with zeros to decpt digits, "." and the rest if any
// `zero_fraction` adds ".0" to an integral plain result (json_encode's
// JSON_PRESERVE_ZERO_FRACTION: 5.0 as "5.0", so it reads back a double; serialize() writes
// "5"). `v` must be finite: each format spells NaN and the infinities its own way, if at all.
void append_php_style_double(std::string& out, double v, char exponent_letter, bool zero_fraction);

}  // namespace hitcost
