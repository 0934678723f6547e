#pragma once
// Everything hitcost-server takes on its command line (docs/hitcost-server.md has the defaults).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codecs/decoders.h"

namespace hitcost::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: pick a free port and print it
  int threads = 1;          // io threads, one io_context each
  std::vector<int> cpus;    // pin thread i to cpus[i % size]
  bool reuse_port = false;  // SO_REUSEPORT: several server processes share the port (docs/hitcost-server.md)
  std::string store = "memory";
  bool store_create = false;  // every mmap:/pread: spec may make a new store file (?create=1)
  std::string strategy = "html";
  std::string flags = "php-memcached";
  uint32_t rows = 50;                  // default page size (rows) when ?rows= is absent
  uint32_t max_rows = 10000;           // larger ?rows= is refused (400)
  int64_t max_id = 1'000'000'000'000;  // larger ids are refused (404)
  uint64_t seed = 1;
  double compressibility = 1.0;
  std::string ns = "v1";
  std::string inflate = to_string(kDefaultInflate);           // codecs/inflate.h's rows
  std::string json_decoder = to_string(kDefaultJsonDecoder);  // codecs/decoders.h's rows
  std::optional<uint32_t> threshold;                          // compression rule overrides
  std::optional<double> min_savings, factor;
  uint32_t origin_delay_us = 0;      // simulated backend wait on a miss (sleep, not CPU)
  bool metrics = true;               // per-phase timing and CPU sampling; --no-metrics turns both off
  uint32_t cpu_sample_period = 0;    // sample 1 in N requests' thread CPU; 0 = adaptive (~1 % cost)
  uint32_t header_limit = 8192;      // bytes; larger headers: 431
  uint32_t body_limit = 65536;       // bytes; larger bodies: 413
  uint32_t idle_timeout_ms = 15000;  // a whole request must arrive within this: else 408 / close
  uint32_t drain_timeout_ms = 5000;  // SIGTERM: in-flight requests get this long
  std::string access_log;            // path; "" = no access log (the log mode must stay off)
  uint64_t log_buffer = 0;           // bytes; 0 = one write(2) per line (server/log_mode.h)
  uint32_t log_flush_ms = 1000;      // buffered lines wait at most this long
  std::string log_sync = "none";     // none | each | interval:MS
  bool admin_remote = false;         // allow admin routes from non-loopback peers (needs token)
  std::string admin_token;           // --admin-token, or read from --admin-token-file at start
  std::string admin_token_file;
  bool serve_unredacted = false;     // a corpus that is not redacted, served beyond loopback
  std::string slow_log;                 // threshold duration ("2ms"); "" = no slow log
  std::string slow_log_file;            // one JSON line per slow request; "" = kept in memory only (GET /admin/slow)
  uint32_t slow_log_rate = 100;         // lines per second into the file at most (the rest counted)
  std::string corpus;                   // a hitcost-corpus file whose values GET /value/{n} serves; "" = none
  std::vector<std::string> zstd_dicts;  // --zstd-dict [SCOPE=]FILE, each (codecs/zstd_dictionary.h)
};

// A bad value on the command line found after it parsed (a strategy, a flag scheme, a store
// spec, an address, a thread count): hitcost-server exits 2 for it. Any other exception that
// stops the start (a port taken, a store that cannot be opened) exits 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace hitcost::server
