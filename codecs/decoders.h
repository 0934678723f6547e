#pragma once
// Which library reads bytes that several libraries read alike. The stored value says its format
// (codecs/codec_table.h: json, zlib...); the reader chooses the library, so that a C++ shop can
// see what a better library is worth without changing a byte of what is stored:
//   inflate  a zlib stream: zlib, libdeflate, isal (codecs/inflate.h)
//   json     JSON text into a page: simdjson (On Demand), hitcost (codecs/json_format.h's
//            reader), nlohmann (its DOM, then the page)
// hitcost-server --inflate / --json-decoder, POST /admin/config {"inflate", "json_decoder"} and the
// sweep axes of the same names set them; /stats config reports them. The defaults are the
// fastest on the hosts measured (README "How close to the floor"): a floor must be a floor.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/codec_table.h"
#include "codecs/inflate.h"
#include "codecs/page.h"
#include "core/result.h"

namespace hitcost {

enum class JsonDecoder : uint8_t { simdjson = 0, hitcost = 1, nlohmann = 2 };

struct JsonDecoderRow {
  JsonDecoder id;
  const char* name;
  Status (*decode)(std::string_view text, Page& page);  // into `page`, reusing it; errors: parse_error
};

Status decode_json(std::string_view text, Page& page);      // hitcost's own reader (json_serializer.h)
Status decode_simdjson(std::string_view text, Page& page);  // simdjson_decoder.h
Status decode_nlohmann(std::string_view text, Page& page);  // nlohmann_decoder.h

inline constexpr JsonDecoderRow kJsonDecoders[] = {
    {JsonDecoder::simdjson, "simdjson", decode_simdjson},
    {JsonDecoder::hitcost, "hitcost", decode_json},
    {JsonDecoder::nlohmann, "nlohmann", decode_nlohmann},
};
inline constexpr JsonDecoder kDefaultJsonDecoder = JsonDecoder::simdjson;

const JsonDecoderRow& json_decoder_row(JsonDecoder id) noexcept;
const JsonDecoderRow* find_json_decoder(std::string_view name) noexcept;
const char* to_string(JsonDecoder id) noexcept;
std::string json_decoder_names();  // "simdjson, hitcost, nlohmann"

// A library by name; invalid_argument naming the accepted ones otherwise.
Result<InflateLibrary> parse_inflate(std::string_view name);
Result<JsonDecoder> parse_json_decoder(std::string_view name);

// The reader's choices, one per format that has more than one library.
struct Decoders {
  InflateLibrary inflate = kDefaultInflate;
  JsonDecoder json = kDefaultJsonDecoder;
  bool operator==(const Decoders&) const = default;
};

// A page decoder a reader may run: a serializer and, for JSON, the library.
struct PageDecoder {
  SerializerId serializer;
  Decoders decoders;
  std::string name;  // "msgpack", "json:simdjson"
};
// Every serializer in table order, JSON once per row of kJsonDecoders: what the benchmarks,
// the fuzzers and the tests walk to cover every decoder.
std::vector<PageDecoder> page_decoders();

}  // namespace hitcost
