#pragma once
// The input both simdjson readers (codecs/simdjson_decoder.cpp, corpus/json_tree_simdjson.cpp)
// hand to On Demand: the text copied into a per-thread buffer followed by SIMDJSON_PADDING
// zero bytes.
//
// Why zeros, every time: simdjson reads past the end of the text, and simdjson 3.0.1's On
// Demand does not stop an unclosed array at the end ("[" alone): it reads a value where the
// text ended. With leftovers of an earlier, longer document there (a reused buffer), that was a
// string running hundreds of kilobytes past the buffer (found by fuzz_tree under ASan). A zero
// byte starts no JSON value, so the read fails there instead. The copy and the zeroing are part
// of the honest cost and are in every benchmark of these readers.
#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "codecs/json_format.h"

namespace hitcost {

// The padded copy of `text` for this thread, valid until the thread's next call; its size()
// is the text's plus the padding.
inline std::string_view simdjson_padded(std::string_view text) {
  thread_local std::string padded;
  padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  if (!text.empty()) std::memcpy(padded.data(), text.data(), text.size());
  std::memset(padded.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
  return padded;
}

// Numbers of a page, read from the value's token by codecs/json_format.h's number rule, the
// one hitcost's own reader uses: simdjson 3.0.1's get_int64 reads -31333333333333333333 (20
// digits, beyond int64) as -3133333333333333333 without an error, and its get_double rounds
// some mantissas of 20 digits and more one unit off (found by fuzz_tree). Only whitespace may
// follow the number in its token. An integer: within int64, no fraction or exponent.
inline simdjson::error_code exact_int64(simdjson::ondemand::value v, int64_t& out) {
  json::Reader reader(v.raw_json_token());  // the number and the whitespace after it
  json::Number n;
  if (!reader.at_number() || !reader.number(n) || !n.is_int || !reader.finish()) return simdjson::NUMBER_ERROR;
  out = n.i;
  return simdjson::SUCCESS;
}

// A double (an integer too): simdjson's own when the token is short enough for its exact path
// (19 characters hold at most 19 digits), the reader's rule otherwise.
inline simdjson::error_code exact_double(simdjson::ondemand::value v, double& out) {
  const std::string_view token = v.raw_json_token();
  if (auto e = v.get_double().get(out)) return e;  // validates the number, consumes the value
  if (token.find_last_not_of(" \t\n\r") < 19) return simdjson::SUCCESS;
  json::Reader reader(token);
  json::Number n;
  if (!reader.at_number() || !reader.number(n) || !reader.finish()) return simdjson::NUMBER_ERROR;
  out = n.is_int ? double(n.i) : n.d;
  return simdjson::SUCCESS;
}

}  // namespace hitcost
