// hitcost-corpus's generic tree decoders on arbitrary bytes: php serialize, igbinary, JSON,
// msgpack (corpus/tree_codec.h). Input: [decoder byte][payload...]. A user's cache is the
// least trusted input hitcost reads, so: no crash, no allocation the input cannot describe,
// and a tree that decodes must encode under its own format and under every other one (or be
// refused with invalid_argument: JSON and a non-UTF-8 string) and decode back to the same tree
// — the round trip hitcost-corpus compare relies on. The redacted tree must round-trip too.
// JSON's two readers (simdjson first, hitcost's reader for what it refuses) read the same
// trees and refuse the same inputs.
#include <string>

#include "corpus/redact.h"
#include "corpus/tree_codec.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;
using namespace hitcost::corpus;

namespace {
constexpr SerializerId kTreeSerializers[] = {SerializerId::php, SerializerId::igbinary, SerializerId::json,
                                             SerializerId::msgpack};

void round_trip(const Value& tree) {
  for (SerializerId to : kTreeSerializers) {
    std::string bytes;
    Status st = encode_tree(to, tree, bytes);
    if (!st) {
      if (st.error().code != Errc::invalid_argument) fuzz::violated("an encoder failed with other than invalid_argument");
      if (!bytes.empty()) fuzz::violated("a refusing encoder left bytes in its output");
      continue;
    }
    Result<Value> back = decode_tree(to, bytes);
    if (!back) fuzz::violated("a tree did not survive encode + decode");
    if (!(*back == tree)) fuzz::violated("encode + decode changed a tree");
  }
}

// JSON's default decoder reads with simdjson and falls back to hitcost's reader: simdjson must
// accept nothing the reader refuses, and read the same tree where both accept.
void same_as_the_reader(const std::string& payload, const Result<Value>& tree) {
  Result<Value> by_reader = decode_json_tree_reader(payload);
  if (tree.ok() != by_reader.ok()) fuzz::violated("simdjson and the reader disagree on whether JSON is valid");
  if (tree.ok() && !(*tree == *by_reader)) fuzz::violated("simdjson and the reader read different trees");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const SerializerId id = kTreeSerializers[in.byte() % std::size(kTreeSerializers)];
  const std::string payload(in.rest);  // exact-size copy for ASan
  Result<Value> tree = decode_tree(id, payload);
  if (id == SerializerId::json) same_as_the_reader(payload, tree);
  if (!tree) {
    if (tree.error().code != Errc::parse_error && tree.error().code != Errc::too_large)
      fuzz::violated("a decoder failed with other than parse_error or too_large");
    return 0;
  }
  round_trip(*tree);
  round_trip(redact_value(*tree, 0x5eed));
  return 0;
}
