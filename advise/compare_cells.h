#pragma once
// Internal to the corpus engines (compare.cpp measures, compare_summary.cpp summarizes,
// recommend.cpp searches with the same steps): the raw per-value figures of each row, before
// they become a CompareRow's weighted figures, and the steps both engines time.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "advise/compare.h"
#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "core/clock.h"
#include "core/result.h"
#include "corpus/value.h"

namespace hitcost::corpus::detail {

// A corpus value that decoded.
struct Good {
  size_t input = 0;  // index into the inputs
  Value tree;
  bool structured = false;  // false: stored as a plain string (its tree is that string)
  double weight = 1;
  size_t key_bytes = 0;  // its key's, for the memory its item takes
};

// One row's figures for one good value.
struct Cell {
  bool ok = false;
  bool pays_render = false;  // its stored form is structured: a hit renders it
  uint32_t flags = 0;        // as written
  Strategy used;             // the strategy its bytes were written with
  uint64_t stored_bytes = 0;
  bool compressed = false;
  std::vector<double> decompress, decode, encode;  // ns per round (encode empty for as stored)
};

struct RowState {
  CompareRow row;
  const CompareStrategy* strategy = nullptr;  // nullptr: as stored
  std::vector<Cell> cells;                    // per good value
};

// Results feed it so the optimizer keeps the timed work.
extern volatile size_t g_sink;

// CPU per call of f: repeats it in batches until one batch takes at least min_ns of thread CPU,
// timed around the whole batch (one clock read pair per batch, not per call). Earlier, shorter
// batches size the next one and warm the caches.
template <class F>
double cpu_ns_per_call(F&& f, uint64_t min_ns) {
  uint64_t n = 1;
  for (;;) {
    const uint64_t t0 = thread_cpu_ns();
    for (uint64_t i = 0; i < n; ++i) f();
    const uint64_t dt = thread_cpu_ns() - t0;
    if (dt >= min_ns) return double(dt) / double(n);
    const double want = double(n) * 1.2 * double(min_ns) / double(std::max<uint64_t>(dt, 1));
    n = std::clamp<uint64_t>(static_cast<uint64_t>(want), n + 1, n * 100);
  }
}

// Counts a value's failure under its kind, listing the first max_listed.
void count_failure(std::vector<FailureKind>& kinds, const std::string& kind, const CorpusRecord& in, std::string reason,
                   size_t max_listed);
// The strategy a value is written with: a plain-string value stays a string (html, no
// serializer) compressed by the strategy's own rule.
Strategy strategy_for(const Strategy& s, const Good& g);
// The plain payload of `g` under `used`: the string, the rendering or the serialization.
Status plain_payload(const Strategy& used, const Good& g, std::string& out);
// Unwraps and decodes what was written and compares it with what went in. "" when equal.
std::string round_trip_problem(const EncodedValue& ev, const Strategy& used, const Good& g, const std::string& plain);
// Times reading one stored value: unwrap (decompress) and, when structured, decode.
void time_read(std::string_view bytes, uint32_t flags, FlagScheme scheme, uint64_t min_ns, double& decompress_ns,
               double& decode_ns);
// One round of the render every structured value pays on a hit (render_tree_html), ns per
// value appended to render[value]; 0 for plain strings (served as they are).
void measure_render_round(std::vector<std::vector<double>>& render, const std::vector<Good>& good, uint64_t min_ns);
// Row 0 of a comparison: every record decoded by its flags (failures counted in `stored`'s
// row; its stored and cache bytes over every record, good or not), one cell per good value;
// returns the good values (weight 1).
std::vector<Good> decode_as_stored(const std::vector<CorpusRecord>& in, FlagScheme scheme, const SlabSettings& slab,
                                   RowState& stored, size_t max_listed);
// Weights per good value, and how they were chosen (CompareOptions' weighting).
std::string assign_weights(std::vector<Good>& good, const std::vector<CorpusRecord>& in, uint64_t now, HitWeighting w,
                           bool drawn_by_recency);

// Pins the calling thread for its lifetime and restores its affinity afterwards.
class ScopedPin {
 public:
  explicit ScopedPin(int cpu);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;
  int error() const noexcept { return error_; }

 private:
  cpu_set_t saved_{};
  bool saved_ok_ = false;
  int error_ = 0;
};

// Fills each row's bytes, cost figures, per-round means and (rows 1..) verdicts against
// rows[0] on the same values. `render` is per good value, ns per round (0 for strings). Cache
// bytes by `slab`; rows[0]'s own (over every record, good or not) are the caller's, as its stored bytes.
void summarize_rows(std::vector<RowState>& rows, const std::vector<Good>& good,
                    const std::vector<std::vector<double>>& render, const client::VerdictOptions& verdict,
                    const SlabSettings& slab);

}  // namespace hitcost::corpus::detail
