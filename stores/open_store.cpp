// open_store: the command-line grammar of store.h, with errors that name the bad part.
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "stores/memcached_store.h"
#include "stores/memory_store.h"
#include "stores/mmap_store.h"
#include "stores/pread_store.h"
#include "stores/store.h"

namespace hitcost {
namespace {

Error bad(std::string_view spec, const std::string& why) {
  return Error{Errc::invalid_argument, "store spec '" + std::string(spec) + "': " + why};
}

using Params = std::vector<std::pair<std::string, std::string>>;

// Splits "a=1&b=2"; every key must be in `allowed`.
Result<Params> parse_query(std::string_view spec, std::string_view q, std::initializer_list<std::string_view> allowed) {
  Params out;
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view item = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return bad(spec, "expected key=value, got '" + std::string(item) + "'");
    std::string key(item.substr(0, eq));
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (!ok) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return bad(spec, "unknown option '" + key + "' (known: " + list + ")");
    }
    out.emplace_back(std::move(key), std::string(item.substr(eq + 1)));
  }
  return out;
}

Result<uint64_t> parse_uint(std::string_view spec, const std::string& key, std::string_view v) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p != v.data() + v.size() || v.empty())
    return bad(spec, key + "=" + std::string(v) + " is not a non-negative integer");
  return n;
}

Result<bool> parse_bool(std::string_view spec, const std::string& key, std::string_view v) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return bad(spec, key + "=" + std::string(v) + " is not 0/1");
}

}  // namespace

// "256M", "64K", "1G", "4096", "512MiB", "2GB": binary multiples.
Result<uint64_t> parse_size(std::string_view v) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p == v.data()) return Error{Errc::invalid_argument, "bad size '" + std::string(v) + "'"};
  std::string unit(v.substr(static_cast<size_t>(p - v.data())));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t mul = 0;
  if (unit.empty() || unit == "b")
    mul = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    mul = 1ull << 10;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    mul = 1ull << 20;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    mul = 1ull << 30;
  if (mul == 0) return Error{Errc::invalid_argument, "bad size unit in '" + std::string(v) + "'"};
  if (n > UINT64_MAX / mul) return Error{Errc::invalid_argument, "size overflows"};
  return n * mul;
}

namespace {

Result<MemoryStoreOptions> parse_memory(std::string_view spec, std::string_view mode, std::string_view query) {
  MemoryStoreOptions o;
  if (mode == "objects")
    o.objects = true;
  else if (!mode.empty() && mode != "bytes")
    return bad(spec, "memory mode must be 'bytes' or 'objects'");
  auto params = parse_query(spec, query, {"size"});
  if (!params) return params.error();
  for (auto& [k, v] : *params) {
    auto n = parse_size(v);
    if (!n) return bad(spec, n.error().message);
    o.size = *n;
  }
  return o;
}

// Every address HOST has, as numeric text, sorted and without repeats: the nodes of
// resolve=all. A name with several A/AAAA records is several memcached servers, as a
// scaled compose service is (`--scale mc=5`: Docker's DNS answers `mc` with every replica).
// Sorted, so that the same set of replicas gives the same ring in every process.
Result<std::vector<std::string>> resolve_all(std::string_view spec, const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
    return bad(spec, "resolve=all: cannot resolve '" + host + "': " + ::gai_strerror(rc));
  std::vector<std::string> out;
  for (addrinfo* a = found; a; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* addr = a->ai_family == AF_INET6
                           ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
                           : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr);
    if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) && ::inet_ntop(a->ai_family, addr, text, sizeof text))
      out.emplace_back(text);
  }
  ::freeaddrinfo(found);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) return bad(spec, "resolve=all: '" + host + "' has no IPv4 or IPv6 address");
  return out;
}

