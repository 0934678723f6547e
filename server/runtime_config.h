#pragma once
// What the server does right now: strategy, store, flag scheme, page size, namespace, log mode,
// and which libraries read the bytes that several read alike (inflate, JSON decoder).
// Switchable at run time (POST /admin/config). A config is immutable once published;
// a switch publishes a new one and bumps a generation number. Each io thread keeps
// its own shared_ptr and re-reads it only when the generation changed (one relaxed
// atomic load per request instead of a lock or a shared_ptr copy).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "codecs/decoders.h"
#include "codecs/strategy.h"
#include "core/result.h"
#include "server/log_mode.h"
#include "server/server_options.h"
#include "stores/store.h"

namespace hitcost::server {

struct RuntimeConfig {
  Strategy strategy;
  std::string strategy_text;  // canonical name
  FlagScheme scheme = FlagScheme::php_memcached;
  std::string store_spec;
  std::shared_ptr<Store> store;
  uint32_t rows = 50;
  std::string ns = "v1";  // key namespace
  uint64_t seed = 1;
  double compressibility = 1.0;
  LogMode log;        // off unless the server has an --access-log file
  Decoders decoders;  // which library inflates zlib and decodes JSON (codecs/decoders.h)

  nlohmann::json to_json() const;
};

// Fields a switch may change; unset ones keep their current value.
struct ConfigPatch {
  std::optional<std::string> strategy, store, flags, ns;
  std::optional<InflateLibrary> inflate;
  std::optional<JsonDecoder> json_decoder;
  std::optional<LogMode> log;
  std::optional<uint32_t> rows, threshold;
  std::optional<double> min_savings, factor, compressibility;

  static Result<ConfigPatch> from_json(std::string_view body, uint32_t max_rows);
};

class ConfigHolder {
 public:
  // `log_file`: whether the server writes an access log (a log mode other than off needs one).
  // `stores`: how a switch opens a store (--store-create).
  ConfigHolder(std::shared_ptr<const RuntimeConfig> initial, bool log_file, OpenStoreOptions stores = {});

  std::shared_ptr<const RuntimeConfig> current() const;
  uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }

  // Builds and publishes a new config; the old stays in force on error.
  // Opening a store may block (file open, memcached handle); callers accept that.
  Result<std::shared_ptr<const RuntimeConfig>> apply(const ConfigPatch& patch);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const RuntimeConfig> current_;
  bool log_file_;
  OpenStoreOptions stores_;
  std::atomic<uint64_t> generation_{1};
};

// Per-thread view: refreshed only when the holder's generation moves.
class ConfigView {
 public:
  explicit ConfigView(const ConfigHolder& holder) : holder_(holder) {}
  const RuntimeConfig& get() {
    uint64_t g = holder_.generation();
    if (g != seen_) {
      cached_ = holder_.current();
      seen_ = g;
    }
    return *cached_;
  }

 private:
  const ConfigHolder& holder_;
  std::shared_ptr<const RuntimeConfig> cached_;
  uint64_t seen_ = 0;
};

// The command line's values that need more than CLI11's checks, before anything is opened or
// read: --threads, --port, --host, --flags, --strategy and its rule, the log flags, the --store
// spec's grammar (nothing opened or resolved). Throws UsageError naming the bad value. Reads no
// file and reaches no host: hitcost-server --check-args runs it as a start does.
void check_start_values(const ServerOptions& opts);

// Builds a config from the command line (start-up); throws UsageError for a bad value (flags,
// strategy, store spec, log mode) and std::runtime_error for a store that cannot be opened.
std::shared_ptr<const RuntimeConfig> make_initial_config(const ServerOptions& opts);

}  // namespace hitcost::server
