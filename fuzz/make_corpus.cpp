// Writes the seed corpus for the fuzz targets from real encodings (what the server
// stores, what clients send). Usage: make_corpus DIR   (writes DIR/<target>/<name>)
// Run again when a format changes; the files are kept in the repository.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "codecs/compressor.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "fuzz/fuzz_common.h"
#include "stores/store.h"

using namespace hitcost;
namespace fs = std::filesystem;

namespace {

fs::path root;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary) << bytes;
}

std::string le32(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

std::string safe(std::string n) {
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

void values_and_decoders() {
  const Page page = generate_page({1, 2, 1, 1.0});
  const std::string html = render_page(page);
  for (FlagScheme scheme : kFlagSchemes) {
    for (const char* text :
         {"html", "html+zlib", "struct:json", "struct:json+zlib:1", "struct:msgpack", "struct:msgpack+zstd",
          "struct:php", "struct:php+zlib", "html+lz4", "struct:igbinary", "struct:php+fastlz", "html+fastlz:2"}) {
      auto st = parse_strategy(text, scheme);
      if (!st) continue;  // not expressible under this scheme
      st->rule.threshold_bytes = 0;
      st->rule.min_savings = 0;
      st->rule.factor = 0;
      EncodedValue v = encode_value(*st, page, html);
      // Each library on every seed (fuzz::decoders_of): 0 zlib + simdjson, 4 libdeflate + hitcost,
      // 8 isal + nlohmann.
      for (uint8_t libraries : {0, 4, 8}) {
        put("fuzz_value", safe(std::string(to_string(scheme)) + "_" + text + "_" + std::to_string(libraries)),
            std::string(1, static_cast<char>(scheme)) + static_cast<char>(libraries) + le32(v.flags) + v.bytes);
      }
    }
  }
  const std::vector<PageDecoder> decoders = page_decoders();
  for (size_t i = 0; i < decoders.size(); ++i) {
    put("fuzz_decoders", safe(decoders[i].name),
        std::string(1, static_cast<char>(i)) + encode_page(decoders[i].serializer, page));
  }
  // fuzz_decompress: [mode][compressor index][le32 size][block]; a big page so that
  // FastLZ level 2's long matches and far distances appear.
  const std::string big = render_page(generate_page({2, 120, 1, 1.0}));
  for (size_t i = 0; i < std::size(kCompressors); ++i) {
    std::string block;
    if (!compress(kCompressors[i], 0, html, block)) continue;
    put("fuzz_decompress", std::string("decode_") + to_string(kCompressors[i]),
        std::string(1, '\0') + static_cast<char>(i) + le32(static_cast<uint32_t>(html.size())) + block);
  }
  for (int level : {1, 2}) {
    std::string block;
    compress(CompressorId::fastlz, level, big, block);
    char fastlz_index = 0;
    while (kCompressors[static_cast<size_t>(fastlz_index)] != CompressorId::fastlz) ++fastlz_index;
    put("fuzz_decompress", "decode_fastlz_level" + std::to_string(level) + "_big",
        std::string(1, '\0') + fastlz_index + le32(static_cast<uint32_t>(big.size())) + block);
  }
  // Mode 2: zlib without a known size (every inflate library against zlib), the cap above the size.
  std::string zlib_block;
  compress(CompressorId::zlib, 0, html, zlib_block);
  put("fuzz_decompress", "grow_zlib",
      std::string(1, '\x02') + '\0' + le32(static_cast<uint32_t>(html.size() * 2)) + zlib_block);
  put("fuzz_decompress", "encode_fastlz", std::string("\x01\x00\x00\x00\x00\x00", 6) + html);
}

void http_requests() {
  const char* reqs[][2] = {
      {"get_page", "GET /page/1 HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"get_page_rows_strategy", "GET /page/2?rows=3&strategy=struct:msgpack%2Bzlib HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"get_data", "GET /data/3?rows=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
      {"healthz_http10", "GET /healthz HTTP/1.0\r\n\r\n"},
      {"pipelined", "GET /page/4 HTTP/1.1\r\nHost: x\r\n\r\nGET /data/4 HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"post_config",
       "POST /admin/config HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
       "Content-Length: 38\r\n\r\n{\"rows\":5,\"strategy\":\"struct:php+zlib\"}"},
      {"post_config_chunked",
       "POST /admin/config HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
       "a\r\n{\"rows\":4,\r\n9\r\n\"ns\":\"v2\"}\r\n0\r\n\r\n"},
      {"post_reset", "POST /admin/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"},
      {"post_warm_token",
       "POST /admin/warm?from=0&to=3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n"
       "Content-Length: 0\r\n\r\n"},
      {"delete", "DELETE /page/1 HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"bad_rows", "GET /page/1?rows=99999 HTTP/1.1\r\nHost: x\r\n\r\n"},
  };
  for (auto& r : reqs) put("fuzz_http", r[0], std::string("\x01") + r[1]);
  put("fuzz_http", "remote_admin", std::string("\x00", 1) + "POST /admin/reset HTTP/1.1\r\nHost: x\r\n\r\n");
}

void store_file() {
  const fs::path tmp = fs::temp_directory_path() / ("hitcost-corpus-" + std::to_string(getpid()) + ".dat");
  {
    auto s = open_store("mmap:" + tmp.string() + "?size=64K&create=1");
    if (!s) {
      std::fprintf(stderr, "make_corpus: %s\n", s.error().message.c_str());
      std::exit(1);
    }
    const Page page = generate_page({5, 1, 1, 1.0});
    const std::string html = render_page(page);
    for (int i = 0; i < 16; ++i) (*s)->set("k" + std::to_string(i), html.substr(0, 40 + 20 * i), 0x68100000);
    (*s)->set("k3", "overwritten", 6);  // a newer record for a key: the higher seq wins
    (*s)->remove("k7");                 // a tombstone
  }
  std::ifstream f(tmp, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  fs::remove(tmp);
  put("fuzz_store_file", "sixteen_keys", bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus DIR\n");
    return 2;
  }
  root = argv[1];
  values_and_decoders();
  http_requests();
  store_file();
  return 0;
}