// resolve_names false (check_store_spec): resolve=all is taken as written, no name resolved.
Result<MemcachedOptions> parse_memcached(std::string_view spec, std::string_view nodes, std::string_view query,
                                         bool resolve_names) {
  MemcachedOptions o;
  while (!nodes.empty()) {
    size_t comma = nodes.find(',');
    std::string_view node = nodes.substr(0, comma);
    nodes = comma == std::string_view::npos ? std::string_view{} : nodes.substr(comma + 1);
    std::string_view host, port;
    if (!node.empty() && node.front() == '[') {  // [v6]:port
      size_t close = node.find(']');
      if (close == std::string_view::npos || close + 1 >= node.size() || node[close + 1] != ':')
        return bad(spec, "bad node '" + std::string(node) + "' (want [ADDR]:PORT)");
      host = node.substr(1, close - 1);
      port = node.substr(close + 2);
    } else {
      size_t colon = node.rfind(':');
      if (colon == std::string_view::npos || colon == 0)
        return bad(spec, "bad node '" + std::string(node) + "' (want HOST:PORT)");
      host = node.substr(0, colon);
      port = node.substr(colon + 1);
    }
    auto p = parse_uint(spec, "port", port);
    if (!p) return p.error();
    if (*p == 0 || *p > 65535) return bad(spec, "port out of range in '" + std::string(node) + "'");
    o.nodes.emplace_back(std::string(host), static_cast<int>(*p));
  }
  if (o.nodes.empty()) return bad(spec, "no memcached nodes (want memcached:HOST:PORT[,...])");
  auto params = parse_query(spec, query,
                            {"timeout_ms", "connect_timeout_ms", "retry_timeout_s", "retry_timeout_ms", "failure_limit",
                             "binary", "eject", "resolve"});
  if (!params) return params.error();
  for (auto& [k, v] : *params) {
    if (k == "resolve") {
      if (v != "all" && v != "first") return bad(spec, "resolve must be 'first' (libmemcached's) or 'all'");
      if (v == "first" || !resolve_names) continue;
      std::vector<std::pair<std::string, int>> expanded;
      for (const auto& [host, port] : o.nodes) {
        auto addrs = resolve_all(spec, host);
        if (!addrs) return addrs.error();
        for (auto& a : *addrs) expanded.emplace_back(std::move(a), port);
      }
      o.nodes = std::move(expanded);
      continue;
    }
    if (k == "binary" || k == "eject") {
      auto b = parse_bool(spec, k, v);
      if (!b) return b.error();
      (k == "binary" ? o.binary : o.eject) = *b;
      continue;
    }
    auto n = parse_uint(spec, k, v);
    if (!n) return n.error();
    if (*n > 600000) return bad(spec, k + " is absurdly large");
    int iv = static_cast<int>(*n);
    if (k == "timeout_ms")
      o.timeout_ms = iv;
    else if (k == "connect_timeout_ms")
      o.connect_timeout_ms = iv;
    else if (k == "retry_timeout_s")
      o.retry_timeout_s = iv;
    else if (k == "retry_timeout_ms")
      o.retry_timeout_ms = iv;
    else
      o.failure_limit = iv;
  }
  if (o.timeout_ms == 0 || o.connect_timeout_ms == 0) return bad(spec, "timeouts must be at least 1 ms");
  return o;
}

