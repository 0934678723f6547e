// The hit path on arbitrary stored bytes: flags + bytes -> unwrap_value -> decode_page ->
// render_page, under every flag scheme and with every library the server may pick.
// Input: [scheme byte][libraries byte (fuzz::decoders_of)][flags: 4 bytes LE][stored bytes...].
// Every outcome must be a page or a typed error; a decoded page must render.
#include <string>

#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "fuzz/fuzz_common.h"

using namespace hitcost;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const FlagScheme scheme = static_cast<FlagScheme>(in.byte() % 3);
  // Which libraries read: the inflate of a zlib value, the decoder of a JSON one.
  const Decoders decoders = fuzz::decoders_of(in.byte());
  const uint32_t flags = in.u32();
  const std::string stored(in.rest);  // own copy: ASan then sees reads past its end

  std::string scratch;
  Result<Unwrapped> u = unwrap_value(stored, flags, scheme, scratch, decoders);
  if (!u) {
    if (u.error().code == Errc::not_found) fuzz::violated("unwrap_value answered not_found");
    return 0;
  }
  if (u->rep == Representation::html) {
    if (u->serializer != SerializerId::none) fuzz::violated("html value with a serializer");
    return 0;  // the payload is served as is
  }
  Result<Page> page = decode_page(u->serializer, u->payload, decoders);
  if (!page) return 0;
  std::string html;
  render_page(*page, html);
  if (html.empty()) fuzz::violated("a decoded page rendered to nothing");
  return 0;
}
