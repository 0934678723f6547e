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

// Every bit the rows use under php-memcache.
constexpr uint32_t memcache_serializer_bits() {
  uint32_t bits = 0;
  for (const SerializerCodec& c : kSerializerCodecs) bits |= c.php_memcache_flag;
  return bits;
}
constexpr uint32_t memcache_compressor_bits() {
  uint32_t bits = 0;
  for (const CompressorCodec& c : kCompressorCodecs) bits |= c.php_memcache_flag;
  return bits;
}
constexpr uint32_t memcached_method_bits() {
  uint32_t bits = 0;
  for (const CompressorCodec& c : kCompressorCodecs) bits |= c.php_memcached_method;
  return bits;
}
constexpr bool one_bit(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The rows' PHP values must fit the schemes' layouts (FORMATS.md).
constexpr bool rows_fit_the_schemes() {
  for (const SerializerCodec& c : kSerializerCodecs) {
    if (c.php_memcache_flag != 0 && !one_bit(c.php_memcache_flag)) return false;
    if (c.php_memcached_type != 0 && (c.php_memcached_type <= kMdBool || c.php_memcached_type > kMdTypeMask)) {
      return false;  // 0-3 are PHP's string and scalars
    }
  }
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (c.php_memcache_flag != 0 && !one_bit(c.php_memcache_flag)) return false;
    if (c.php_memcached_method != 0 && (!one_bit(c.php_memcached_method) || (c.php_memcached_method & ~0xE0u))) {
      return false;  // methods are bits 5-7
    }
  }
  // php-memcache: the scalar type field and bits 2-7, 12-15 are the extension's.
  constexpr uint32_t reserved = kMcTypeMask | 0xFCu | 0xF000u;
  return (memcache_serializer_bits() & memcache_compressor_bits()) == 0 &&
         ((memcache_serializer_bits() | memcache_compressor_bits()) & reserved) == 0;
}
static_assert(rows_fit_the_schemes());

Result<uint32_t> memcache_flags(Representation rep, SerializerId ser, CompressorId comp) {
  uint32_t f = 0;
  if (rep == Representation::structured) {
    const SerializerCodec* c = find_serializer(ser);
    if (!c || c->php_memcache_flag == 0) {
      return Error{Errc::invalid_argument, "php-memcache: no flag for this serializer"};
    }
    f = c->php_memcache_flag;
  }
  if (comp != CompressorId::none) {
    const CompressorCodec* c = find_compressor(comp);
    if (!c || c->php_memcache_flag == 0) {
      return Error{Errc::invalid_argument, "php-memcache: no flag for this compressor"};
    }
    f |= c->php_memcache_flag;
  }
  return f;
}

Result<uint32_t> memcached_flags(Representation rep, SerializerId ser, CompressorId comp) {
  uint32_t f = kMdString;
  if (rep == Representation::structured) {
    const SerializerCodec* c = find_serializer(ser);
    if (!c) return Error{Errc::invalid_argument, "php-memcached: structured value without a serializer"};
    if (c->php_memcached_type == 0) return Error{Errc::invalid_argument, "php-memcached: no type for this serializer"};
    f = c->php_memcached_type;
  }
  if (comp != CompressorId::none) {
    const CompressorCodec* c = find_compressor(comp);
    if (!c || c->php_memcached_method == 0) {
      return Error{Errc::invalid_argument, "php-memcached: no flag for this compressor (PHP cannot read it)"};
    }
    f |= kMdCompressed | c->php_memcached_method;
  }
  return f;
}

Result<FlagInfo> read_memcache(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::php_memcache;
  constexpr uint32_t serializer_bits = memcache_serializer_bits();
  constexpr uint32_t known = serializer_bits | memcache_compressor_bits() | kMcTypeMask;
  if (f & ~known) return unknown(s, f, "reserved or unknown user bits set");
  FlagInfo info;
  if (f & kMcTypeMask) {
    // Scalars (bool/long/double) are never pages.
    if (f & serializer_bits) return inconsistent(s, f, "scalar type with a serializer");
    return unknown(s, f, "a PHP scalar, not a page");
  }
  int serializers = 0, compressors = 0;
  for (const SerializerCodec& c : kSerializerCodecs) {
    if (c.php_memcache_flag & f) {
      ++serializers;
      info.serializer = c.id;
    }
  }
  if (serializers > 1) return inconsistent(s, f, "more than one serializer");
  info.rep = serializers ? Representation::structured : Representation::html;
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (c.php_memcache_flag & f) {
      ++compressors;
      info.compressor = c.id;  // no length prefix
    }
  }
  if (compressors > 1) return inconsistent(s, f, "more than one compressor");
  return info;
}

