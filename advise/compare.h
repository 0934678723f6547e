#pragma once
// `hitcost-corpus compare`: what each strategy would cost on a user's own cached values.
//
// Every value is decoded by its flags (unwrap_value, then decode_tree by the serializer the
// flags name; a value flagged as a plain string is a string tree) into the generic tree. Values
// that do not decode are counted by kind (the Errc name: unknown_flags, decompress_failed,
// parse_error, ...), a few listed, and left out; the run goes on. Each good value is then
// re-encoded under every strategy (encode_tree for struct:*, render_tree_html for html; a
// plain-string value stays a string under every strategy, compressed by the strategy's rule),
// wrapped (wrap_payload), unwrapped and decoded back, and must equal the original tree (html:
// unwrap gives back exactly the rendered bytes). A mismatch is round_trip_mismatch (a codec
// bug); a value the format cannot hold (JSON and a non-UTF-8 string) is cannot_encode.
//
// Measurement, per value, thread CPU (CLOCK_THREAD_CPUTIME_ID): a step is repeated until at
// least min_time_ns of CPU has passed, timed around the loop, divided by the repetitions.
//   decompress  unwrap_value (flags + inflate)          read  = decompress + decode
//   decode      decode_tree (0 for html and plain strings: served as they are)
//   render      render_tree_html of the tree (once per value per round, shared by all rows):
//               what a struct hit pays on top of its read; read+render adds it to rows whose
//               stored form is structured, so html rows compare like with like
//   encode      serialize + wrap_payload (a miss; not measured for "as stored")
// Rounds are interleaved: each round measures every row (and the render) over the whole corpus,
// the row order rotating by one per round, so drift hits all rows alike. A value's figure is its
// median over rounds; the corpus figures are weighted p50/p99/mean over the values. The samples
// of the verdicts are the rounds' weighted means, each row against "as stored" (the baseline,
// named in advance) on the same values, paired by round, with report/verdict.h's rules and
// looks (the sweep's machinery: "costs X×", "the same within 5 %" or undecided), Bonferroni over
// the rows. Without a fixed --rounds the rounds go on until every read+render verdict is
// decided, max_rounds are in hand or max_time is spent.
//
// What a row's figure leaves out: the fetch of its bytes and the write of the page. A row that
// stores more bytes than "as stored" (html: 3-4×) pays more fetch than its figure shows, so its
// ratio is a lower bound; one that stores fewer, an upper bound (CompareRow::bound). The whole
// hit on the same values is hitcost-server --corpus with a sweep of GET /value/{n}.
//
// HitWeighting: by access when every record carries its last access (w = 1 / (1 + age_s), age
// from now_unix_s: with one observed access, the rate a Poisson-accessed key is most likely to
// have is 1/age), otherwise — or when the sample was already drawn by recency — uniform. Stored bytes are the values'
// bytes only (no key, no item overhead); cache bytes are what memcached spends on the items (the slab
// model of CompareOptions::slab: its defaults, or a real memcached's `stats settings`). Single-threaded; the calling
// thread is pinned for the run when pin_cpu >= 0 (its affinity restored afterwards).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/strategy.h"
#include "core/result.h"
#include "corpus/corpus_file.h"
#include "corpus/slab_model.h"
#include "report/verdict.h"

