#include "codecs/zstd_dictionary.h"

#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <sstream>

#include "codecs/strategy.h"

namespace hitcost {
namespace {

constexpr uint32_t kDictionaryMagic = 0xEC30A437;  // RFC 8878 §5: a zstd dictionary's first 4 bytes (LE)

struct Entry {
  std::string bytes;
  ZSTD_DDict* ddict = nullptr;
  std::map<int, ZSTD_CDict*> cdicts;  // by level, made on first use (under the registry's lock)
  ~Entry() {
    ZSTD_freeDDict(ddict);
    for (auto& [level, c] : cdicts) ZSTD_freeCDict(c);
  }
};

struct Registry {
  std::shared_mutex mu;
  std::map<uint32_t, std::unique_ptr<Entry>> by_id;
  std::map<std::string, uint32_t, std::less<>> writer;  // scope -> id
};

Registry& registry() {
  static Registry r;  // never destroyed before threads that read it: function-local static
  return r;
}

bool known_scope(std::string_view scope) {
  if (scope.empty() || scope == "html") return true;
  if (!scope.starts_with("struct:")) return false;
  return find_serializer(scope.substr(7)) != nullptr;
}

std::string scope_words() {
  std::string s = "'' (every form), html";
  for (const SerializerCodec& c : kSerializerCodecs) s += std::string(", struct:") + c.name;
  return s;
}

}  // namespace

std::string dictionary_scope(bool html, SerializerId serializer) {
  return html ? std::string("html") : std::string("struct:") + to_string(serializer);
}

Result<uint32_t> register_zstd_dictionary(std::string_view bytes, std::string_view scope) {
  if (!known_scope(scope))
    return Error{Errc::invalid_argument,
                 "zstd dictionary: unknown scope '" + std::string(scope) + "' (" + scope_words() + ")"};
  uint32_t magic = 0;
  if (bytes.size() >= 8) std::memcpy(&magic, bytes.data(), 4);
  if (bytes.size() < 8 || magic != kDictionaryMagic)
    return Error{Errc::invalid_argument,
                 "not a zstd dictionary (" + std::to_string(bytes.size()) + " bytes without the magic EC30A437)"};
  const unsigned id = ZDICT_getDictID(bytes.data(), bytes.size());
  if (id == 0) return Error{Errc::invalid_argument, "zstd dictionary with id 0: frames cannot name it"};
  Registry& r = registry();
  std::unique_lock lock(r.mu);
  auto it = r.by_id.find(id);
  if (it != r.by_id.end()) {
    if (it->second->bytes != bytes)
      return Error{Errc::invalid_argument, "another zstd dictionary with id " + std::to_string(id) +
                                               " is already loaded: a frame could not tell them apart"};
  } else {
    auto e = std::make_unique<Entry>();
    e->bytes.assign(bytes);
    e->ddict = ZSTD_createDDict(e->bytes.data(), e->bytes.size());
    if (!e->ddict) return Error{Errc::invalid_argument, "zstd dictionary " + std::to_string(id) + " is corrupt"};
    it = r.by_id.emplace(id, std::move(e)).first;
  }
  r.writer[std::string(scope)] = id;
  return static_cast<uint32_t>(id);
}

Result<uint32_t> load_zstd_dictionary_file(const std::string& path, std::string_view scope) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{Errc::io_error, "zstd dictionary " + path + ": " + std::strerror(errno)};
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Error{Errc::io_error, "zstd dictionary " + path + ": read failed"};
  std::string bytes = std::move(buf).str();
  if (bytes.empty()) return Error{Errc::io_error, "zstd dictionary " + path + ": empty file"};
  auto id = register_zstd_dictionary(bytes, scope);
  if (!id) return Error{id.error().code, "zstd dictionary " + path + ": " + id.error().message};
  return id;
}

Result<DictionaryOption> parse_dictionary_option(std::string_view option) {
  // A path may hold '=' too; a scope never holds '/', so "SCOPE=" is a prefix without one.
  DictionaryOption d{{}, std::string(option)};
  if (auto eq = option.find('=');
      eq != std::string_view::npos && option.substr(0, eq).find('/') == std::string_view::npos) {
    d.scope = option.substr(0, eq);
    d.path = option.substr(eq + 1);
  }
  if (!known_scope(d.scope))
    return Error{Errc::invalid_argument,
                 std::string("'").append(option) + "': unknown scope '" + d.scope + "' (" + scope_words() + ")"};
  if (d.path.empty()) return Error{Errc::invalid_argument, std::string("'").append(option) + "': no file"};
  return d;
}

