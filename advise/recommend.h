#pragma once
// `hitcost-corpus recommend`: what to store, decided on the front of CPU per hit against cache
// memory, on a user's own values.
//
// The space, under the corpus's own flag scheme (so the application keeps reading its cache):
// every representation (html, struct:<each serializer>) × every compressor the scheme can say at
// the levels people use (none; zlib 1/6/9; zstd 1/3/9/19; lz4 and LZ4HC; FastLZ by size as PHP
// writes it, and level 2; zstd 1/3/9 with a dictionary trained on the representation's payloads
// of every fifth value, those values then left out of every figure) × the compression threshold (0 and every power of
// two from 64 B up to the largest value, and the scheme's default), each with the scheme's keep rule (php-memcached:
// plain > packed × 1.3; php-memcache: 20 % saving).
//
// Two stages, so that picking the best of hundreds does not bias the figure it is sold with:
//   search   a few interleaved rounds (default 3) over every (representation, compressor, level)
//            "form": per value and round, the decode of its plain payload, the unwrap of its
//            plain and its compressed bytes, and the render of the tree. A candidate's cost per
//            value is derived, not re-timed: a value it compresses (keeps_compressed with the
//            candidate's threshold, the very rule wrap_payload applies) pays the compressed
//            unwrap, the others the plain one, plus the decode and, stored structured, the
//            render. Its memory is the slab model's (corpus/slab_model.h) on the value's key,
//            stored bytes and flags. After each round but the last a candidate dominated by
//            another — no more memory and, on the rounds so far, more than 10 % less CPU — is
//            dropped (a candidate PHP writes only by another PHP writes); a form none of whose candidates are left is
//            not measured again (the output says how many, after which round).
//   confirm  the candidates to decide between (the best few of the front by score, the best one
//            PHP can write, today's form) are measured again, afresh, by run_compare: encoded
//            anew, round-tripped, timed in interleaved rounds until the verdicts against "as
//            stored" are decided (report/verdict.h). Its stored bytes must equal the search's
//            (else a codec bug: an error, never a figure).
//
// The score of a candidate is cpu_ratio + memory_weight × memory_ratio (both against today's,
// memory as chunk bytes); the recommendation is the lowest-scoring confirmed candidate whose CPU
// verdict is decided, and only if it scores below today's (1 + memory_weight). CPU is weighted by
// hits (CompareOptions' weighting); memory counts every value alike.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "advise/compare.h"
#include "advise/recommend_space.h"
#include "codecs/strategy.h"
#include "core/result.h"
#include "corpus/corpus_file.h"
#include "corpus/slab_model.h"
#include "report/verdict.h"

