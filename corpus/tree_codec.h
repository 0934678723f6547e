#pragma once
// The generic value tree in and out of each serializer hitcost knows (codecs/codec_table.h's
// rows): what hitcost-corpus decodes a user's stored value with and re-encodes it under.
// One row per SerializerId.
//
// Every decoder is strict and bounds-checked, refuses what PHP itself would not produce or
// what the tree cannot hold (PHP objects, references, trailing bytes) with parse_error and a
// reason, and never allocates more than the input can describe. Every encoder appends to
// `out` and fails (invalid_argument, with the reason) only on a value the format cannot hold:
// JSON and non-UTF-8 strings, NaN or infinities.
#include <string>
#include <string_view>

#include "codecs/codec_table.h"
#include "codecs/value_codec.h"
#include "core/result.h"
#include "corpus/value.h"

namespace hitcost::corpus {

// Deepest nesting a decoder accepts (PHP's own unserialize has no limit; a stack does).
inline constexpr size_t kMaxDepth = 512;

// php serialize() text (PHP 8: d: with serialize_precision -1, b:, i:, s:, a:, N;).
Result<Value> decode_php_tree(std::string_view bytes);
Status encode_php_tree(const Value& v, std::string& out);
// igbinary v2 (what php-igbinary 3.x writes: header 00 00 00 02, then the value).
Result<Value> decode_igbinary_tree(std::string_view bytes);
Status encode_igbinary_tree(const Value& v, std::string& out);
// JSON (RFC 8259) as PHP's json_encode writes an array: a list is [..], a map {..} with its
// int keys as strings; doubles always with a '.' or an exponent so they read back as doubles.
// decode_json_tree reads with simdjson (json_tree_simdjson.cpp) and gives every document it
// refuses to decode_json_tree_reader, hitcost's own reader (json_tree.cpp): the same trees and
// the same accept set (fuzz_tree holds them to it), at simdjson's speed.
// decode_json_tree_simdjson is simdjson alone (what it refuses: parse_error "simdjson: ..."),
// for the tests and benchmarks that hold the two readers to each other.
Result<Value> decode_json_tree(std::string_view bytes);
Result<Value> decode_json_tree_reader(std::string_view bytes);
Result<Value> decode_json_tree_simdjson(std::string_view bytes);
Status encode_json_tree(const Value& v, std::string& out);
// MessagePack as php-msgpack writes an array: a list is an array, a map a map (int keys as
// ints); floats as float 64; uint64 above INT64_MAX decodes to a double, as in PHP.
Result<Value> decode_msgpack_tree(std::string_view bytes);
Status encode_msgpack_tree(const Value& v, std::string& out);

// By serializer id; none and unknown ids are invalid_argument.
Result<Value> decode_tree(SerializerId id, std::string_view bytes);
Status encode_tree(SerializerId id, const Value& v, std::string& out);

// A stored value as its application reads it, by its flags alone: unwrap_value (flags,
// inflate into `scratch`), then decode_tree by the unwrapped serializer; a value stored with
// no serializer (a string, or pre-rendered HTML) is the one-string tree. Errors: unwrap's, or
// the decoder's with the serializer's name in front. `unwrapped`, when given, gets how it was
// stored (its payload points into `stored` or `scratch`). hitcost-corpus compare and redact
// and hitcost-server's /value origin all read values this way.
Result<Value> decode_stored(std::string_view stored, uint32_t flags, FlagScheme scheme, std::string& scratch,
                            Unwrapped* unwrapped = nullptr);

}  // namespace hitcost::corpus
