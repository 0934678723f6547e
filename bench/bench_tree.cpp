// hitcost-corpus's generic tree decoders (corpus/tree_codec.h), the "decode" step of every
// corpus compare cell and of the server's /value route. Names:
//   tree_decode/<ser>/N          a page's bytes (N rows) into the value tree
//   tree_decode/json:<reader>/N  JSON once per reader: default (simdjson, the reader for what it
//                                refuses), simdjson (alone), reader (hitcost's own)
// Each checks once, before timing, that its tree equals the one the page's msgpack decodes to.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "codecs/page_generator.h"
#include "codecs/value_codec.h"
#include "corpus/tree_codec.h"

namespace hitcost {
namespace {

using corpus::Value;
using TreeDecode = Result<Value> (*)(std::string_view);

void bm_tree_decode(benchmark::State& state, SerializerId s, TreeDecode decode, uint32_t rows) {
  const Page page = generate_page({1000 + rows, rows, 42, 1.0});
  const std::string bytes = encode_page(s, page);
  auto reference = corpus::decode_tree(SerializerId::msgpack, encode_page(SerializerId::msgpack, page));
  auto check = decode(bytes);
  if (!reference || !check || !(*check == *reference)) return state.SkipWithError("tree differs from msgpack's");
  for (auto _ : state) {
    auto tree = decode(bytes);
    benchmark::DoNotOptimize(tree);
  }
  state.counters["bytes"] = benchmark::Counter(static_cast<double>(bytes.size()));
}

int register_all() {
  struct Row {
    const char* name;
    SerializerId s;
    TreeDecode decode;
  };
  const Row rows_of[] = {
      {"json:default", SerializerId::json, corpus::decode_json_tree},
      {"json:simdjson", SerializerId::json, corpus::decode_json_tree_simdjson},
      {"json:reader", SerializerId::json, corpus::decode_json_tree_reader},
      {"msgpack", SerializerId::msgpack, corpus::decode_msgpack_tree},
      {"php", SerializerId::php, corpus::decode_php_tree},
      {"igbinary", SerializerId::igbinary, corpus::decode_igbinary_tree},
  };
  for (uint32_t rows : {5u, 50u, 500u}) {
    for (const Row& r : rows_of) {
      const std::string name = std::string("tree_decode/") + r.name + "/" + std::to_string(rows);
      benchmark::RegisterBenchmark(name.c_str(), bm_tree_decode, r.s, r.decode, rows);
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace
}  // namespace hitcost