namespace hitcost::corpus {

struct Candidate {
  std::string name;          // "struct:igbinary+zstd:3, threshold 512 B", "struct:igbinary", "html+zlib, threshold 0 B"
  Strategy strategy;         // with its threshold in strategy.rule
  bool compressing = false;  // a compressor and a threshold: false for the plain forms
  uint64_t values_ok = 0, values_failed = 0;  // values it cannot hold (JSON and bytes) fail
  uint64_t compressed_values = 0;
  uint64_t stored_bytes = 0;                 // the values' bytes
  uint64_t chunk_bytes = 0, page_bytes = 0;  // what memcached spends (slab_model.h)
  double memory_ratio = 0;                   // chunk bytes / as stored's
  double cpu_mean_ns = 0;                    // search: mean over rounds of the hit-weighted mean per value
  double cpu_ratio = 0;                      // search: geometric mean over rounds of the ratio to as stored
  std::vector<double> round_cpu_ns;          // search, per round it was measured
  int dropped_after_round = 0;               // 0: kept to the end of the search
  bool on_front = false;
  PhpUse php = PhpUse::cannot;
  std::string php_note;
  size_t dictionary_bytes = 0;               // a dictionary strategy's trained dictionary (kept on each web server)
  std::optional<client::Verdict> confirmed;  // read+render against as stored, from the confirmation
  double score = 0;                          // with the confirmed ratio when there is one
};

struct Recommendation {
  bool made = false;
  size_t candidate = 0;                     // index into candidates
  std::string sentence;                     // the answer, or why there is none
  std::vector<std::string> php_config;      // ini lines or the call that configures it; empty when PHP cannot
  std::vector<std::string> hitcost_config;  // hitcost-server options that serve it
};

struct RecommendOptions {
  int search_rounds = 3;
  double memory_weight = 1.0;
  size_t confirm_at_most = 4;        // candidates measured again, besides as stored
  double prune_margin = 0.10;        // dropped when another has no more memory and this much less CPU
  std::vector<uint32_t> thresholds;  // empty: 0, the powers of two from 64 B, the scheme's default
  // zstd dictionaries: trained per representation on every fifth value (at least
  // kMinValuesForDictionaries), which the search and the confirmation then leave out.
  bool dictionaries = true;
  std::string dictionary_dir;  // where the caller keeps them: names the files in the settings
  // weighting, verdict, rounds until decided, min_time_ns, pin_cpu, and the memcached whose memory
  // is counted (slab); its strategies are the candidates to confirm, set by the engine.
  CompareOptions confirm;
  // Called after each search round and before the confirmation: one line for people.
  std::function<void(const std::string&)> progress;
};

// Fewer good values than this: no dictionary is trained (a fifth would teach it too little, and
// the rest would be too few to measure it on).
inline constexpr size_t kMinValuesForDictionaries = 100;

// A dictionary recommend trained for one representation.
struct TrainedDictionary {
  std::string scope;  // "struct:json", "html"
  uint32_t id = 0;
  std::string bytes;  // the dictionary itself (the caller writes it: dictionary_file_name)
  size_t samples = 0, sample_bytes = 0;
};

struct RecommendResult {
  std::string scheme;
  uint64_t records = 0, values_good = 0;  // the values measured (the training values left out)
  // Dictionaries: the records they were trained on (left out of every figure), each
  // dictionary, and why a representation has none ("struct:php: <the trainer's reason>").
  std::vector<size_t> training_records;  // their indices in the input, ascending
  std::vector<TrainedDictionary> dictionaries;
  std::vector<std::string> dictionary_notes;
  SlabSettings slabs;
  // Today's values as one strategy, for a server to store them again (scripts/recommend-check.sh):
  // the representation most values have, the compressor most compressed ones have, the scheme's
  // default rule. An approximation of what the application does; the corpus says no more.
  Strategy today;
  bool today_compresses = false;
  uint64_t as_stored_bytes = 0, as_stored_chunk_bytes = 0, as_stored_page_bytes = 0;
  double as_stored_cpu_mean_ns = 0;
  int search_rounds = 0;
  size_t forms = 0, forms_dropped = 0;
  std::vector<std::string> pruning;   // "after round 1: 40 candidates dropped, 6 forms no longer measured"
  std::vector<Candidate> candidates;  // every candidate searched, plain forms first
  CompareResult confirmation;         // rows[0] as stored, then the confirmed candidates
  double memory_weight = 0;
  Recommendation best, best_php;             // best_php: the best PHP writes, when best is not one
  std::vector<FailureKind> corpus_failures;  // values that do not decode as stored (left out)
  // A value that did not read back as written, or a confirmation that stored other bytes than
  // the search derived: a codec bug; the figures are suspect (hitcost-corpus exits 3).
  std::vector<FailureKind> codec_failures;
  double wall_seconds = 0;
};

// Errors: invalid_argument (search_rounds < 1, a memory weight below 0, the confirmation's
// options). Value failures and codec bugs are results (corpus_failures, codec_failures).
Result<RecommendResult> run_recommend(const std::vector<CorpusRecord>& records, FlagScheme scheme, uint64_t now_unix_s,
                                      const RecommendOptions& o);

// The points no other point beats on both axes (lower is better on each): their indices,
// by increasing x. Exposed for tests.
std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace hitcost::corpus