namespace hitcost::corpus {

// A strategy to compare, under the label the user typed (a preset keeps its name).
struct CompareStrategy {
  std::string label;  // "html", "php-default", "struct:json+zlib@php-memcache"
  Strategy strategy;
};
// Parses one --strategy argument: a preset under its own scheme, anything else under `scheme`;
// "<text>@<scheme>" names another scheme. Errors: invalid_argument (parse_strategy's reason).
Result<CompareStrategy> parse_compare_strategy(std::string_view text, FlagScheme scheme);

enum class HitWeighting : uint8_t { automatic, uniform, access };
const char* to_string(HitWeighting) noexcept;

struct CompareOptions {
  std::vector<CompareStrategy> strategies;  // rows after "as stored", in this order
  std::optional<int> rounds;                // exactly this many rounds, one look; unset: until decided
  int min_rounds = 3, max_rounds = 20;      // until decided: the first look, the rounds the error is spent by
  uint64_t max_time_ns = 0;                 // until decided: no new round past this much wall time; 0 = none
  uint64_t min_time_ns = 20'000;            // CPU per timed loop; thread CPU clock reads cost ~0.5 µs
  HitWeighting weighting = HitWeighting::automatic;
  // The corpus was sampled with probability by recency (manifest sampling "recency"): then
  // automatic weighs every value alike, since the sample already leans to the values hit most.
  bool sample_drawn_by_recency = false;
  client::VerdictOptions verdict;
  int pin_cpu = -1;                 // < 0: not pinned
  size_t max_listed_per_kind = 20;  // failures listed per kind (all are counted)
  SlabSettings slab;                // the memcached whose memory a row's values are counted in
};

inline constexpr const char* kAsStoredLabel = "as stored";

struct FailureExample {
  std::string key;
  uint32_t flags = 0;
  std::string reason;
};
struct FailureKind {
  std::string kind;  // an Errc name, "cannot_encode" or "round_trip_mismatch"
  uint64_t count = 0;
  std::vector<FailureExample> listed;  // the first max_listed_per_kind
};

// Weighted over the row's ok values; nanoseconds of thread CPU per hit.
struct CostFigures {
  double p50 = 0, p99 = 0, mean = 0;
};

struct CompareRow {
  std::string label;     // kAsStoredLabel for row 0
  std::string strategy;  // canonical Strategy::name(); "" for as stored
  std::string scheme;    // the flag scheme its values are written under
  bool baseline = false;
  uint64_t values_ok = 0, values_failed = 0;
  std::vector<FailureKind> failures;  // in the order first seen
  uint64_t stored_bytes = 0;          // ok values (as stored: every record, good or not)
  uint64_t baseline_bytes = 0;        // as-stored bytes of this row's ok values
  double bytes_vs_baseline = 0;       // stored_bytes / baseline_bytes (row 0: over good values)
  uint64_t compressed_values = 0;     // ok values stored compressed
  // What memcached spends on them: the slab chunks their items take (corpus/slab_model.h; key,
  // flags and item header included), as stored bytes above; and against as stored's chunks for
  // the same values.
  uint64_t cache_bytes = 0;
  double cache_vs_baseline = 0;
  CostFigures read_ns;         // decompress + decode
  CostFigures read_render_ns;  // read + render for structured stored forms
  double decompress_mean_ns = 0, decode_mean_ns = 0, render_mean_ns = 0;
  std::optional<double> encode_mean_ns;                     // none for as stored
  std::vector<double> round_read_ns, round_read_render_ns;  // per round, weighted means
  // Against as stored on the same values: read+render (the like-for-like figure the table
  // shows) and read alone. None for the baseline row.
  std::optional<client::Verdict> verdict, verdict_read;
  // What the fetch this figure leaves out does to the ratio: "lower bound" when the row stores
  // more than 5 % more bytes than as stored, "upper bound" when 5 % fewer, "" otherwise.
  std::string bound;
};

struct CompareMeasurement {
  std::string clock = "CLOCK_THREAD_CPUTIME_ID";
  int rounds = 0;
  std::string stopped_because;  // until decided: every verdict decided, max rounds, or the time budget
  uint64_t min_time_ns = 0;
  std::string weighting;  // "access (w = 1/(1+age_s))" or "uniform" (+ why)
  uint64_t now_unix_s = 0;
  int pinned_cpu = -1;
  int cpu_at_start = -1, cpu_at_end = -1;  // sched_getcpu()
  double alpha = 0, min_effect = 0;
  double wall_seconds = 0;
  std::string slab_settings;  // where the memory model's settings came from (SlabSettings::source)
};

struct CompareResult {
  std::string scheme;  // the corpus's flag scheme
  uint64_t records = 0, values_good = 0;
  uint64_t good_structured = 0, good_strings = 0;
  CompareMeasurement how;
  std::vector<CompareRow> rows;  // rows[0]: as stored
};

// Runs the comparison on a corpus's records (corpus_file.h; key, flags, value and last access
// are used). `scheme` says what the flags mean (the manifest's scheme). Errors: invalid_argument (rounds < 1, duplicate
// or reserved labels, a CPU that cannot be pinned). Value failures are results, never errors.
Result<CompareResult> run_compare(const std::vector<CorpusRecord>& records, FlagScheme scheme, uint64_t now_unix_s,
                                  const CompareOptions& o);

// Weighted quantile (q in [0, 1]) of (value, weight) pairs: the smallest value whose cumulative
// weight reaches q of the total. Exposed for tests; 0 for an empty or weightless input.
double weighted_quantile(std::vector<std::pair<double, double>> values_weights, double q);

}  // namespace hitcost::corpus
