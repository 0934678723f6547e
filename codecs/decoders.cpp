#include "codecs/decoders.h"

#include "codecs/row_table.h"

namespace hitcost {

const JsonDecoderRow& json_decoder_row(JsonDecoder id) noexcept { return row_by_id(kJsonDecoders, id); }
const JsonDecoderRow* find_json_decoder(std::string_view name) noexcept { return row_by_name(kJsonDecoders, name); }
const char* to_string(JsonDecoder id) noexcept { return json_decoder_row(id).name; }
std::string json_decoder_names() { return row_names(kJsonDecoders); }

std::vector<PageDecoder> page_decoders() {
  std::vector<PageDecoder> all;
  for (const SerializerCodec& s : kSerializerCodecs) {
    if (s.id != SerializerId::json) {
      all.push_back({s.id, {}, s.name});
      continue;
    }
    for (const JsonDecoderRow& d : kJsonDecoders) all.push_back({s.id, {.json = d.id}, std::string("json:") + d.name});
  }
  return all;
}

Result<InflateLibrary> parse_inflate(std::string_view name) {
  if (const InflateRow* r = find_inflate(name)) return r->id;
  return Error{Errc::invalid_argument, "unknown inflate library '" + std::string(name) + "' (" + inflate_names() + ")"};
}

Result<JsonDecoder> parse_json_decoder(std::string_view name) {
  if (const JsonDecoderRow* r = find_json_decoder(name)) return r->id;
  return Error{Errc::invalid_argument,
               "unknown JSON decoder '" + std::string(name) + "' (" + json_decoder_names() + ")"};
}

}  // namespace hitcost
