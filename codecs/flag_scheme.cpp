#include "codecs/flag_scheme.h"

#include <cstdio>
#include <string>

namespace hitcost {
namespace {

using namespace flags;

std::string hex(uint32_t f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", f);
  return buf;
}

Error unknown(FlagScheme s, uint32_t f, const char* why) {
  return Error{Errc::unknown_flags, std::string(to_string(s)) + " flags " + hex(f) + ": " + why};
}
Error inconsistent(FlagScheme s, uint32_t f, const char* why) {
  return Error{Errc::inconsistent_flags, std::string(to_string(s)) + " flags " + hex(f) + ": " + why};
}

// SerializerId::simdjson stores the same JSON bytes as json.
SerializerId stored_serializer(SerializerId s) { return s == SerializerId::simdjson ? SerializerId::json : s; }

Result<uint32_t> memcache_flags(Representation rep, SerializerId ser, CompressorId comp) {
  uint32_t f = 0;
  if (rep == Representation::structured) {
    switch (stored_serializer(ser)) {
      case SerializerId::php: f = kMcSerialized; break;
      case SerializerId::json: f = kMcUserJson; break;
      case SerializerId::msgpack: f = kMcUserMsgpack; break;
      default: return Error{Errc::invalid_argument, "php-memcache: no flag for this serializer"};
    }
  }
  if (comp == CompressorId::zlib) f |= kMcCompressed;
  else if (comp != CompressorId::none) return Error{Errc::invalid_argument, "php-memcache: only zlib compression"};
  return f;
}

Result<uint32_t> memcached_flags(Representation rep, SerializerId ser, CompressorId comp) {
  uint32_t f = kMdString;
  if (rep == Representation::structured) {
    switch (stored_serializer(ser)) {
      case SerializerId::php: f = kMdSerialized; break;
      case SerializerId::json: f = kMdJson; break;
      case SerializerId::msgpack: f = kMdMsgpack; break;
      case SerializerId::igbinary: f = kMdIgbinary; break;
      default: return Error{Errc::invalid_argument, "php-memcached: structured value without a serializer"};
    }
  }
  if (comp == CompressorId::zlib) f |= kMdCompressed | kMdZlib;
  else if (comp == CompressorId::zstd) f |= kMdCompressed | kMdZstd;
  else if (comp == CompressorId::fastlz) f |= kMdCompressed | kMdFastlz;
  else if (comp != CompressorId::none) return Error{Errc::invalid_argument, "php-memcached: lz4 not readable by PHP"};
  return f;
}

Result<FlagInfo> read_memcache(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::php_memcache;
  constexpr uint32_t known = kMcSerialized | kMcCompressed | kMcTypeMask | kMcUserJson | kMcUserMsgpack;
  if (f & ~known) return unknown(s, f, "reserved or unknown user bits set");
  FlagInfo info;
  if (f & kMcTypeMask) {
    // Scalars (bool/long/double) are never pages.
    if (f & (kMcSerialized | kMcUserJson | kMcUserMsgpack)) return inconsistent(s, f, "scalar type with a serializer");
    return unknown(s, f, "a PHP scalar, not a page");
  }
  int serializers = !!(f & kMcSerialized) + !!(f & kMcUserJson) + !!(f & kMcUserMsgpack);
  if (serializers > 1) return inconsistent(s, f, "more than one serializer");
  if (f & kMcSerialized) info.serializer = SerializerId::php;
  if (f & kMcUserJson) info.serializer = SerializerId::json;
  if (f & kMcUserMsgpack) info.serializer = SerializerId::msgpack;
  info.rep = serializers ? Representation::structured : Representation::html;
  if (f & kMcCompressed) info.compressor = CompressorId::zlib;  // no length prefix
  return info;
}

Result<FlagInfo> read_memcached(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::php_memcached;
  uint32_t internal = f & ~kMdUserMask;  // user flags belong to the application
  if (internal & 0xFF00) return unknown(s, f, "unknown internal bits 8-15");
  FlagInfo info;
  switch (internal & kMdTypeMask) {
    case kMdString: info.rep = Representation::html; break;
    case kMdSerialized: info.serializer = SerializerId::php; break;
    case kMdJson: info.serializer = SerializerId::json; break;
    case kMdMsgpack: info.serializer = SerializerId::msgpack; break;
    case kMdIgbinary: info.serializer = SerializerId::igbinary; break;
    case 1: case 2: case 3: return unknown(s, f, "a PHP scalar (long/double/bool), not a page");
    default: return unknown(s, f, "unknown type");
  }
  if (info.serializer != SerializerId::none) info.rep = Representation::structured;
  uint32_t methods = internal & (kMdZlib | kMdFastlz | kMdZstd);
  if (!(internal & kMdCompressed)) {
    if (methods) return inconsistent(s, f, "compression method without the compressed bit");
    return info;
  }
  if (methods & kMdFastlz) {
    if (methods & kMdZstd) return inconsistent(s, f, "FastLZ and zstd both set");
    info.compressor = CompressorId::fastlz;  // with 0x20 too: FastLZ wins, as in the extension
  } else if (methods == kMdZlib) info.compressor = CompressorId::zlib;
  else if (methods == kMdZstd) info.compressor = CompressorId::zstd;
  else if (methods == 0) return inconsistent(s, f, "compressed bit without a method");
  else return inconsistent(s, f, "more than one compression method");
  info.length_prefix = true;
  return info;
}

Result<FlagInfo> read_native(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::native;
  if ((f >> 24) != kNativeMagic) return unknown(s, f, "not a hitcost native value (magic byte is not 0x68)");
  if (((f >> 20) & 0xF) != kNativeVersion) return unknown(s, f, "unsupported native layout version");
  if (f & 0x000FF000) return unknown(s, f, "reserved bits 12-19 set");
  uint32_t comp = (f >> 8) & 0xF, ser = (f >> 4) & 0xF, rep = f & 0xF;
  if (comp > static_cast<uint32_t>(CompressorId::fastlz)) return unknown(s, f, "unknown compressor id");
  if (ser > static_cast<uint32_t>(SerializerId::igbinary)) return unknown(s, f, "unknown serializer id");
  if (rep > 1) return unknown(s, f, "unknown representation");
  FlagInfo info;
  info.rep = rep ? Representation::structured : Representation::html;
  info.serializer = stored_serializer(static_cast<SerializerId>(ser));
  info.compressor = static_cast<CompressorId>(comp);
  info.length_prefix = info.compressor != CompressorId::none;
  if ((info.rep == Representation::html) != (info.serializer == SerializerId::none)) {
    return inconsistent(s, f, "representation and serializer disagree");
  }
  return info;
}

}  // namespace

Result<uint32_t> make_flags(FlagScheme scheme, Representation rep, SerializerId serializer,
                            CompressorId compressor) {
  if (rep == Representation::html && serializer != SerializerId::none) {
    return Error{Errc::invalid_argument, "html value with a serializer"};
  }
  switch (scheme) {
    case FlagScheme::php_memcache: return memcache_flags(rep, serializer, compressor);
    case FlagScheme::php_memcached: return memcached_flags(rep, serializer, compressor);
    case FlagScheme::native: {
      if (rep == Representation::structured && serializer == SerializerId::none) {
        return Error{Errc::invalid_argument, "native: structured value without a serializer"};
      }
      return (kNativeMagic << 24) | (kNativeVersion << 20) | (static_cast<uint32_t>(compressor) << 8) |
             (static_cast<uint32_t>(stored_serializer(serializer)) << 4) |
             (rep == Representation::structured ? 1u : 0u);
    }
  }
  return Error{Errc::invalid_argument, "unknown flag scheme"};
}

Result<FlagInfo> read_flags(FlagScheme scheme, uint32_t f) {
  switch (scheme) {
    case FlagScheme::php_memcache: return read_memcache(f);
    case FlagScheme::php_memcached: return read_memcached(f);
    case FlagScheme::native: return read_native(f);
  }
  return Error{Errc::invalid_argument, "unknown flag scheme"};
}

}  // namespace hitcost
