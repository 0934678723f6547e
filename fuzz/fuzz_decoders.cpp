// Each serializer's decoder on arbitrary bytes: JSON (codecs/json_format.h's reader), msgpack, PHP serialize,
// JSON (simdjson), igbinary — kSerializers in order. Input: [decoder byte][payload...].
// A page that decodes must render, re-encode and decode again to the same page (what
// the server stores on a miss it must read back on the next hit).
#include <string>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const SerializerId id = kSerializers[in.byte() % std::size(kSerializers)];
  const std::string payload(in.rest);  // exact-size copy for ASan

  Result<Page> page = decode_page(id, payload);
  if (!page) {
    if (page.error().code == Errc::not_found) fuzz::violated("decoder answered not_found");
    return 0;
  }
  std::string html;
  render_page(*page, html);
  // Re-encode through the writer of the bytes this decoder reads (simdjson: json's).
  const std::string again = encode_page(find_serializer(id)->bytes_of, *page);
  Result<Page> back = decode_page(id, again);
  if (!back) fuzz::violated("a decoded page did not survive encode + decode");
  if (!(*back == *page)) fuzz::violated("encode + decode changed a decoded page");
  return 0;
}
