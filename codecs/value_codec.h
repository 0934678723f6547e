#pragma once
// The hit path, one step per function so the server can time each phase:
//   stored bytes + flags --unwrap_value--> payload (inflated) --decode_page--> Page --render_page--> HTML
// and the miss path: Page --encode_value--> stored bytes + flags.
// Every failure is a typed Error (never a crash, never a silently wrong page).
#include <cstdint>
#include <string>
#include <string_view>

#include "codecs/decoders.h"
#include "codecs/page.h"
#include "codecs/strategy.h"
#include "core/result.h"

namespace hitcost {

struct EncodedValue {
  std::string bytes;
  uint32_t flags = 0;
};

// Serializes (or takes the rendered `html`) and wraps under strategy.scheme with
// strategy.rule deciding compression. `html` must be render_page(page) for html
// strategies; it is ignored for struct strategies.
// Compression is tried only when the strategy has a compressor and the plain payload is
// at least rule.threshold_bytes, and kept only when rule.keep(plain, compressed) (the
// compressed size without the 4-byte length prefix); otherwise the value is stored plain
// with no compression flag. Precondition: `strategy` came from parse_strategy (or is
// equally valid); an impossible one (struct without serializer, a compressor the scheme
// cannot express) yields flags kUnexpressibleFlags, which every scheme's reader rejects.
// The flags of a value no scheme can say (see encode_value): callers that must not store it
// compare against this.
inline constexpr uint32_t kUnexpressibleFlags = 0xFFFFFFFFu;
EncodedValue encode_value(const Strategy& strategy, const Page& page, std::string_view html);

// The wrapping step of encode_value alone: `plain` is the serialized bytes (struct) or the
// HTML (html), compressed and flagged by the same rule. For callers that serialize something
// other than a Page (hitcost-corpus's generic trees).
EncodedValue wrap_payload(const Strategy& strategy, std::string plain);

// wrap_payload's rule on its own, for callers that know the sizes already (hitcost-corpus
// recommend derives every threshold from one compression per value): compression is tried at
// all (a compressor, at least the threshold, at most kMaxInflatedBytes), and a value of `plain`
// bytes that packs to `packed` bytes (without the length prefix) is kept compressed.
bool compression_tried(const Strategy& strategy, size_t plain_bytes) noexcept;
bool keeps_compressed(const Strategy& strategy, size_t plain_bytes, size_t packed_bytes) noexcept;

// What a stored value turned out to hold, read from its flags alone.
struct Unwrapped {
  Representation rep = Representation::html;
  SerializerId serializer = SerializerId::none;
  CompressorId compressor = CompressorId::none;  // what it was stored with (for stats)
  std::string_view payload;                      // plain bytes: points into `stored` or into `scratch`
};

// Reads `flags` under `scheme`, inflates into `scratch` when compressed (a zlib stream by
// `decoders.inflate`).
Result<Unwrapped> unwrap_value(std::string_view stored, uint32_t flags, FlagScheme scheme, std::string& scratch,
                               const Decoders& decoders = {});

// Serializer-level encode/decode (also used by benchmarks). JSON is decoded by
// `decoders.json` (codecs/decoders.h), every other format by its row's decoder.
// encode_page(none, ..) is empty; decode_page(none, ..) is invalid_argument.
std::string encode_page(SerializerId serializer, const Page& page);
Result<Page> decode_page(SerializerId serializer, std::string_view payload, const Decoders& decoders = {});
// The same into `page`, reusing its rows and strings (a server thread's one page: a warm decode
// allocates nothing). On an error `page` holds a part of the value and is to be discarded.
Status decode_page_into(SerializerId serializer, std::string_view payload, Page& page, const Decoders& decoders = {});

// Appends the serialized page to `out` (reuses its capacity; encode_page in place).
void encode_page_into(SerializerId serializer, const Page& page, std::string& out);

// Whether `strategy` would have written a value of the form `stored` (what its flags say):
// the same representation, the same serializer, and the strategy's own compressor or none — a value under the
// compression threshold, or one that did not shrink enough, is stored plain. Anything else was written by another
// strategy under the same key (keys do not name the strategy: PHP applications read them as they are). The compression
// level is not compared: the flags do not carry it; nor whether a zstd dictionary wrote it (zstd-dict values
// have zstd's flags).
bool strategy_writes(const Strategy& strategy, const Unwrapped& stored) noexcept;

// The canonical strategy name of the form `stored` is in, from its flags alone: "html",
// "struct:json+zlib" (no level; JSON bytes are "struct:json" whatever wrote them). Static
// storage: valid for the life of the program, no allocation per call.
std::string_view stored_form_name(const Unwrapped& stored) noexcept;

}  // namespace hitcost
