#include "advise/compare.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "advise/compare_cells.h"
#include "codecs/codec_table.h"
#include "codecs/flag_scheme.h"
#include "codecs/value_codec.h"
#include "core/clock.h"
#include "core/pin.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"

namespace hitcost::corpus {

const char* to_string(HitWeighting w) noexcept {
  switch (w) {
    case HitWeighting::automatic: return "automatic";
    case HitWeighting::uniform: return "uniform";
    case HitWeighting::access: return "access";
  }
  return "unknown";
}

Result<CompareStrategy> parse_compare_strategy(std::string_view text, FlagScheme scheme) {
  std::string_view spec = text;
  if (size_t at = text.find('@'); at != text.npos) {
    auto named = parse_flag_scheme(text.substr(at + 1));
    if (!named) return named.error();
    scheme = *named;
    spec = text.substr(0, at);
  } else if (const StrategyPreset* p = find_preset(text)) {
    scheme = p->scheme;  // a preset says its own scheme
  }
  auto st = parse_strategy(spec, scheme);
  if (!st) return st.error();
  return CompareStrategy{std::string(text), *st};
}

double weighted_quantile(std::vector<std::pair<double, double>> vw, double q) {
  double total = 0;
  for (const auto& [v, w] : vw) total += w;
  if (vw.empty() || !(total > 0)) return 0;
  std::sort(vw.begin(), vw.end());
  const double target = std::clamp(q, 0.0, 1.0) * total;
  double cumulative = 0;
  for (const auto& [v, w] : vw) {
    cumulative += w;
    // relative slack: summing many weights rounds, and q = 1 must reach the last value
    if (cumulative >= target * (1 - 1e-12)) return v;
  }
  return vw.back().first;
}

namespace detail {

volatile size_t g_sink = 0;

void count_failure(std::vector<FailureKind>& kinds, const std::string& kind, const CorpusRecord& in, std::string reason,
                   size_t max_listed) {
  auto it = std::find_if(kinds.begin(), kinds.end(), [&](const FailureKind& k) { return k.kind == kind; });
  if (it == kinds.end()) it = kinds.insert(kinds.end(), FailureKind{kind, 0, {}});
  ++it->count;
  if (it->listed.size() < max_listed) it->listed.push_back({in.key, in.flags, std::move(reason)});
}

Strategy strategy_for(const Strategy& s, const Good& g) {
  Strategy used = s;
  if (!g.structured) {
    used.rep = Representation::html;
    used.serializer = SerializerId::none;
  }
  return used;
}

Status plain_payload(const Strategy& used, const Good& g, std::string& out) {
  if (!g.structured) {
    out.append(g.tree.s);
    return ok_status();
  }
  if (used.rep == Representation::html) {
    render_tree_html(g.tree, out);
    return ok_status();
  }
  return encode_tree(used.serializer, g.tree, out);
}

std::string round_trip_problem(const EncodedValue& ev, const Strategy& used, const Good& g, const std::string& plain) {
  std::string scratch;
  auto u = unwrap_value(ev.bytes, ev.flags, used.scheme, scratch);
  if (!u) return std::string("unwrap: ") + to_string(u.error().code) + ": " + u.error().message;
  if (u->rep != used.rep) return "unwrapped as another representation than written";
  if (u->rep == Representation::html) return u->payload == plain ? "" : "unwrapped bytes differ from the bytes written";
  auto back = decode_tree(u->serializer, u->payload);
  if (!back) return std::string("decode: ") + to_string(back.error().code) + ": " + back.error().message;
  return *back == g.tree ? "" : "decoded tree differs from the original";
}

void time_read(std::string_view bytes, uint32_t flags, FlagScheme scheme, uint64_t min_ns, double& decompress_ns,
               double& decode_ns) {
  std::string scratch;
  decompress_ns = cpu_ns_per_call(
      [&] {
        auto u = unwrap_value(bytes, flags, scheme, scratch);
        g_sink = g_sink + u.ok();
      },
      min_ns);
  decode_ns = 0;
  auto u = unwrap_value(bytes, flags, scheme, scratch);
  if (!u || u->rep != Representation::structured) return;
  const SerializerId decoder = u->serializer;
  const std::string_view payload = u->payload;
  decode_ns = cpu_ns_per_call(
      [&] {
        auto t = decode_tree(decoder, payload);
        g_sink = g_sink + t.ok();
      },
      min_ns);
}

std::string assign_weights(std::vector<Good>& good, const std::vector<CorpusRecord>& in, uint64_t now, HitWeighting w,
                           bool drawn_by_recency) {
  size_t unknown = 0;
  for (const CorpusRecord& v : in) unknown += v.last_access_unix_s == 0;
  if (w == HitWeighting::automatic && drawn_by_recency) {
    for (Good& g : good) g.weight = 1;
    return "uniform (the sample was drawn by recency, so each value already stands for its share of hits; "
           "weighting by access again would count recency twice)";
  }
  if (w == HitWeighting::uniform || (w == HitWeighting::automatic && (unknown > 0 || in.empty()))) {
    for (Good& g : good) g.weight = 1;
    if (w == HitWeighting::uniform) return "uniform (asked)";
    return "uniform (" + std::to_string(unknown) + " of " + std::to_string(in.size()) +
           " records carry no last access)";
  }
  double smallest = 1;
  for (Good& g : good) {
    const uint64_t last = in[g.input].last_access_unix_s;
    if (last == 0) continue;
    const double age_s = now > last ? double(now - last) : 0.0;
    g.weight = 1.0 / (1.0 + age_s);
    smallest = std::min(smallest, g.weight);
  }
  for (Good& g : good)  // asked for access weights but some lack one: the oldest's weight
    if (in[g.input].last_access_unix_s == 0) g.weight = smallest;
  return "access (w = 1/(1+age_s), age = now - last access)" +
         (unknown ? " ; " + std::to_string(unknown) + " records without one weigh as the oldest" : std::string());
}

std::vector<Good> decode_as_stored(const std::vector<CorpusRecord>& in, FlagScheme scheme, const SlabSettings& slab,
                                   RowState& stored, size_t max_listed) {
  std::vector<Good> good;
  SlabTally cache(slab);
  for (size_t i = 0; i < in.size(); ++i) {
    stored.row.stored_bytes += in[i].value.size();
    cache.add(in[i].key.size(), in[i].value.size(), in[i].flags);
    std::string scratch;
    Unwrapped u;
    auto tree = decode_stored(in[i].value, in[i].flags, scheme, scratch, &u);
    if (!tree) {
      count_failure(stored.row.failures, to_string(tree.error().code), in[i], tree.error().message, max_listed);
      continue;
    }
    Good g{i, std::move(*tree), u.rep == Representation::structured, 1, in[i].key.size()};
    Cell c;
    c.ok = true;
    c.pays_render = g.structured;
    c.flags = in[i].flags;
    c.stored_bytes = in[i].value.size();
    c.compressed = u.compressor != CompressorId::none;
    stored.cells.push_back(std::move(c));
    good.push_back(std::move(g));
  }
  stored.row.cache_bytes = cache.chunk_bytes();
  return good;
}

void measure_render_round(std::vector<std::vector<double>>& render, const std::vector<Good>& good, uint64_t min_ns) {
  for (size_t gi = 0; gi < good.size(); ++gi) {
    if (!good[gi].structured) {
      render[gi].push_back(0);
      continue;
    }
    render[gi].push_back(cpu_ns_per_call(
        [&] {
          std::string html;
          render_tree_html(good[gi].tree, html);
          g_sink = g_sink + html.size();
        },
        min_ns));
  }
}

ScopedPin::ScopedPin(int cpu) {
  if (cpu < 0) return;
  saved_ok_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0;
  error_ = pin_this_thread(cpu);
}
ScopedPin::~ScopedPin() {
  if (saved_ok_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}
}  // namespace detail

namespace {

using detail::Cell;
using detail::count_failure;
using detail::cpu_ns_per_call;
using detail::g_sink;
using detail::Good;
using detail::measure_render_round;
using detail::plain_payload;
using detail::round_trip_problem;
using detail::RowState;
using detail::strategy_for;
using detail::time_read;

// Untimed: writes every good value under the row's strategy, checks the round trip.
void prepare_row(RowState& rs, const std::vector<Good>& good, const std::vector<CorpusRecord>& in, size_t max_listed) {
  rs.cells.resize(good.size());
  for (size_t gi = 0; gi < good.size(); ++gi) {
    const Good& g = good[gi];
    Cell& c = rs.cells[gi];
    c.used = strategy_for(rs.strategy->strategy, g);
    std::string plain;
    if (Status s = plain_payload(c.used, g, plain); !s) {
      count_failure(rs.row.failures, "cannot_encode", in[g.input], s.error().message, max_listed);
      continue;
    }
    EncodedValue ev = wrap_payload(c.used, plain);
    if (ev.flags == kUnexpressibleFlags) {
      count_failure(rs.row.failures, "cannot_encode", in[g.input], "the flag scheme cannot express this strategy",
                    max_listed);
      continue;
    }
    if (std::string problem = round_trip_problem(ev, c.used, g, plain); !problem.empty()) {
      count_failure(rs.row.failures, "round_trip_mismatch", in[g.input], problem, max_listed);
      continue;
    }
    c.ok = true;
    c.flags = ev.flags;
    c.stored_bytes = ev.bytes.size();
    auto info = read_flags(c.used.scheme, ev.flags);
    c.compressed = info && info->compressor != CompressorId::none;
    c.pays_render = c.used.rep == Representation::structured;
  }
}

// One round of one strategy row over every good value: encode (timed), then read it back.
void measure_row_round(RowState& rs, const std::vector<Good>& good, uint64_t min_ns) {
  for (size_t gi = 0; gi < good.size(); ++gi) {
    Cell& c = rs.cells[gi];
    if (!c.ok) continue;
    EncodedValue last;
    c.encode.push_back(cpu_ns_per_call(
        [&] {
          std::string plain;
          (void)plain_payload(c.used, good[gi], plain);  // succeeded in prepare_row
          last = wrap_payload(c.used, std::move(plain));
        },
        min_ns));
    double dec = 0, decode = 0;
    time_read(last.bytes, last.flags, c.used.scheme, min_ns, dec, decode);
    c.decompress.push_back(dec);
    c.decode.push_back(decode);
  }
}

void measure_as_stored_round(RowState& rs, const std::vector<Good>& good, const std::vector<CorpusRecord>& in,
                             FlagScheme scheme, uint64_t min_ns) {
  for (size_t gi = 0; gi < good.size(); ++gi) {
    Cell& c = rs.cells[gi];
    const CorpusRecord& v = in[good[gi].input];
    double dec = 0, decode = 0;
    time_read(v.value, v.flags, scheme, min_ns, dec, decode);
    c.decompress.push_back(dec);
    c.decode.push_back(decode);
  }
}

using detail::assign_weights;
using detail::ScopedPin;

}  // namespace

Result<CompareResult> run_compare(const std::vector<CorpusRecord>& in, FlagScheme scheme, uint64_t now_unix_s,
                                  const CompareOptions& o) {
  if (o.rounds && *o.rounds < 1) return Error{Errc::invalid_argument, "rounds must be at least 1"};
  if (!o.rounds && (o.min_rounds < 2 || o.max_rounds < o.min_rounds))
    return Error{Errc::invalid_argument, "until decided: want 2 <= min rounds <= max rounds"};
  for (size_t i = 0; i < o.strategies.size(); ++i) {
    const std::string& label = o.strategies[i].label;
    if (label == kAsStoredLabel) return Error{Errc::invalid_argument, "\"as stored\" is the baseline's own row"};
    for (size_t j = 0; j < i; ++j)
      if (o.strategies[j].label == label) return Error{Errc::invalid_argument, "strategy listed twice: " + label};
  }
  ScopedPin pin(o.pin_cpu);
  if (pin.error())
    return Error{Errc::invalid_argument,
                 "cannot pin to CPU " + std::to_string(o.pin_cpu) + " (errno " + std::to_string(pin.error()) + ")"};
  const uint64_t wall_start = now_ns();
  CompareResult res;
  res.scheme = to_string(scheme);
  res.records = in.size();
  res.how.min_time_ns = o.min_time_ns;
  res.how.now_unix_s = now_unix_s;
  res.how.pinned_cpu = o.pin_cpu;
  res.how.cpu_at_start = sched_getcpu();
  res.how.alpha = o.verdict.alpha;
  res.how.min_effect = o.verdict.min_effect;

  // Row 0: the values as they are. Decoding them is also what finds the corpus's failures.
  std::vector<RowState> rows(1 + o.strategies.size());
  RowState& stored = rows[0];
  stored.row.label = kAsStoredLabel;
  stored.row.scheme = res.scheme;
  stored.row.baseline = true;
  std::vector<Good> good = detail::decode_as_stored(in, scheme, o.slab, stored, o.max_listed_per_kind);
  res.how.slab_settings = o.slab.source;
  for (const Good& g : good) (g.structured ? res.good_structured : res.good_strings) += 1;
  res.values_good = good.size();
  res.how.weighting = assign_weights(good, in, now_unix_s, o.weighting, o.sample_drawn_by_recency);

  for (size_t s = 0; s < o.strategies.size(); ++s) {
    RowState& rs = rows[1 + s];
    rs.strategy = &o.strategies[s];
    rs.row.label = rs.strategy->label;
    rs.row.strategy = rs.strategy->strategy.name();
    rs.row.scheme = to_string(rs.strategy->strategy.scheme);
    prepare_row(rs, good, in, o.max_listed_per_kind);
  }

  // Interleaved rounds: slots 0..rows-1 are the rows, the last slot the render; the order
  // rotates by one each round so no row always runs first (cold) or last. Until decided: after
  // each round from min_rounds the verdicts are looked at (report/verdict.h pays for the looks)
  // and the rounds stop once every read+render verdict is decided.
  client::VerdictOptions verdict = o.verdict;
  verdict.sequential = !o.rounds;
  verdict.design.min_rounds = o.min_rounds;
  verdict.design.max_rounds = o.max_rounds;
  std::vector<std::vector<double>> render(good.size());
  const size_t slots = rows.size() + 1;
  const int last_round = o.rounds ? *o.rounds : o.max_rounds;
  uint64_t round_ns = 0;
  for (int r = 0; r < last_round; ++r) {
    const uint64_t round_start = now_ns();
    for (size_t k = 0; k < slots; ++k) {
      const size_t slot = (k + static_cast<size_t>(r)) % slots;
      if (slot == rows.size())
        measure_render_round(render, good, o.min_time_ns);
      else if (slot == 0)
        measure_as_stored_round(rows[0], good, in, scheme, o.min_time_ns);
      else
        measure_row_round(rows[slot], good, o.min_time_ns);
    }
    res.how.rounds = r + 1;
    round_ns = now_ns() - round_start;
    if (o.rounds || r + 1 < o.min_rounds) continue;
    detail::summarize_rows(rows, good, render, verdict, o.slab);
    const bool all_decided = std::all_of(
        rows.begin() + 1, rows.end(), [](const RowState& rs) { return !rs.row.verdict || rs.row.verdict->decided(); });
    if (all_decided) {
      res.how.stopped_because = "every verdict decided";
      break;
    }
    if (o.max_time_ns && now_ns() - wall_start + round_ns > o.max_time_ns) {
      res.how.stopped_because = "the time budget is spent";
      break;
    }
  }
  if (!o.rounds && res.how.stopped_because.empty()) res.how.stopped_because = "the maximum of rounds is reached";
  res.how.cpu_at_end = sched_getcpu();

  detail::summarize_rows(rows, good, render, verdict, o.slab);
  for (RowState& rs : rows) res.rows.push_back(std::move(rs.row));
  res.how.wall_seconds = double(now_ns() - wall_start) / 1e9;
  return res;
}

}  // namespace hitcost::corpus
