// Each page decoder on arbitrary bytes: every serializer's, and JSON once per decoder library
// (codecs/decoders.h: simdjson, hitcost's own reader, nlohmann) — page_decoders() in order.
// Input: [decoder byte][payload...]. A page that decodes must render, re-encode and decode again
// to the same page (what the server stores on a miss it must read back on the next hit).
#include <string>
#include <utility>
#include <vector>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  static const std::vector<PageDecoder> decoders = page_decoders();
  const PageDecoder& dec = decoders[in.byte() % decoders.size()];
  const std::string payload(in.rest);  // exact-size copy for ASan

  Result<Page> page = decode_page(dec.serializer, payload, dec.decoders);
  if (!page) {
    if (page.error().code == Errc::not_found) fuzz::violated("decoder answered not_found");
    return 0;
  }
  std::string html;
  render_page(*page, html);
  const std::string again = encode_page(dec.serializer, *page);
  Result<Page> back = decode_page(dec.serializer, again, dec.decoders);
  if (!back) fuzz::violated("a decoded page did not survive encode + decode");
  if (!(*back == *page)) fuzz::violated("encode + decode changed a decoded page");
  return 0;
}
