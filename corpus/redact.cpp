#include "corpus/redact.h"

#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/siphash.h"

namespace hitcost::corpus {
namespace {

// ---- keyed hashing -------------------------------------------------------------------------

// splitmix64's finaliser: spreads one 64-bit word (used to derive keys and as a byte stream).
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct HashKey {
  uint64_t k0, k1;
};
// One key per use, so a value's stream and a memcached key's hash are unrelated.
HashKey derive_key(uint64_t secret, uint64_t domain) {
  const uint64_t k0 = mix64(secret ^ domain);
  return HashKey{k0, mix64(k0 ^ 0x2545f4914f6cdd1dull)};
}
constexpr uint64_t kValueDomain = 0x76616c7565733a31ull;  // "values:1"
constexpr uint64_t kKeyDomain = 0x6b6579733a3a3a31ull;    // "keys:::1"

// A stream of 64-bit draws (splitmix64) from a seed.
struct Stream {
  uint64_t state;
  uint64_t next() { return mix64(state += 0x9e3779b97f4a7c15ull); }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }  // bias < 2^-40 for these n
};

// ---- UTF-8 ---------------------------------------------------------------------------------

// Length (2..4) of the well-formed multi-byte UTF-8 sequence at p, or 0. p[0] >= 0x80.
size_t utf8_sequence_length(const unsigned char* p, size_t avail) {
  const unsigned char c = p[0];
  auto cont = [&](size_t k) { return k < avail && (p[k] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && p[1] >= 0xA0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;   // overlong
    if (c == 0xF4 && p[1] >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

uint32_t utf8_decode(const char* p, size_t n) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  if (n == 2) return (uint32_t(b[0] & 0x1F) << 6) | (b[1] & 0x3F);
  if (n == 3) return (uint32_t(b[0] & 0x0F) << 12) | (uint32_t(b[1] & 0x3F) << 6) | (b[2] & 0x3F);
  return (uint32_t(b[0] & 0x07) << 18) | (uint32_t(b[1] & 0x3F) << 12) | (uint32_t(b[2] & 0x3F) << 6) | (b[3] & 0x3F);
}

// Writes code point cp as exactly n bytes (the caller picks cp in n's range).
void utf8_encode(uint32_t cp, size_t n, char* out) {
  if (n == 2) {
    out[0] = char(0xC0 | (cp >> 6));
    out[1] = char(0x80 | (cp & 0x3F));
  } else if (n == 3) {
    out[0] = char(0xE0 | (cp >> 12));
    out[1] = char(0x80 | ((cp >> 6) & 0x3F));
    out[2] = char(0x80 | (cp & 0x3F));
  } else {
    out[0] = char(0xF0 | (cp >> 18));
    out[1] = char(0x80 | ((cp >> 12) & 0x3F));
    out[2] = char(0x80 | ((cp >> 6) & 0x3F));
    out[3] = char(0x80 | (cp & 0x3F));
  }
}

// Where replacements are drawn from: letters, so the text still looks like text.
constexpr uint32_t kTwoByteFirst = 0x0100, kTwoByteCount = 0x80;        // Latin Extended-A
constexpr uint32_t kThreeByteFirst = 0x4E00, kThreeByteCount = 0x5200;  // CJK Unified
constexpr uint32_t kFourByteFirst = 0x20000, kFourByteCount = 0xA6E0;   // CJK Extension B

// ---- strings -------------------------------------------------------------------------------

// A byte that belongs to a word: letters, digits and every byte of a multi-byte sequence
// (or a stray high byte). Everything else is structure and kept.
bool word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// An ASCII word (letters and digits only) whose class pattern has at most 2^62 members: its
// position in the pattern (a mixed-radix number: 26 per letter, 10 per digit), sent through
// a keyed permutation of [0, N) — a Feistel network on the smallest even number of bits that
// holds N, walked until the result falls inside (at most a few steps: 2^bits < 4N) — and
// written back in the same pattern. A bijection per pattern: distinct words stay distinct, so
// "row 12" and "row 21" never merge (a plain draw merged 8 of 40 two-digit numbers, and
// igbinary, which stores a repeated string once, came out smaller than the original).
bool permute_ascii_word(std::string_view word, const HashKey& key, uint64_t counter, char* out) {
  uint64_t n = 1;  // the pattern's size, at most 2^62
  uint64_t x = 0;
  for (unsigned char c : word) {
    const bool digit = c >= '0' && c <= '9';
    if (!digit && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
    const uint64_t radix = digit ? 10 : 26;
    const uint64_t at = digit ? c - '0' : (c | 0x20) - 'a';
    if (n > (uint64_t(1) << 62) / radix) return false;
    n *= radix;
    x = x * radix + at;
  }
  const uint64_t size = n;
  int bits = 2;
  while ((uint64_t(1) << bits) < size) bits += 2;
  const int half = bits / 2;
  const uint64_t mask = (uint64_t(1) << half) - 1;
  const uint64_t tweak = mix64(counter ^ mix64(size));
  auto round = [&](uint64_t v) {
    uint64_t l = v >> half, r = v & mask;
    for (uint64_t i = 0; i < 6; ++i) {
      char block[16];
      const uint64_t t = tweak ^ i;
      std::memcpy(block, &r, 8);
      std::memcpy(block + 8, &t, 8);
      const uint64_t f = siphash24(key.k0, key.k1, std::string_view(block, 16)) & mask;
      const uint64_t next_r = l ^ f;
      l = r;
      r = next_r;
    }
    return (l << half) | r;
  };
  do x = round(x);
  while (x >= size);
  for (size_t i = word.size(); i-- > 0;) {
    const unsigned char c = static_cast<unsigned char>(word[i]);
    const bool digit = c >= '0' && c <= '9';
    const uint64_t radix = digit ? 10 : 26;
    const uint64_t at = x % radix;
    x /= radix;
    out[i] = digit ? char('0' + at) : char((c >= 'a' ? 'a' : 'A') + at);  // the letter keeps its case
  }
  return true;
}

// The replacement of `s` for draw number `counter` (0 for values; keys may need more). Word by
// word: each run of word bytes draws from a stream seeded by the keyed hash of that word alone,
// so a word repeated within a string or across values gets the same replacement everywhere and
// the compressors still find the repetition (a stream per whole string made a long repetitive
// text random bytes: 440 B compressed became 90 KB).
std::string redact_string(std::string_view s, const HashKey& key, uint64_t counter) {
  std::string out(s);
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const uint64_t k1 = key.k1 ^ mix64(counter);
  for (size_t i = 0; i < s.size();) {
    if (!word_byte(b[i])) {
      ++i;  // space, punctuation, controls: kept (they are structure, not content)
      continue;
    }
    size_t end = i;
    while (end < s.size() && word_byte(b[end])) ++end;
    if (permute_ascii_word(s.substr(i, end - i), key, counter, &out[i])) {
      i = end;
      continue;
    }
    Stream stream{siphash24(key.k0, k1, s.substr(i, end - i))};
    while (i < end) {
      const unsigned char c = b[i];
      if (c >= 'a' && c <= 'z') {
        out[i++] = char('a' + stream.below(26));
      } else if (c >= 'A' && c <= 'Z') {
        out[i++] = char('A' + stream.below(26));
      } else if (c >= '0' && c <= '9') {
        out[i++] = char('0' + stream.below(10));
      } else if (const size_t n = utf8_sequence_length(b + i, end - i); n != 0) {
        const uint32_t cp = n == 2   ? kTwoByteFirst + stream.below(kTwoByteCount)
                            : n == 3 ? kThreeByteFirst + stream.below(kThreeByteCount)
                                     : kFourByteFirst + stream.below(kFourByteCount);
        utf8_encode(cp, n, &out[i]);
        i += n;
      } else {
        out[i++] = char(0x80 + stream.below(0x40));  // a stray continuation byte: still ill-formed
      }
    }
  }
  return out;
}

// The next string of the same class pattern as `s` (an odometer over its letter, digit and
// multi-byte positions, the last one turning fastest; multi-byte positions over every code
// point of their length, so the pattern's whole space is walked). Ill-formed bytes and kept
// ASCII do not turn. Returns false when it wrapped to all-minimum.
bool next_in_pattern(std::string& s) {
  // Positions and lengths of the turning units, found left to right.
  std::vector<std::pair<size_t, size_t>> units;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = b[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      units.emplace_back(i, 1);
      ++i;
    } else if (c < 0x80) {
      ++i;
    } else if (const size_t n = utf8_sequence_length(b + i, s.size() - i); n != 0) {
      units.emplace_back(i, n);
      i += n;
    } else {
      ++i;
    }
  }
  for (size_t u = units.size(); u-- > 0;) {
    const auto [at, n] = units[u];
    if (n == 1) {
      char& c = s[at];
      const char first = c >= 'a' ? 'a' : c >= 'A' ? 'A' : '0';
      const char last = c >= 'a' ? 'z' : c >= 'A' ? 'Z' : '9';
      if (c != last) {
        ++c;
        return true;
      }
      c = first;
      continue;  // carry
    }
    uint32_t cp = utf8_decode(&s[at], n);
    const uint32_t first = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    const uint32_t last = n == 2 ? 0x7FF : n == 3 ? 0xFFFF : 0x10FFFF;
    bool carry = cp == last;
    cp = carry ? first : cp + 1;
    if (cp == 0xD800) cp = 0xE000;  // surrogates are not characters
    utf8_encode(cp, n, &s[at]);
    if (!carry) return true;
  }
  return false;
}

constexpr uint64_t kRandomKeyAttempts = 64;

// A replacement for string key `s` that is no canonical integer and not in `used`.
std::string redact_map_key(const std::string& s, const HashKey& key, const std::unordered_set<std::string>& used) {
  auto usable = [&](const std::string& c) { return !is_canonical_int(c) && !used.count(c); };
  std::string candidate;
  for (uint64_t counter = 0; counter < kRandomKeyAttempts; ++counter) {
    candidate = redact_string(s, key, counter);
    if (usable(candidate)) return candidate;
  }
  // The pattern is nearly full (e.g. hundreds of "0ddd" keys): walk it in order from the
  // last draw. The originals are distinct, non-canonical members of this space, so a free
  // one exists unless their ill-formed bytes (which do not turn) are what set them apart.
  const std::string start = candidate;
  do {
    next_in_pattern(candidate);
    if (usable(candidate)) return candidate;
  } while (candidate != start);
  return s;  // only the ill-formed-bytes case above: the original is distinct from its peers
}

Value redact(const Value& v, const HashKey& key) {
  switch (v.kind) {
    case Value::Kind::string: return make_string(redact_string(v.s, key, 0));
    case Value::Kind::list: {
      std::vector<Value> items;
      items.reserve(v.items.size());
      for (const Value& item : v.items) items.push_back(redact(item, key));
      return make_list(std::move(items));
    }
    case Value::Kind::map: {
      Fields fields;
      fields.reserve(v.fields.size());
      std::unordered_set<std::string> used;  // replacement string keys of this map so far
      for (const auto& [k, item] : v.fields) {
        MapKey out_key = k;
        if (!k.is_int) {
          out_key.s = redact_map_key(k.s, key, used);
          used.insert(out_key.s);
        }
        fields.emplace_back(std::move(out_key), redact(item, key));
      }
      return make_map(std::move(fields));
    }
    default: return v;  // null, bool, int, double: kept
  }
}

}  // namespace

Value redact_value(const Value& v, uint64_t secret) { return redact(v, derive_key(secret, kValueDomain)); }

std::string redact_key(std::string_view memcached_key, uint64_t secret) {
  const HashKey key = derive_key(secret, kKeyDomain);
  const uint64_t h = siphash24(key.k0, key.k1, memcached_key);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "r:";
  for (int shift = 60; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 15];
  return out;
}

}  // namespace hitcost::corpus
