#include "codecs/value_codec.h"

#include <array>
#include <cstring>

#include "codecs/codec_table.h"
#include "codecs/compressor.h"
#include "codecs/flag_scheme.h"
#include "codecs/zstd_dictionary.h"

namespace hitcost {
namespace {

constexpr size_t kPrefixBytes = 4;

void put_le32(std::string& out, uint32_t v) {
  char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
  out.append(b, 4);
}

uint32_t get_le32(const char* p) {
  auto u = [&](int i) { return static_cast<uint32_t>(static_cast<unsigned char>(p[i])); };
  return u(0) | (u(1) << 8) | (u(2) << 16) | (u(3) << 24);
}

}  // namespace

void encode_page_into(SerializerId serializer, const Page& page, std::string& out) {
  if (const SerializerCodec* codec = find_serializer(serializer)) codec->encode(page, out);
}

std::string encode_page(SerializerId serializer, const Page& page) {
  std::string out;
  encode_page_into(serializer, page, out);
  return out;
}

Status decode_page_into(SerializerId serializer, std::string_view payload, Page& page, const Decoders& decoders) {
  if (serializer == SerializerId::json) return json_decoder_row(decoders.json).decode(payload, page);
  if (const SerializerCodec* codec = find_serializer(serializer)) return codec->decode(payload, page);
  return Error{Errc::invalid_argument, "decode_page: an html value has no serializer"};
}

Result<Page> decode_page(SerializerId serializer, std::string_view payload, const Decoders& decoders) {
  Page page;
  if (Status s = decode_page_into(serializer, payload, page, decoders); !s) return s.error();
  return page;
}

bool strategy_writes(const Strategy& strategy, const Unwrapped& stored) noexcept {
  if (stored.rep != strategy.rep) return false;
  if (strategy.rep == Representation::structured && strategy.serializer != stored.serializer) return false;
  return stored.compressor == CompressorId::none || stored.compressor == strategy.compressor;
}

std::string_view stored_form_name(const Unwrapped& stored) noexcept {
  // Every (representation, serializer, compressor) the ids can say, named once; a form that
  // read_flags cannot produce (html with a serializer) gets the name its parts make.
  constexpr size_t kSer = 8, kComp = 8;
  static const auto names = [] {
    std::array<std::string, 2 * kSer * kComp> all;
    for (size_t r = 0; r < 2; ++r)
      for (size_t s = 0; s < kSer; ++s)
        for (size_t c = 0; c < kComp; ++c) {
          Strategy form;
          form.rep = r == 0 ? Representation::html : Representation::structured;
          form.serializer = static_cast<SerializerId>(s);
          form.compressor = static_cast<CompressorId>(c);
          all[(r * kSer + s) * kComp + c] = form.name();
        }
    return all;
  }();
  const auto r = static_cast<size_t>(stored.rep == Representation::structured);
  const auto s = static_cast<size_t>(stored.serializer), c = static_cast<size_t>(stored.compressor);
  if (s >= kSer || c >= kComp) return "unknown";
  return names[(r * kSer + s) * kComp + c];
}

EncodedValue encode_value(const Strategy& st, const Page& page, std::string_view html) {
  if (st.rep == Representation::html) return wrap_payload(st, std::string(html));
  std::string serialized;
  encode_page_into(st.serializer, page, serialized);
  return wrap_payload(st, std::move(serialized));
}

bool compression_tried(const Strategy& st, size_t plain_bytes) noexcept {
  return st.compressor != CompressorId::none && plain_bytes >= st.rule.threshold_bytes &&
         plain_bytes <= kMaxInflatedBytes;
}

bool keeps_compressed(const Strategy& st, size_t plain_bytes, size_t packed_bytes) noexcept {
  return compression_tried(st, plain_bytes) && st.rule.keep(plain_bytes, packed_bytes);
}

EncodedValue wrap_payload(const Strategy& st, std::string plain) {
  EncodedValue ev;
  const SerializerId ser = st.rep == Representation::html ? SerializerId::none : st.serializer;
  CompressorId used = CompressorId::none;
  // zstd-dict without its dictionary cannot store what it says: unstorable, not silently plain
  // or without the dictionary.
  const uint32_t dictionary = st.dictionary ? st.dictionary_id : 0;
  if (st.dictionary && dictionary == 0) {
    ev.flags = kUnexpressibleFlags;
    return ev;
  }
  if (compression_tried(st, plain.size())) {
    bool prefix = st.scheme != FlagScheme::php_memcache;
    std::string packed;
    if (prefix) put_le32(packed, static_cast<uint32_t>(plain.size()));
    size_t head = packed.size();
    const int level = st.level == 0 ? level_range(st.compressor).default_level : st.level;
    const Status packing = dictionary ? zstd_compress_with_dictionary(dictionary, level, plain, packed)
                                      : compress(st.compressor, st.level, plain, packed);
    if (packing.ok() && st.rule.keep(plain.size(), packed.size() - head) &&
        make_flags(st.scheme, st.rep, ser, st.compressor).ok()) {
      ev.bytes = std::move(packed);
      used = st.compressor;
    }
  }
  auto flags = make_flags(st.scheme, st.rep, ser, used);
  if (!flags) {
    ev.bytes.clear();
    ev.flags = kUnexpressibleFlags;
    return ev;
  }
  ev.flags = *flags;
  if (used == CompressorId::none) ev.bytes = std::move(plain);
  return ev;
}

Result<Unwrapped> unwrap_value(std::string_view stored, uint32_t flags, FlagScheme scheme, std::string& scratch,
                               const Decoders& decoders) {
  auto info = read_flags(scheme, flags);
  if (!info) return info.error();
  Unwrapped u;
  u.rep = info->rep;
  u.serializer = info->serializer;
  u.compressor = info->compressor;
  u.payload = stored;
  if (info->compressor == CompressorId::none) return u;

  Status s = ok_status();
  if (info->length_prefix) {
    if (stored.size() < kPrefixBytes) {
      return Error{Errc::bad_length, "compressed value shorter than its 4-byte length prefix"};
    }
    uint32_t len = get_le32(stored.data());
    s = decompress_exact(info->compressor, stored.substr(kPrefixBytes), len, scratch, decoders.inflate);
  } else {
    s = inflate_unknown_size(stored, scratch, kMaxInflatedBytes, decoders.inflate);
  }
  if (!s) return s.error();
  u.payload = scratch;
  return u;
}

}  // namespace hitcost