Status zstd_dictionary_ready(std::string_view scope) {
  if (zstd_dictionary_for(scope) != 0) return ok_status();
  return Error{Errc::invalid_argument, "zstd-dict: no zstd dictionary is loaded for " + std::string(scope) +
                                           " (load one with --zstd-dict " + std::string(scope) +
                                           "=FILE, or --zstd-dict FILE for every form)"};
}

Status strategy_dictionary_ready(const Strategy& strategy) {
  if (!strategy.dictionary || strategy.dictionary_id != 0) return ok_status();
  return zstd_dictionary_ready(strategy.dictionary_scope());
}

uint32_t zstd_dictionary_for(std::string_view scope) {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  if (auto it = r.writer.find(scope); it != r.writer.end()) return it->second;
  if (auto it = r.writer.find(std::string_view{}); it != r.writer.end()) return it->second;
  return 0;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string s;
  for (const std::string& scope : scopes)
    s += (s.empty() ? "" : ", ") + (scope.empty() ? std::string("every form") : scope);
  return s;
}

std::vector<ZstdDictionaryInfo> zstd_dictionaries() {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  std::vector<ZstdDictionaryInfo> out;
  for (const auto& [id, e] : r.by_id) {
    ZstdDictionaryInfo info{id, e->bytes.size(), {}};
    for (const auto& [scope, writer] : r.writer)
      if (writer == id) info.writes_for.push_back(scope);
    out.push_back(std::move(info));
  }
  return out;
}

Status zstd_compress_with_dictionary(uint32_t id, int level, std::string_view in, std::string& out) {
  const ZSTD_CDict* cdict = nullptr;
  if (id != 0) {
    Registry& r = registry();
    std::unique_lock lock(r.mu);  // a CDict per level is made at most once
    auto it = r.by_id.find(id);
    if (it == r.by_id.end())
      return Error{Errc::invalid_argument, "zstd: dictionary " + std::to_string(id) + " is not loaded"};
    Entry& e = *it->second;
    ZSTD_CDict*& c = e.cdicts[level];
    if (!c) c = ZSTD_createCDict(e.bytes.data(), e.bytes.size(), level);
    if (!c) return Error{Errc::invalid_argument, "zstd: cannot digest dictionary " + std::to_string(id)};
    cdict = c;
  }
  // One context per thread (creating one costs more than compressing a small page).
  // The frame carries its content size and a checksum (4 bytes): zstd has no checksum
  // by default, and a flipped bit must not become a silently different page.
  struct Ctx {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ~Ctx() { ZSTD_freeCCtx(c); }
  };
  thread_local Ctx ctx;
  if (!ctx.c) return Error{Errc::invalid_argument, "zstd: cannot create a context"};
  ZSTD_CCtx_reset(ctx.c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(ctx.c, ZSTD_c_checksumFlag, 1);
  if (cdict)
    ZSTD_CCtx_refCDict(ctx.c, cdict);  // its level is the CDict's
  else
    ZSTD_CCtx_setParameter(ctx.c, ZSTD_c_compressionLevel, level);
  size_t at = out.size();
  size_t bound = ZSTD_compressBound(in.size());
  out.resize(at + bound);
  size_t n = ZSTD_compress2(ctx.c, out.data() + at, bound, in.data(), in.size());
  if (cdict) ZSTD_CCtx_refCDict(ctx.c, nullptr);
  if (ZSTD_isError(n)) return Error{Errc::invalid_argument, std::string("zstd: ") + ZSTD_getErrorName(n)};
  out.resize(at + n);
  return ok_status();
}

const void* zstd_ddict(uint32_t id) {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : it->second->ddict;  // entries are never removed
}

Result<std::string> train_zstd_dictionary(const std::vector<std::string_view>& samples, size_t capacity) {
  if (samples.empty()) return Error{Errc::invalid_argument, "zstd dictionary: no samples to train on"};
  std::string joined;
  std::vector<size_t> sizes;
  sizes.reserve(samples.size());
  for (std::string_view s : samples) {
    joined.append(s);
    sizes.push_back(s.size());
  }
  std::string dict(capacity, '\0');
  size_t n =
      ZDICT_trainFromBuffer(dict.data(), dict.size(), joined.data(), sizes.data(), static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(n))
    return Error{Errc::invalid_argument, std::string("zstd dictionary: ") + ZDICT_getErrorName(n) + " (" +
                                             std::to_string(samples.size()) + " samples, " +
                                             std::to_string(joined.size()) + " bytes)"};
  dict.resize(n);
  return dict;
}

size_t default_dictionary_capacity(size_t sample_bytes) {
  constexpr size_t kZstdDefault = 112640, kMin = 1024;
  return std::max(kMin, std::min(kZstdDefault, sample_bytes / 10));
}

}  // namespace hitcost