Result<FlagInfo> read_memcached(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::php_memcached;
  uint32_t internal = f & ~kMdUserMask;  // user flags belong to the application
  if (internal & 0xFF00) return unknown(s, f, "unknown internal bits 8-15");
  FlagInfo info;
  uint32_t type = internal & kMdTypeMask;
  if (type == kMdLong || type == kMdDouble || type == kMdBool) {
    return unknown(s, f, "a PHP scalar (long/double/bool), not a page");
  }
  if (type != kMdString) {
    for (const SerializerCodec& c : kSerializerCodecs) {
      if (c.php_memcached_type == type) info.serializer = c.id;
    }
    if (info.serializer == SerializerId::none) return unknown(s, f, "unknown type");
    info.rep = Representation::structured;
  }
  uint32_t methods = internal & memcached_method_bits();
  if (!(internal & kMdCompressed)) {
    if (methods) return inconsistent(s, f, "compression method without the compressed bit");
    return info;
  }
  if (methods == 0) return inconsistent(s, f, "compressed bit without a method");
  // The extension tests FastLZ before zlib: with both bits set FastLZ wins.
  const uint32_t fastlz = find_compressor(CompressorId::fastlz)->php_memcached_method;
  if (methods == (fastlz | find_compressor(CompressorId::zlib)->php_memcached_method)) methods = fastlz;
  for (const CompressorCodec& c : kCompressorCodecs) {
    if (c.php_memcached_method == methods) info.compressor = c.id;
  }
  if (info.compressor == CompressorId::none) return inconsistent(s, f, "more than one compression method");
  info.length_prefix = true;
  return info;
}

Result<FlagInfo> read_native(uint32_t f) {
  constexpr FlagScheme s = FlagScheme::native;
  if ((f >> 24) != kNativeMagic) return unknown(s, f, "not a hitcost native value (magic byte is not 0x68)");
  if (((f >> 20) & 0xF) != kNativeVersion) return unknown(s, f, "unsupported native layout version");
  if (f & 0x000FF000) return unknown(s, f, "reserved bits 12-19 set");
  uint32_t comp = (f >> 8) & 0xF, ser = (f >> 4) & 0xF, rep = f & 0xF;
  const auto compressor = static_cast<CompressorId>(comp);
  const auto serializer = static_cast<SerializerId>(ser);
  if (compressor != CompressorId::none && !find_compressor(compressor)) return unknown(s, f, "unknown compressor id");
  if (serializer != SerializerId::none && !find_serializer(serializer)) return unknown(s, f, "unknown serializer id");
  if (rep > 1) return unknown(s, f, "unknown representation");
  FlagInfo info;
  info.rep = rep ? Representation::structured : Representation::html;
  info.serializer = serializer == SerializerId::none ? SerializerId::none : serializer;
  info.compressor = compressor;
  info.length_prefix = info.compressor != CompressorId::none;
  if ((info.rep == Representation::html) != (info.serializer == SerializerId::none)) {
    return inconsistent(s, f, "representation and serializer disagree");
  }
  return info;
}

}  // namespace

Result<uint32_t> make_flags(FlagScheme scheme, Representation rep, SerializerId serializer, CompressorId compressor) {
  if (rep == Representation::html && serializer != SerializerId::none) {
    return Error{Errc::invalid_argument, "html value with a serializer"};
  }
  switch (scheme) {
    case FlagScheme::php_memcache: return memcache_flags(rep, serializer, compressor);
    case FlagScheme::php_memcached: return memcached_flags(rep, serializer, compressor);
    case FlagScheme::native: {
      const SerializerCodec* ser = find_serializer(serializer);
      if (rep == Representation::structured && !ser) {
        return Error{Errc::invalid_argument, "native: structured value without a serializer"};
      }
      if (compressor != CompressorId::none && !find_compressor(compressor)) {
        return Error{Errc::invalid_argument, "native: unknown compressor"};
      }
      // The ids are the rows' ids (4 bits each, codec_table.h checks they fit).
      return (kNativeMagic << 24) | (kNativeVersion << 20) | (static_cast<uint32_t>(compressor) << 8) |
             (ser ? static_cast<uint32_t>(ser->id) << 4 : 0u) | (rep == Representation::structured ? 1u : 0u);
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