Result<FileStoreOptions> parse_file(std::string_view spec, bool mmap, std::string_view path, std::string_view query,
                                    const OpenStoreOptions& how) {
  if (path.empty()) return bad(spec, "missing file path");
  FileStoreOptions o;
  o.path = std::string(path);
  o.create = how.create_files;
  std::initializer_list<std::string_view> mmap_keys = {"size", "advise", "populate", "sync", "cold", "create"};
  std::initializer_list<std::string_view> pread_keys = {"size", "advise", "sync", "cold", "create"};
  auto params = parse_query(spec, query, mmap ? mmap_keys : pread_keys);
  if (!params) return params.error();
  for (auto& [k, v] : *params) {
    if (k == "size") {
      auto n = parse_size(v);
      if (!n) return bad(spec, n.error().message);
      if (*n < kMinRingBytes) return bad(spec, "size must be at least 64K");
      if (*n > kMaxRingBytes) return bad(spec, "size must be at most " + std::to_string(kMaxRingBytes) + " bytes");
      o.size = storefile::align_up(*n);  // cannot wrap: kMaxRingBytes is aligned and far below 2^64
      o.size_given = true;
    } else if (k == "advise") {
      if (v == "random")
        o.advise = Advice::random;
      else if (v == "sequential")
        o.advise = Advice::sequential;
      else if (v == "willneed")
        o.advise = Advice::willneed;
      else if (v == "normal")
        o.advise = Advice::normal;
      else
        return bad(spec, "advise must be random|sequential|willneed|normal");
    } else if (k == "sync") {
      // 0/1: what sync= took before it had policies.
      auto p = SyncPolicy::parse(v == "0" ? "none" : v == "1" ? "each" : std::string_view(v));
      if (!p) return bad(spec, p.error().message);  // "sync policy 'X': why (none | ...)"
      o.sync = *p;
    } else {
      auto b = parse_bool(spec, k, v);
      if (!b) return b.error();
      if (k == "create")
        o.create = o.create || *b;  // --store-create holds for every file spec
      else
        (k == "populate" ? o.populate : o.cold) = *b;
    }
  }
  return o;
}

// A spec read into its backend's options: the whole grammar, nothing opened.
struct StoreSpec {
  enum class Kind { memory, memcached, mmap, pread } kind = Kind::memory;
  MemoryStoreOptions memory;
  MemcachedOptions memcached;
  FileStoreOptions file;
};

template <class T>
Result<StoreSpec> with(Result<T> options, StoreSpec::Kind kind, T StoreSpec::*member) {
  if (!options) return options.error();
  StoreSpec s;
  s.kind = kind;
  s.*member = std::move(options).value();
  return s;
}

Result<StoreSpec> parse_spec(std::string_view spec, const OpenStoreOptions& how, bool resolve_names) {
  using Kind = StoreSpec::Kind;
  std::string_view body = spec, query;
  if (size_t q = spec.find('?'); q != std::string_view::npos) {
    body = spec.substr(0, q);
    query = spec.substr(q + 1);
  }
  size_t colon = body.find(':');
  std::string_view kind = body.substr(0, colon);
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : body.substr(colon + 1);
  if (kind == "memory") return with(parse_memory(spec, rest, query), Kind::memory, &StoreSpec::memory);
  if (kind == "memcached")
    return with(parse_memcached(spec, rest, query, resolve_names), Kind::memcached, &StoreSpec::memcached);
  if (kind == "mmap") return with(parse_file(spec, true, rest, query, how), Kind::mmap, &StoreSpec::file);
  if (kind == "pread") return with(parse_file(spec, false, rest, query, how), Kind::pread, &StoreSpec::file);
  return bad(spec, "unknown store kind '" + std::string(kind) + "' (want memory, memcached, mmap or pread)");
}

template <class S>
Result<std::unique_ptr<Store>> as_store(Result<std::unique_ptr<S>> opened) {
  if (!opened) return opened.error();
  return std::unique_ptr<Store>(std::move(opened).value());
}

}  // namespace

Result<std::unique_ptr<Store>> open_store(std::string_view spec, const OpenStoreOptions& how) {
  auto s = parse_spec(spec, how, true);
  if (!s) return s.error();
  switch (s->kind) {
    case StoreSpec::Kind::memory: return std::unique_ptr<Store>(std::make_unique<MemoryStore>(s->memory));
    case StoreSpec::Kind::memcached: return as_store(MemcachedStore::open(std::move(s->memcached)));
    case StoreSpec::Kind::mmap: return as_store(MmapStore::open(std::move(s->file)));
    case StoreSpec::Kind::pread: return as_store(PreadStore::open(std::move(s->file)));
  }
  return bad(spec, "unknown store kind");  // not reached: every kind is a case above
}

Status check_store_spec(std::string_view spec) {
  auto s = parse_spec(spec, {}, false);
  if (!s) return s.error();
  return ok_status();
}

}  // namespace hitcost
