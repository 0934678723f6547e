#pragma once
// sample(): what `hitcost-corpus sample` does. Lists the keys of one or more running memcached
// nodes (lru_crawler metadump all, or a key file), picks a sample, fetches it with `get` and
// writes it as a corpus file (corpus/corpus_file.h). It never writes to the source: the only
// commands sent are metadump, get, stats and version (corpus/memcached_text.h).
//
// The sample is an order over the eligible keys (sorted by node and key first: the dump's own
// order is the LRU's, which every read changes), fetched from its front until `count` values
// are in or the next value would pass the byte budget; a key gone by the time of its `get` (or
// a value over max_value_bytes) is counted and the next in the order takes its place.
//   uniform: a seeded Fisher-Yates shuffle (mt19937_64 and rejection sampling: the same seed
//            gives the same order on every platform).
//   recency: weighted sampling without replacement (Efraimidis-Spirakis): each key draws
//            u in (0,1) and ranks by u^(1/w), w = 1/(1 + age_s), age_s = now - last access
//            (clamped at 0). With a key file there are no access times: refused.
// Keys listed by several nodes stay separate candidates, each fetched from its own node; a
// key-file key is asked of every node in order and recorded from the first that has it.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "corpus/corpus_file.h"

namespace hitcost::corpus {

enum class Weighting : uint8_t { uniform, recency };
const char* to_string(Weighting) noexcept;
// "uniform" | "recency"; invalid_argument otherwise.
Result<Weighting> parse_weighting(std::string_view text);

struct SampleOptions {
  std::vector<std::string> nodes;  // host:port, at least one; the index is CorpusRecord::node
  std::string key_file;            // one key per line instead of the dump ("" = dump)
  // Or the keys themselves (record --values: the most-read keys of a recording), and what they
  // are, for the manifest's notes. Taken when not empty; not with key_file.
  std::vector<std::string> keys;
  std::string keys_note;
  std::string output_path;  // the corpus file (written through PATH.tmp)
  uint64_t count = 1000;
  uint64_t byte_budget = 256ull << 20;    // sum of sampled value bytes
  uint64_t max_value_bytes = 1ull << 20;  // larger values skipped, counted too_large
  Weighting weighting = Weighting::uniform;
  uint64_t seed = 1;
  int64_t now_unix_s = 0;                // ages are taken against this; 0 = the clock
  std::string scheme = "php-memcached";  // what the user says the flags mean (manifest only)
  int connect_timeout_ms = 2000;
  int io_timeout_ms = 5000;  // per send/recv: a frozen node gives Errc::timeout
  // --redact: applied to each fetched record before it is written (so the raw value never
  // reaches the disk); a record it refuses is left out, counted by error kind in the manifest,
  // and the next key in the order takes its place.
  std::function<Result<CorpusRecord>(const CorpusRecord&)> redact;
  // For tests: called once the keys are listed, before the first get.
  std::function<void()> after_listing;
};

struct SampleProgress {
  uint64_t keys_listed = 0;
  uint64_t values_fetched = 0;  // written to the corpus
  uint64_t value_bytes = 0;
  uint64_t gone = 0;
  uint64_t too_large = 0;
  bool done = false;  // the last call
};
using SampleProgressFn = std::function<void(const SampleProgress&)>;

struct SampleResult {
  Manifest manifest;  // as written in the file's footer
  std::string path;
};

// Errors: invalid_argument (options), connection/timeout/server_error (a node, named),
// io_error (the key file or the corpus file; no corpus file is left behind).
// `progress` (may be empty) is called about once a second, and once at the end with done.
Result<SampleResult> sample(const SampleOptions& options, const SampleProgressFn& progress = {});

// The sampling order alone (exposed for tests): indices into `last_access_unix_s`, most
// wanted first; all of them for uniform, all of them for recency (ranked by u^(1/w)).
std::vector<size_t> sample_order(const std::vector<int64_t>& last_access_unix_s, Weighting weighting, uint64_t seed,
                                 int64_t now_unix_s);

}  // namespace hitcost::corpus
