#pragma once
// --redact: a corpus that keeps the shape and the costs of a user's values (every size, every
// number, the mix of ASCII letters, digits, punctuation and multi-byte UTF-8) but none of the
// text, so it can be handed to someone else.
//
// Each string (value or string map key) is replaced word by word: a word (a run of letters,
// digits and multi-byte UTF-8) by bytes drawn from a stream seeded by a keyed hash (SipHash-2-4)
// of that word: same word + same secret -> same replacement, wherever it occurs, so repeated
// words and strings stay repeated and the compressors see the same repetition (sizes after
// compression stay near the original's). The price: word frequencies are kept, so a reader
// with a guess of the language could match the most frequent replacements to common words;
// the text itself, the keys and every rare word are gone.
// Per byte: a-z -> a-z, A-Z -> A-Z, 0-9 -> 0-9, every other ASCII byte kept; a well-formed
// UTF-8 sequence -> another one of the same byte length (Latin Extended-A for 2 bytes, CJK for
// 3 and 4); any other byte >= 0x80 -> a continuation byte 0x80..0xBF, which stays ill-formed,
// so a string PHP's json_encode refuses is still refused. A replacement byte may equal the
// original by chance (drawn from its class, not excluding it: excluding would leak).
// Numbers, bools, nulls and int keys are kept.
#include <cstdint>
#include <string>
#include <string_view>

#include "corpus/value.h"

namespace hitcost::corpus {

// The tree with every string replaced as above. In one map, distinct string keys stay
// distinct and never become a canonical integer (make_key would make them int keys): a key
// whose replacement collides or is canonical is drawn again with a counter, and when its
// class pattern is nearly exhausted (e.g. many "0ddd" keys) the next free one is searched
// in order.
Value redact_value(const Value& v, uint64_t secret);

// A memcached key replaced by "r:" and 16 lowercase hex digits of its keyed hash (a
// different key derivation from the values', so a key's hash says nothing of a value's).
std::string redact_key(std::string_view memcached_key, uint64_t secret);

}  // namespace hitcost::corpus
