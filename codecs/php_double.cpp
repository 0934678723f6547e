#include "codecs/php_double.h"

#include <charconv>

#include "codecs/text_append.h"

namespace hitcost {

void append_php_style_double(std::string& out, double v, char exponent_letter, bool zero_fraction) {
  char buf[40];
  // Shortest round-trip digits in scientific form: "-1.2345e+17", "5e-324", "0e+00".
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  char digits[32];
  size_t n = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  int exponent = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exponent);
  const int decpt = exponent + 1;
  constexpr int kPrecision = 17;
  if (decpt < -3 || decpt > kPrecision) {
    out += digits[0];
    out += '.';
    if (n == 1)
      out += '0';
    else
      out.append(digits + 1, n - 1);
    out += exponent_letter;
    out += exponent < 0 ? '-' : '+';
    append_int(out, exponent < 0 ? -int64_t(exponent) : exponent);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(size_t(-decpt), '0');
    out.append(digits, n);
  } else if (size_t(decpt) >= n) {
    out.append(digits, n);
    out.append(size_t(decpt) - n, '0');
    if (zero_fraction) out += ".0";
  } else {
    out.append(digits, size_t(decpt));
    out += '.';
    out.append(digits + decpt, n - size_t(decpt));
  }
}

}  // namespace hitcost
