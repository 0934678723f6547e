#include "advise/recommend.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "advise/compare_cells.h"
#include "advise/recommend_space.h"
#include "codecs/codec_table.h"
#include "codecs/flag_scheme.h"
#include "codecs/value_codec.h"
#include "codecs/zstd_dictionary.h"
#include "core/clock.h"
#include "corpus/tree_html.h"

namespace hitcost::corpus {

std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& points) {
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return points[a] < points[b]; });
  std::vector<size_t> front;
  double best_y = INFINITY;
  for (size_t i : order) {  // by x, then y: a point is on the front when it beats every earlier y
    if (points[i].second < best_y) {
      front.push_back(i);
      best_y = points[i].second;
    }
  }
  return front;
}

namespace {

using detail::count_failure;
using detail::cpu_ns_per_call;
using detail::g_sink;
using detail::Good;

// One representation's values written plain: the payload every form of it compresses.
struct Encoding {
  Strategy strategy;  // compressor none
  std::vector<char> ok;
  std::vector<std::string> plain;  // the payload (the serialization, rendering or string)
  std::vector<EncodedValue> stored;
  std::vector<std::vector<double>> unwrap_ns, decode_ns;  // per value, per round
  bool measured = true;
};

// One (representation, compressor, level): every value compressed, whatever its size.
struct Form {
  size_t encoding = 0;
  Strategy strategy;     // the rule forced: threshold 0, no saving asked
  std::vector<char> ok;  // compressed and read back exactly
  std::vector<EncodedValue> stored;
  std::vector<size_t> packed_bytes;  // without the length prefix, as the keep rule sees it
  std::vector<std::vector<double>> unwrap_ns;
  bool measured = true;
};

// A candidate's link to what was measured and which values it compresses.
struct Plan {
  size_t encoding = 0;
  std::optional<size_t> form;
  std::vector<char> compressed;  // per good value
};

size_t prefix_bytes(FlagScheme scheme) { return scheme == FlagScheme::php_memcache ? 0 : 4; }

void prepare_encoding(Encoding& e, const std::vector<Good>& good, const std::vector<CorpusRecord>& in,
                      std::vector<FailureKind>& failures) {
  const size_t n = good.size();
  e.ok.assign(n, 0);
  e.plain.resize(n);
  e.stored.resize(n);
  e.unwrap_ns.resize(n);
  e.decode_ns.resize(n);
  for (size_t v = 0; v < n; ++v) {
    const Strategy used = detail::strategy_for(e.strategy, good[v]);
    if (!detail::plain_payload(used, good[v], e.plain[v])) continue;  // cannot_encode: the candidate counts it
    e.stored[v] = wrap_payload(used, e.plain[v]);
    if (std::string p = detail::round_trip_problem(e.stored[v], used, good[v], e.plain[v]); !p.empty()) {
      count_failure(failures, "round_trip_mismatch", in[good[v].input], e.strategy.name() + ": " + p, 20);
      continue;
    }
    e.ok[v] = 1;
  }
}

void prepare_form(Form& f, const Encoding& e, const std::vector<Good>& good, const std::vector<CorpusRecord>& in,
                  std::vector<FailureKind>& failures) {
  const size_t n = good.size();
  f.ok.assign(n, 0);
  f.stored.resize(n);
  f.packed_bytes.assign(n, 0);
  f.unwrap_ns.resize(n);
  for (size_t v = 0; v < n; ++v) {
    if (!e.ok[v] || !compression_tried(f.strategy, e.plain[v].size())) continue;
    const Strategy used = detail::strategy_for(f.strategy, good[v]);
    f.stored[v] = wrap_payload(used, e.plain[v]);
    auto info = read_flags(used.scheme, f.stored[v].flags);
    if (!info || info->compressor == CompressorId::none) continue;  // the scheme cannot say it
    if (std::string p = detail::round_trip_problem(f.stored[v], used, good[v], e.plain[v]); !p.empty()) {
      count_failure(failures, "round_trip_mismatch", in[good[v].input], f.strategy.name() + ": " + p, 20);
      continue;
    }
    f.packed_bytes[v] = f.stored[v].bytes.size() - prefix_bytes(used.scheme);
    f.ok[v] = 1;
  }
}

double time_unwrap(const EncodedValue& ev, FlagScheme scheme, uint64_t min_ns) {
  std::string scratch;
  return cpu_ns_per_call(
      [&] {
        auto u = unwrap_value(ev.bytes, ev.flags, scheme, scratch);
        g_sink = g_sink + u.ok();
      },
      min_ns);
}

void measure_encoding(Encoding& e, uint64_t min_ns) {
  for (size_t v = 0; v < e.ok.size(); ++v) {
    if (!e.ok[v]) continue;
    double unwrap = 0, decode = 0;
    detail::time_read(e.stored[v].bytes, e.stored[v].flags, e.strategy.scheme, min_ns, unwrap, decode);
    e.unwrap_ns[v].push_back(unwrap);
    e.decode_ns[v].push_back(decode);
  }
}

void measure_form(Form& f, uint64_t min_ns) {
  for (size_t v = 0; v < f.ok.size(); ++v)
    if (f.ok[v]) f.unwrap_ns[v].push_back(time_unwrap(f.stored[v], f.strategy.scheme, min_ns));
}

// The round's figures, per value, of what is stored today.
struct AsStored {
  std::vector<std::vector<double>> read_ns;  // unwrap + decode, per value, per round
};

void measure_as_stored(AsStored& a, const std::vector<Good>& good, const std::vector<CorpusRecord>& in,
                       FlagScheme scheme, uint64_t min_ns) {
  for (size_t v = 0; v < good.size(); ++v) {
    const CorpusRecord& r = in[good[v].input];
    double unwrap = 0, decode = 0;
    detail::time_read(r.value, r.flags, scheme, min_ns, unwrap, decode);
    a.read_ns[v].push_back(unwrap + decode);
  }
}

// A candidate's hit on value v in round r (an index into that value's measurements).
double hit_ns(const Plan& p, const std::vector<Encoding>& enc, const std::vector<Form>& forms,
              const std::vector<std::vector<double>>& render, const std::vector<Good>& good, size_t v, size_t r) {
  const Encoding& e = enc[p.encoding];
  double ns = e.decode_ns[v][r] + (p.compressed[v] ? forms[*p.form].unwrap_ns[v][r] : e.unwrap_ns[v][r]);
  if (e.strategy.rep == Representation::structured && good[v].structured) ns += render[v][r];
  return ns;
}

// The hit-weighted mean of a candidate and of as stored over the candidate's values, round r.
std::pair<double, double> round_means(const Plan& p, const std::vector<Encoding>& enc, const std::vector<Form>& forms,
                                      const AsStored& today, const std::vector<std::vector<double>>& render,
                                      const std::vector<Good>& good, size_t r) {
  double sum = 0, today_sum = 0, weights = 0;
  const Encoding& e = enc[p.encoding];
  for (size_t v = 0; v < good.size(); ++v) {
    if (!e.ok[v]) continue;
    const double w = good[v].weight;
    sum += w * hit_ns(p, enc, forms, render, good, v, r);
    today_sum += w * (today.read_ns[v][r] + (good[v].structured ? render[v][r] : 0));
    weights += w;
  }
  return weights > 0 ? std::pair{sum / weights, today_sum / weights} : std::pair{0.0, 0.0};
}

// Name of a candidate: the strategy, and the threshold when it compresses.
std::string candidate_name(const Strategy& s, bool compressing) {
  std::string n = s.name();
  if (compressing) n += ", threshold " + std::to_string(s.rule.threshold_bytes) + " B";
  return n;
}

void mark_dropped(std::vector<Candidate>& cands, int round, double margin, std::vector<std::string>& notes,
                  std::vector<Encoding>& enc, std::vector<Form>& forms, const std::vector<Plan>& plans) {
  size_t dropped = 0;
  std::vector<char> drop(cands.size(), 0);
  for (size_t x = 0; x < cands.size(); ++x) {
    if (cands[x].dropped_after_round) continue;
    for (size_t y = 0; y < cands.size() && !drop[x]; ++y) {
      if (y == x || cands[y].dropped_after_round || cands[y].values_failed) continue;
      // What PHP writes is dropped only for something PHP writes too: the best PHP answer is
      // searched as fully as the best answer (a dictionary beat every PHP candidate otherwise).
      if (cands[x].php == PhpUse::writes && cands[y].php != PhpUse::writes) continue;
      drop[x] =
          cands[y].chunk_bytes <= cands[x].chunk_bytes && cands[y].cpu_mean_ns * (1 + margin) < cands[x].cpu_mean_ns;
    }
  }
  for (size_t x = 0; x < cands.size(); ++x)
    if (drop[x]) cands[x].dropped_after_round = round, ++dropped;
  size_t forms_before = 0, forms_after = 0;
  for (const Form& f : forms) forms_before += f.measured;
  for (Encoding& e : enc) e.measured = false;
  for (Form& f : forms) f.measured = false;
  for (size_t c = 0; c < cands.size(); ++c) {
    if (cands[c].dropped_after_round) continue;
    enc[plans[c].encoding].measured = true;
    if (plans[c].form) forms[*plans[c].form].measured = true;
  }
  for (const Form& f : forms) forms_after += f.measured;
  notes.push_back("after round " + std::to_string(round) + ": " + std::to_string(dropped) +
                  " candidates dropped (another has no more memory and over " + std::to_string(int(margin * 100)) +
                  " % less CPU so far), " + std::to_string(forms_before - forms_after) +
                  " compressed forms no longer measured");
}

// The candidate's figures over its measured rounds.
void settle_search_figures(Candidate& c, const std::vector<double>& today_rounds) {
  double sum = 0, log_sum = 0;
  size_t n = 0;
  for (size_t r = 0; r < c.round_cpu_ns.size(); ++r) {
    sum += c.round_cpu_ns[r];
    if (c.round_cpu_ns[r] > 0 && today_rounds[r] > 0) log_sum += std::log(c.round_cpu_ns[r] / today_rounds[r]), ++n;
  }
  c.cpu_mean_ns = c.round_cpu_ns.empty() ? 0 : sum / double(c.round_cpu_ns.size());
  c.cpu_ratio = n ? std::exp(log_sum / double(n)) : 0;
}

std::string fixed2(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

Recommendation recommend_from(const std::vector<Candidate>& cands, const std::vector<size_t>& among, double weight,
                              const std::string& who, bool php_only, const std::string& dictionary_dir) {
  Recommendation rec;
  std::optional<size_t> best;
  size_t undecided = 0;
  for (size_t i : among) {
    const Candidate& c = cands[i];
    if (php_only && c.php != PhpUse::writes) continue;
    if (!c.confirmed || !c.confirmed->decided()) {
      undecided += c.confirmed.has_value();
      continue;
    }
    if (!best || c.score < cands[*best].score) best = i;
  }
  const double today = 1 + weight;
  if (!best) {
    rec.sentence = undecided ? who + ": undecided: no confirmed candidate's CPU verdict is decided (" +
                                   std::to_string(undecided) + " measured; more rounds would say, --max-rounds)"
                             : who + ": no candidate to confirm";
    return rec;
  }
  const Candidate& c = cands[*best];
  if (!(c.score < today)) {
    rec.sentence = who +
                   ": keep what you store: no confirmed candidate beats it on CPU and memory together "
                   "(score = CPU ratio + " +
                   fixed2(weight) + " x memory ratio; the best, " + c.name + ", scores " + fixed2(c.score) +
                   " against today's " + fixed2(today) + ")";
    return rec;
  }
  rec.made = true;
  rec.candidate = *best;
  const client::Verdict& v = *c.confirmed;
  char buf[512];
  if (v.kind == client::Verdict::Kind::same)
    std::snprintf(buf, sizeof buf, "the same CPU per hit within %.0f %% (%.2fx [%.2f..%.2f])", 5.0, *v.ratio, *v.low,
                  *v.high);
  else
    std::snprintf(buf, sizeof buf, "%.2fx [%.2f..%.2f] of today's CPU per hit", *v.ratio, *v.low, *v.high);
  rec.sentence =
      who + ": " + c.name + ": " + buf + " and " + fixed2(c.memory_ratio) + "x its memcached memory (" +
      std::to_string(c.compressed_values) + " of " + std::to_string(c.values_ok) + " values compressed" +
      (c.dictionary_bytes ? ", with a " + std::to_string(c.dictionary_bytes) + " B dictionary on each web server"
                          : std::string()) +
      ")";
  rec.php_config = php_settings(c.strategy, c.compressing);
  const std::string file = dictionary_file_name(c.strategy.dictionary_scope());
  rec.hitcost_config = hitcost_settings(
      c.strategy, c.compressing,
      dictionary_dir.empty() ? file + " (recommend --dict-dir DIR writes it)" : dictionary_dir + "/" + file);
  return rec;
}

// Today's form as one strategy (RecommendResult::today).
Strategy today_strategy(const std::vector<CorpusRecord>& in, const std::vector<Good>& good, FlagScheme scheme,
                        bool& compresses) {
  std::map<std::pair<Representation, SerializerId>, size_t> reps;
  std::map<CompressorId, size_t> compressors;
  for (const Good& g : good) {
    auto info = read_flags(scheme, in[g.input].flags);
    if (!info) continue;  // decoded as stored: cannot happen
    ++reps[{info->rep, info->serializer}];
    if (info->compressor != CompressorId::none) ++compressors[info->compressor];
  }
  auto most = [](const auto& counts) {
    auto best = counts.begin();
    for (auto it = counts.begin(); it != counts.end(); ++it)
      if (it->second > best->second) best = it;
    return best->first;
  };
  Strategy s;
  s.scheme = scheme;
  s.rule = CompressionRule::defaults_for(scheme);
  if (!reps.empty()) std::tie(s.rep, s.serializer) = most(reps);
  compresses = !compressors.empty();
  if (compresses) s.compressor = most(compressors);
  return s;
}

// Trains a zstd dictionary per representation the scheme can store with zstd, on the payloads of
// every fifth good value (the payload the representation's strategy writes for it: a plain string
// as it is), registers each for its scope, and puts the other records in `measured`: no figure is
// taken on a value a dictionary learnt from. Leaves `measured` empty when none was trained.
void train_dictionaries(const std::vector<CorpusRecord>& all, FlagScheme scheme, const RecommendOptions& o,
                        RecommendResult& res, std::vector<CorpusRecord>& measured) {
  detail::RowState ignored;
  const std::vector<Good> good = detail::decode_as_stored(all, scheme, o.confirm.slab, ignored, 0);
  if (good.size() < kMinValuesForDictionaries) {
    res.dictionary_notes.push_back("no dictionary: " + std::to_string(good.size()) + " values decode, fewer than " +
                                   std::to_string(kMinValuesForDictionaries) +
                                   " (a fifth trains, the rest is measured)");
    return;
  }
  std::vector<char> trains(all.size(), 0);
  std::vector<const Good*> train;
  for (size_t v = 0; v < good.size(); v += 5) {
    trains[good[v].input] = 1;
    train.push_back(&good[v]);
  }
  for (const SpaceRepresentation& r : space_representations(scheme)) {
    Strategy rep;
    rep.rep = r.rep;
    rep.serializer = r.serializer;
    rep.scheme = scheme;
    if (!make_flags(scheme, r.rep, r.serializer, CompressorId::zstd).ok()) continue;
    const std::string scope = rep.dictionary_scope();
    std::vector<std::string> payloads;
    size_t bytes = 0;
    for (const Good* g : train) {
      std::string p;
      if (!detail::plain_payload(detail::strategy_for(rep, *g), *g, p)) continue;  // e.g. JSON and bytes
      bytes += p.size();
      payloads.push_back(std::move(p));
    }
    const std::vector<std::string_view> views(payloads.begin(), payloads.end());
    auto dict = train_zstd_dictionary(views, default_dictionary_capacity(bytes));
    if (!dict) {
      res.dictionary_notes.push_back(scope + ": no dictionary: " + dict.error().message);
      continue;
    }
    auto id = register_zstd_dictionary(*dict, scope);
    if (!id) {
      res.dictionary_notes.push_back(scope + ": no dictionary: " + id.error().message);
      continue;
    }
    res.dictionaries.push_back({scope, *id, std::move(*dict), payloads.size(), bytes});
  }
  if (res.dictionaries.empty()) return;
  for (const Good* g : train) res.training_records.push_back(g->input);
  for (size_t i = 0; i < all.size(); ++i)
    if (!trains[i]) measured.push_back(all[i]);
}

const TrainedDictionary* dictionary_of(const RecommendResult& res, const std::string& scope) {
  for (const TrainedDictionary& d : res.dictionaries)
    if (d.scope == scope) return &d;
  return nullptr;
}

}  // namespace

Result<RecommendResult> run_recommend(const std::vector<CorpusRecord>& all, FlagScheme scheme, uint64_t now_unix_s,
                                      const RecommendOptions& o) {
  if (o.search_rounds < 1) return Error{Errc::invalid_argument, "search rounds must be at least 1"};
  if (!(o.memory_weight >= 0)) return Error{Errc::invalid_argument, "the memory weight must be 0 or more"};
  detail::ScopedPin pin(o.confirm.pin_cpu);
  if (pin.error())
    return Error{Errc::invalid_argument, "cannot pin to CPU " + std::to_string(o.confirm.pin_cpu) + " (errno " +
                                             std::to_string(pin.error()) + ")"};
  const uint64_t wall_start = now_ns();
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  RecommendResult res;
  res.scheme = to_string(scheme);
  res.records = all.size();
  std::vector<CorpusRecord> held_out;  // the records measured when dictionaries were trained
  if (o.dictionaries) {
    train_dictionaries(all, scheme, o, res, held_out);
    if (!res.dictionaries.empty())
      say("recommend: " + std::to_string(res.dictionaries.size()) + " zstd dictionaries trained on " +
          std::to_string(res.training_records.size()) + " values (every fifth), measured on the other " +
          std::to_string(held_out.size()));
  }
  const std::vector<CorpusRecord>& in = res.dictionaries.empty() ? all : held_out;
  res.slabs = o.confirm.slab;
  res.memory_weight = o.memory_weight;

  detail::RowState stored;
  std::vector<Good> good = detail::decode_as_stored(in, scheme, o.confirm.slab, stored, 20);
  detail::assign_weights(good, in, now_unix_s, o.confirm.weighting, o.confirm.sample_drawn_by_recency);
  res.values_good = good.size();
  res.today = today_strategy(in, good, scheme, res.today_compresses);
  SlabTally today_memory(o.confirm.slab);
  for (const Good& g : good) {
    const CorpusRecord& r = in[g.input];
    today_memory.add(r.key.size(), r.value.size(), r.flags);
    res.as_stored_bytes += r.value.size();
  }
  res.as_stored_chunk_bytes = today_memory.chunk_bytes();
  res.as_stored_page_bytes = today_memory.page_bytes();

  // The space: encodings, their forms, and the candidates (plain, and per form and threshold).
  std::vector<Encoding> enc;
  for (const SpaceRepresentation& r : space_representations(scheme)) {
    Encoding e;
    e.strategy.rep = r.rep;
    e.strategy.serializer = r.serializer;
    e.strategy.scheme = scheme;
    e.strategy.rule = CompressionRule::defaults_for(scheme);
    prepare_encoding(e, good, in, res.codec_failures);
    enc.push_back(std::move(e));
  }
  std::vector<Form> forms;
  for (size_t ei = 0; ei < enc.size(); ++ei) {
    const TrainedDictionary* dict = dictionary_of(res, enc[ei].strategy.dictionary_scope());
    for (const SpaceCompressor& c : space_compressors(enc[ei].strategy, dict != nullptr)) {
      Form f;
      f.encoding = ei;
      f.strategy = enc[ei].strategy;
      f.strategy.compressor = c.id;
      f.strategy.level = c.level;
      f.strategy.dictionary = c.dictionary;
      f.strategy.dictionary_id = c.dictionary ? dict->id : 0;
      f.strategy.rule = CompressionRule{0, 0.0, 0.0};  // always compressed: thresholds are derived
      prepare_form(f, enc[ei], good, in, res.codec_failures);
      forms.push_back(std::move(f));
    }
  }
  res.forms = forms.size();
  std::vector<Plan> plans;
  auto add_candidate = [&](Plan plan, Strategy s, bool compressing) {
    Candidate c;
    c.strategy = s;
    c.compressing = compressing;
    c.name = candidate_name(s, compressing);
    const Encoding& e = enc[plan.encoding];
    SlabTally memory(o.confirm.slab);
    for (size_t v = 0; v < good.size(); ++v) {
      if (!e.ok[v]) {
        ++c.values_failed;
        continue;
      }
      ++c.values_ok;
      const EncodedValue& ev = plan.compressed[v] ? forms[*plan.form].stored[v] : e.stored[v];
      c.compressed_values += plan.compressed[v];
      c.stored_bytes += ev.bytes.size();
      memory.add(in[good[v].input].key.size(), ev.bytes.size(), ev.flags);
    }
    c.chunk_bytes = memory.chunk_bytes();
    c.page_bytes = memory.page_bytes();
    c.memory_ratio = res.as_stored_chunk_bytes ? double(c.chunk_bytes) / double(res.as_stored_chunk_bytes) : 0;
    const PhpReach reach = php_reach(s, compressing);
    c.php = reach.use;
    c.php_note = reach.note;
    if (s.dictionary) c.dictionary_bytes = dictionary_of(res, s.dictionary_scope())->bytes.size();
    res.candidates.push_back(std::move(c));
    plans.push_back(std::move(plan));
  };
  for (size_t ei = 0; ei < enc.size(); ++ei)
    add_candidate(Plan{ei, std::nullopt, std::vector<char>(good.size(), 0)}, enc[ei].strategy, false);
  size_t largest = 0;
  for (const Encoding& e : enc)
    for (const std::string& p : e.plain) largest = std::max(largest, p.size());
  const std::vector<uint32_t> thresholds = o.thresholds.empty() ? space_thresholds(scheme, largest) : o.thresholds;
  const uint32_t default_threshold = CompressionRule::defaults_for(scheme).threshold_bytes;
  for (size_t fi = 0; fi < forms.size(); ++fi) {
    const Form& f = forms[fi];
    const Encoding& e = enc[f.encoding];
    // thresholds that compress the same values are one candidate: the scheme's default names it
    // when it is among them, else the smallest
    std::map<std::vector<char>, uint32_t> by_set;
    for (uint32_t t : thresholds) {
      Strategy s = f.strategy;  // its compressor, level and dictionary
      s.rule = e.strategy.rule;
      s.rule.threshold_bytes = t;
      std::vector<char> set(good.size(), 0);
      bool any = false;
      for (size_t v = 0; v < good.size(); ++v)
        any |= (set[v] = f.ok[v] && keeps_compressed(s, e.plain[v].size(), f.packed_bytes[v])) != 0;
      if (!any) continue;  // the plain candidate already
      auto [it, fresh] = by_set.emplace(std::move(set), t);
      if (!fresh && (t == default_threshold || (it->second != default_threshold && t < it->second))) it->second = t;
    }
    for (auto& [set, t] : by_set) {
      Strategy s = f.strategy;
      s.rule = e.strategy.rule;
      s.rule.threshold_bytes = t;
      add_candidate(Plan{f.encoding, fi, set}, s, true);
    }
  }

  // Search: interleaved rounds over as stored, the render, every encoding and every form still
  // measured; the order rotates by one each round.
  AsStored today{std::vector<std::vector<double>>(good.size())};
  std::vector<std::vector<double>> render(good.size());
  std::vector<double> today_rounds;
  std::vector<std::vector<double>> today_rounds_of(res.candidates.size());
  const size_t slots = 2 + enc.size() + forms.size();
  for (int r = 0; r < o.search_rounds; ++r) {
    for (size_t k = 0; k < slots; ++k) {
      const size_t slot = (k + size_t(r)) % slots;
      if (slot == 0)
        measure_as_stored(today, good, in, scheme, o.confirm.min_time_ns);
      else if (slot == 1)
        detail::measure_render_round(render, good, o.confirm.min_time_ns);
      else if (slot < 2 + enc.size()) {
        if (enc[slot - 2].measured) measure_encoding(enc[slot - 2], o.confirm.min_time_ns);
      } else if (forms[slot - 2 - enc.size()].measured) {
        measure_form(forms[slot - 2 - enc.size()], o.confirm.min_time_ns);
      }
    }
    res.search_rounds = r + 1;
    for (size_t c = 0; c < res.candidates.size(); ++c) {
      Candidate& cand = res.candidates[c];
      if (cand.dropped_after_round) continue;
      // a value's r-th figure of this encoding or form is round r's (it was measured every round)
      auto [mean, today_mean] = round_means(plans[c], enc, forms, today, render, good, size_t(r));
      cand.round_cpu_ns.push_back(mean);
      today_rounds_of[c].push_back(today_mean);
      settle_search_figures(cand, today_rounds_of[c]);
    }
    std::string line = "recommend: search round " + std::to_string(r + 1) + "/" + std::to_string(o.search_rounds) +
                       ": " + std::to_string(res.candidates.size()) + " candidates over " +
                       std::to_string(good.size()) + " values";
    if (r + 1 < o.search_rounds) {
      mark_dropped(res.candidates, r + 1, o.prune_margin, res.pruning, enc, forms, plans);
      line += "; " + res.pruning.back();
    }
    say(line);
  }
  for (const Form& f : forms) res.forms_dropped += !f.measured;
  double today_sum = 0;
  {
    double total = 0, weights = 0;
    for (size_t v = 0; v < good.size(); ++v)
      for (size_t r = 0; r < today.read_ns[v].size(); ++r) {
        total += good[v].weight * (today.read_ns[v][r] + (good[v].structured ? render[v][r] : 0));
        weights += good[v].weight;
      }
    today_sum = weights > 0 ? total / weights : 0;
  }
  res.as_stored_cpu_mean_ns = today_sum;

  // The front, among candidates kept to the end that hold every value; today's is a point of it.
  std::vector<std::pair<double, double>> points{{1.0, 1.0}};
  std::vector<size_t> point_of{SIZE_MAX};
  for (size_t c = 0; c < res.candidates.size(); ++c) {
    const Candidate& cand = res.candidates[c];
    if (cand.dropped_after_round || cand.values_failed || cand.cpu_ratio <= 0) continue;
    points.push_back({cand.memory_ratio, cand.cpu_ratio});
    point_of.push_back(c);
  }
  for (size_t p : pareto_front(points))
    if (point_of[p] != SIZE_MAX) res.candidates[point_of[p]].on_front = true;
  for (Candidate& c : res.candidates) c.score = c.cpu_ratio + o.memory_weight * c.memory_ratio;

  // Confirm: the best few of the front by score, and the best PHP writes.
  std::vector<size_t> front;
  for (size_t c = 0; c < res.candidates.size(); ++c)
    if (res.candidates[c].on_front) front.push_back(c);
  std::sort(front.begin(), front.end(),
            [&](size_t a, size_t b) { return res.candidates[a].score < res.candidates[b].score; });
  std::vector<size_t> confirm(front.begin(), front.begin() + std::min(front.size(), o.confirm_at_most));
  std::optional<size_t> best_php;
  for (size_t c = 0; c < res.candidates.size(); ++c) {
    const Candidate& cand = res.candidates[c];
    if (cand.php != PhpUse::writes || cand.dropped_after_round || cand.values_failed || cand.cpu_ratio <= 0) continue;
    if (!best_php || cand.score < res.candidates[*best_php].score) best_php = c;
  }
  if (best_php && std::find(confirm.begin(), confirm.end(), *best_php) == confirm.end()) confirm.push_back(*best_php);
  CompareOptions co = o.confirm;
  co.pin_cpu = -1;  // pinned above for the whole run
  co.strategies.clear();
  for (size_t c : confirm) co.strategies.push_back({res.candidates[c].name, res.candidates[c].strategy});
  say("recommend: confirming " + std::to_string(confirm.size()) + " candidates against as stored (" +
      (co.rounds ? std::to_string(*co.rounds) + " rounds" : "rounds until decided") + ")");
  auto confirmed = run_compare(in, scheme, now_unix_s, co);
  if (!confirmed) return confirmed.error();
  res.confirmation = std::move(*confirmed);
  for (size_t i = 0; i < confirm.size(); ++i) {
    Candidate& cand = res.candidates[confirm[i]];
    const CompareRow& row = res.confirmation.rows[1 + i];
    if (row.stored_bytes != cand.stored_bytes || row.values_ok != cand.values_ok || row.cache_bytes != cand.chunk_bytes)
      count_failure(res.codec_failures, "bytes_differ", CorpusRecord{cand.name, 0, 0, 0, {}},
                    "the confirmation stored " + std::to_string(row.stored_bytes) + " B (" +
                        std::to_string(row.cache_bytes) + " B of chunks) in " + std::to_string(row.values_ok) +
                        " values, the search derived " + std::to_string(cand.stored_bytes) + " B (" +
                        std::to_string(cand.chunk_bytes) + " B) in " + std::to_string(cand.values_ok),
                    20);
    cand.confirmed = row.verdict;
    if (row.verdict && row.verdict->ratio) cand.score = *row.verdict->ratio + o.memory_weight * cand.memory_ratio;
  }
  res.corpus_failures = std::move(stored.row.failures);
  res.best = recommend_from(res.candidates, confirm, o.memory_weight, "recommended", false, o.dictionary_dir);
  if (!res.best.made || res.candidates[res.best.candidate].php != PhpUse::writes)
    res.best_php =
        recommend_from(res.candidates, confirm, o.memory_weight, "the best PHP writes", true, o.dictionary_dir);
  res.wall_seconds = double(now_ns() - wall_start) / 1e9;
  return res;
}

}  // namespace hitcost::corpus
