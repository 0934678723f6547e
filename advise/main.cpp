// hitcost-corpus: the user's own cached values, sampled from a live memcached and compared
// under every strategy. Recipe per verb: parse options → read or sample → compare → report.
//   sample   memcached → corpus file (never writes to the source)
//   compare  corpus → one table strategy × (bytes, decode+inflate per hit), JSON/CSV/HTML
//   recommend corpus → what to store: the front of CPU per hit against cache memory, confirmed
//   redact   corpus → a corpus safe to hand over (same sizes and shapes, none of the text)
//   show     corpus → its manifest and what its flags say, by kind
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <random>

#include "advise/cli_common.h"
#include "advise/compare.h"
#include "advise/compare_report.h"
#include "advise/recommend.h"
#include "advise/recommend_report.h"
#include "advise/trace_verbs.h"
#include "codecs/flag_scheme.h"
#include "codecs/value_codec.h"
#include "codecs/zstd_dictionary.h"
#include "core/duration.h"
#include "corpus/corpus_file.h"
#include "corpus/memcached_text.h"
#include "corpus/redact_record.h"
#include "corpus/sampler.h"
#include "report/exit_code.h"
#include "report/files.h"
#include "stores/store.h"

namespace {
using namespace hitcost;
using namespace hitcost::corpus;
using namespace hitcost::corpus_cli;
using client::kExitErrors;
using client::kExitFailed;
using client::kExitInterrupted;
using client::kExitOk;
using client::kExitOutput;
using client::kExitUsage;

// What compare measures when no --strategies is given: today's PHP default, then the
// serializers and compressors a PHP team can switch to, then the rendered page.
constexpr const char* kDefaultStrategies =
    "php-default,struct:igbinary,struct:igbinary+fastlz,struct:igbinary+zstd,struct:msgpack+zstd,"
    "struct:json+zlib,html,html+zstd";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  }
  return out;
}

// ---- sample --------------------------------------------------------------------------------
struct SampleArgs {
  std::string from, keys, out, count = "1000", max_bytes = "256M", max_value = "1M", weight = "uniform",
                               scheme = "php-memcached";
  uint64_t seed = 1;
  bool redact = false, quiet = false;
};

int run_sample(const SampleArgs& a) {
  SampleOptions o;
  // The prefix says what --from reads, as a store spec does; a bare HOST:PORT is refused rather
  // than guessed, so a later kind of source cannot be mistaken for memcached.
  if (a.from.rfind("memcached:", 0) != 0)
    return fail(kExitUsage,
                "--from '" + a.from + "': want memcached:HOST:PORT[,HOST:PORT...], e.g. --from memcached:" + a.from);
  o.nodes = split_commas(a.from.substr(10));
  if (o.nodes.empty()) return fail(kExitUsage, "--from: no memcached node given (memcached:HOST:PORT[,HOST:PORT])");
  o.key_file = a.keys;
  o.output_path = a.out;
  auto count = parse_size(a.count), budget = parse_size(a.max_bytes), max_value = parse_size(a.max_value);
  if (!count || *count == 0) return fail(kExitUsage, "--count: want a positive number");
  if (!budget) return fail(kExitUsage, "--max-bytes: " + budget.error().message);
  if (!max_value) return fail(kExitUsage, "--max-value: " + max_value.error().message);
  o.count = *count;
  o.byte_budget = *budget;
  o.max_value_bytes = *max_value;
  auto weighting = parse_weighting(a.weight);
  if (!weighting) return fail(kExitUsage, "--weight: " + weighting.error().message);
  o.weighting = *weighting;
  o.seed = a.seed;
  auto scheme = parse_flag_scheme(a.scheme);
  if (!scheme) return fail(kExitUsage, "--scheme: " + scheme.error().message);
  o.scheme = to_string(*scheme);
  for (const std::string& node : o.nodes)
    if (auto hp = split_host_port(node); !hp) return fail(kExitUsage, "--from: " + hp.error().message);
  if (Status out = client::check_output_paths({{"-o", a.out}}); !out) return fail(kExitUsage, out.error().message);
  if (!a.keys.empty() && client::same_file(a.keys, a.out))
    return fail(kExitUsage, "-o " + a.out + " is the --keys file: the corpus would overwrite it");
  remove_on_signal(a.out + ".tmp");
  if (a.redact) {
    const uint64_t secret = random_secret();
    const FlagScheme fs = *scheme;
    o.redact = [secret, fs](const CorpusRecord& r) { return redact_record(r, fs, secret); };
  }
  const bool tty = ::isatty(2) && !a.quiet;
  auto progress = [&](const SampleProgress& p) {
    if (a.quiet) return;
    std::fprintf(stderr, "%ssample: %llu keys listed, %llu values (%.1f MiB), %llu gone, %llu too large%s",
                 tty ? "\r" : "", (unsigned long long)p.keys_listed, (unsigned long long)p.values_fetched,
                 double(p.value_bytes) / 1048576.0, (unsigned long long)p.gone, (unsigned long long)p.too_large,
                 p.done || !tty ? "\n" : "");
  };
  auto r = sample(o, progress);
  if (!r) return fail(r.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed, r.error().message);
  const Manifest& m = r->manifest;
  std::printf("corpus %s: %llu values, %s from %s (%s sampling of %llu keys listed)%s\n", r->path.c_str(),
              (unsigned long long)m.values, bytes_text(m.value_bytes).c_str(), m.source.c_str(), m.sampling.c_str(),
              (unsigned long long)m.keys_seen, m.redacted ? ", redacted" : "");
  return kExitOk;
}

// ---- compare and recommend: the measurement both share ------------------------------------
struct MeasureArgs {
  std::string corpus, weight = "auto", json, html, slabs_from;
  std::optional<int> rounds;
  int min_rounds = 3, max_rounds = 20, cpu = -1;
  std::string max_time = "0";
  double min_time_us = 20, alpha = 0.05, min_effect = 0.05;
  bool quiet = false;
};

// The options of the rounds, the verdicts and the memory model, on a verb.
void add_measure_options(CLI::App* cmd, MeasureArgs& m) {
  cmd->add_option("corpus", m.corpus, "a corpus file (from sample)")->required();
  cmd->add_option("--rounds", m.rounds,
                  "exactly N interleaved rounds and one look at the verdicts (default: until decided)");
  cmd->add_option("--min-rounds", m.min_rounds, "until decided: rounds before the first look")->capture_default_str();
  cmd->add_option("--max-rounds", m.max_rounds, "until decided: rounds the error is spent by")->capture_default_str();
  cmd->add_option("--max-time", m.max_time, "until decided: no new round past this (e.g. 60s); 0 = none")
      ->capture_default_str();
  cmd->add_option("--min-time-us", m.min_time_us, "CPU per timed loop, µs")->capture_default_str();
  cmd->add_option("--weight", m.weight, "auto | uniform | access")->capture_default_str();
  cmd->add_option("--cpu", m.cpu, "pin the measuring thread to this CPU");
  cmd->add_option("--alpha", m.alpha, "family-wise error of the verdicts")->capture_default_str();
  cmd->add_option("--min-effect", m.min_effect, "smallest difference called")->capture_default_str();
  cmd->add_option("--json", m.json, "write the result as JSON");
  cmd->add_option("--html", m.html, "write a self-contained HTML report");
  cmd->add_option("--slabs-from", m.slabs_from,
                  "memcached:HOST:PORT whose `stats settings` (-f, -n, -C, slab_chunk_max) count the cache "
                  "memory (default: memcached 1.6's defaults; only read)");
}

// The slab settings of the memcached at "memcached:HOST:PORT", from its `stats settings` (read only).
Result<SlabSettings> slab_settings_of(const std::string& from) {
  if (from.rfind("memcached:", 0) != 0)
    return Error{Errc::invalid_argument, "'" + from + "': want memcached:HOST:PORT, e.g. memcached:" + from};
  const std::string address = from.substr(10);
  if (Result<std::pair<std::string, int>> hp = split_host_port(address); !hp) return hp.error();
  auto client = MemcachedTextClient::connect(address);
  if (!client) return client.error();
  auto stats = client->stats(MemcachedTextClient::StatsGroup::settings);
  if (!stats) return stats.error();
  return slab_settings_from_stats(*stats, address);
}

// A corpus read, and the compare options its measurement takes; `exit` is the code to return
// when the corpus or an option is refused (the message already printed).
struct Measured {
  Corpus corpus;
  FlagScheme scheme = FlagScheme::php_memcached;
  CompareOptions options;
};
std::optional<Measured> measure_setup(const MeasureArgs& a, const std::vector<client::OutputPath>& outs, int& exit) {
  if (Status out = client::check_output_paths(outs); !out)
    return exit = fail(kExitUsage, out.error().message), std::nullopt;
  if (a.min_time_us <= 0) return exit = fail(kExitUsage, "--min-time-us: want a positive number"), std::nullopt;
  const auto max_time = parse_duration_ns(a.max_time);
  if (!max_time)
    return exit = fail(kExitUsage, "--max-time: want a duration (150s, 2m; 0 = none): " + a.max_time), std::nullopt;
  Measured m;
  CompareOptions& o = m.options;
  if (a.weight == "auto")
    o.weighting = HitWeighting::automatic;
  else if (a.weight == "uniform")
    o.weighting = HitWeighting::uniform;
  else if (a.weight == "access")
    o.weighting = HitWeighting::access;
  else
    return exit = fail(kExitUsage, "--weight: want auto, uniform or access"), std::nullopt;
  auto corpus = read_corpus(a.corpus);
  if (!corpus) return exit = fail(kExitFailed, corpus.error().message), std::nullopt;
  auto scheme = manifest_flag_scheme(corpus->manifest, a.corpus);
  if (!scheme) return exit = fail(kExitFailed, scheme.error().message), std::nullopt;
  m.corpus = std::move(*corpus);
  m.scheme = *scheme;
  o.rounds = a.rounds;
  o.min_rounds = a.min_rounds;
  o.max_rounds = a.max_rounds;
  o.max_time_ns = *max_time;
  o.min_time_ns = uint64_t(a.min_time_us * 1000);
  o.sample_drawn_by_recency = m.corpus.manifest.sampling == "recency";
  o.pin_cpu = a.cpu;
  o.verdict.alpha = a.alpha;
  o.verdict.min_effect = a.min_effect;
  if (!a.slabs_from.empty()) {
    auto slab = slab_settings_of(a.slabs_from);
    if (!slab)
      return exit = fail(slab.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed,
                         "--slabs-from: " + slab.error().message),
             std::nullopt;
    o.slab = std::move(*slab);
  }
  return m;
}

// ---- compare -------------------------------------------------------------------------------
struct CompareArgs {
  MeasureArgs m;
  std::string strategies = kDefaultStrategies, csv;
  std::vector<std::string> zstd_dicts;  // [SCOPE=]FILE, for +zstd-dict strategies
};

int run_compare_verb(const CompareArgs& a) {
  int exit = kExitOk;
  auto setup = measure_setup(a.m, {{"--json", a.m.json}, {"--csv", a.csv}, {"--html", a.m.html}}, exit);
  if (!setup) return exit;
  CompareOptions& o = setup->options;
  for (const std::string& option : a.zstd_dicts) {
    auto d = parse_dictionary_option(option);
    if (!d) return fail(kExitUsage, "--zstd-dict " + d.error().message);
    if (auto id = load_zstd_dictionary_file(d->path, d->scope); !id) return fail(kExitFailed, id.error().message);
  }
  for (const std::string& text : split_commas(a.strategies)) {
    auto s = parse_compare_strategy(text, setup->scheme);
    if (!s) return fail(kExitUsage, "--strategies: " + text + ": " + s.error().message);
    if (Status ready = strategy_dictionary_ready(s->strategy); !ready)
      return fail(kExitUsage, "--strategies: " + text + ": " + ready.error().message);
    o.strategies.push_back(std::move(*s));
  }
  auto r = run_compare(setup->corpus.records, setup->scheme, uint64_t(std::time(nullptr)), o);
  if (!r) return fail(r.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed, r.error().message);
  std::fputs(compare_table(*r).c_str(), stdout);
  client::OutputWriter out(kWho);
  if (!a.m.json.empty()) out.write(a.m.json, compare_json(*r, setup->corpus.manifest));
  if (!a.csv.empty()) out.write(a.csv, compare_csv(*r));
  if (!a.m.html.empty()) out.write(a.m.html, compare_html(*r, setup->corpus.manifest));
  bool codec_bug = false;
  for (const CompareRow& row : r->rows)
    for (const FailureKind& f : row.failures) codec_bug = codec_bug || f.kind == "round_trip_mismatch";
  if (codec_bug) return fail(kExitErrors, "a round trip did not give the value back (listed above): figures suspect");
  return out.all_written() ? kExitOk : kExitOutput;
}

// ---- recommend -----------------------------------------------------------------------------
struct RecommendArgs {
  MeasureArgs m;
  double memory_weight = 1.0;
  int search_rounds = 3;
  size_t confirm = 4;
  std::string dict_dir;
  bool no_dict = false;
};

// Beside the dictionaries: the corpus without the values that trained them, i.e. the values
// every figure was taken on, for a server to serve at /value/{n} (scripts/recommend-check.sh):
// no value a dictionary learnt from is measured there either.
constexpr std::string_view kMeasuredCorpusName = "measured.hcorpus";

bool write_measured_corpus(const std::string& path, const Corpus& corpus, const std::vector<size_t>& training) {
  auto w = CorpusWriter::create(path);
  Status s = w ? ok_status() : Status(w.error());
  size_t next = 0;
  for (size_t i = 0; s && i < corpus.records.size(); ++i) {
    if (next < training.size() && training[next] == i) {
      ++next;
      continue;
    }
    s = w->add(corpus.records[i]);
  }
  if (s) {
    Manifest m = corpus.manifest;
    m.notes.push_back("hitcost-corpus recommend's measured values: " + std::to_string(training.size()) +
                      " left out, which trained its zstd dictionaries");
    s = w->finish(std::move(m));
  }
  if (!s) std::fprintf(stderr, "%s: cannot write %s: %s\n", kWho, path.c_str(), s.error().message.c_str());
  return s.ok();
}

int run_recommend_verb(const RecommendArgs& a) {
  int exit = kExitOk;
  // The dictionaries go in --dict-dir under their representation's name (checked like any output).
  std::vector<client::OutputPath> outputs = {{"--json", a.m.json}, {"--html", a.m.html}};
  if (!a.dict_dir.empty()) {
    if (a.no_dict) return fail(kExitUsage, "--dict-dir keeps trained dictionaries: --no-dict trains none");
    for (const SpaceRepresentation& r : space_representations(FlagScheme::native))
      outputs.push_back(
          {"--dict-dir",
           a.dict_dir + "/" + dictionary_file_name(dictionary_scope(r.rep == Representation::html, r.serializer))});
    outputs.push_back({"--dict-dir", a.dict_dir + "/" + std::string(kMeasuredCorpusName)});
  }
  auto setup = measure_setup(a.m, outputs, exit);
  if (!setup) return exit;
  RecommendOptions o;
  o.dictionaries = !a.no_dict;
  o.dictionary_dir = a.dict_dir;
  o.confirm = std::move(setup->options);
  o.memory_weight = a.memory_weight;
  o.search_rounds = a.search_rounds;
  o.confirm_at_most = a.confirm;
  if (!a.m.quiet) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  auto r = run_recommend(setup->corpus.records, setup->scheme, uint64_t(std::time(nullptr)), o);
  if (!r) return fail(r.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed, r.error().message);
  std::fputs(recommend_table(*r).c_str(), stdout);
  client::OutputWriter out(kWho);
  if (!a.m.json.empty()) out.write(a.m.json, recommend_json(*r, setup->corpus.manifest));
  if (!a.m.html.empty()) out.write(a.m.html, recommend_html(*r, setup->corpus.manifest));
  bool measured_written = true;
  if (!a.dict_dir.empty()) {
    for (const TrainedDictionary& d : r->dictionaries)
      out.write(a.dict_dir + "/" + dictionary_file_name(d.scope), d.bytes);
    if (!r->training_records.empty())
      measured_written = write_measured_corpus(a.dict_dir + "/" + std::string(kMeasuredCorpusName), setup->corpus,
                                               r->training_records);
  }
  if (!r->codec_failures.empty())
    return fail(kExitErrors, "a candidate did not give the values back (listed above): figures suspect");
  return out.all_written() && measured_written ? kExitOk : kExitOutput;
}

// ---- redact --------------------------------------------------------------------------------
int run_redact(const std::string& in, const std::string& out_path) {
  if (Status out = client::check_output_paths({{"-o", out_path}}); !out) return fail(kExitUsage, out.error().message);
  if (client::same_file(in, out_path))
    return fail(kExitUsage, "-o " + out_path + " is the corpus to redact: write the redacted copy to another file");
  remove_on_signal(out_path + ".tmp");
  auto corpus = read_corpus(in);
  if (!corpus) return fail(kExitFailed, corpus.error().message);
  auto scheme = manifest_flag_scheme(corpus->manifest, in);
  if (!scheme) return fail(kExitFailed, scheme.error().message);
  auto writer = CorpusWriter::create(out_path);
  if (!writer) return fail(kExitOutput, writer.error().message);
  const uint64_t secret = random_secret();
  std::map<std::string, uint64_t> left_out;  // by error kind: values that cannot be redacted
  for (const CorpusRecord& rec : corpus->records) {
    auto red = redact_record(rec, *scheme, secret);
    if (!red) {
      ++left_out[to_string(red.error().code)];
      continue;
    }
    if (Status st = writer->add(*red); !st) return fail(kExitOutput, st.error().message);
  }
  Manifest m = corpus->manifest;
  std::string note = "strings and keys replaced (same lengths and character classes)";
  for (const auto& [kind, n] : left_out) note += "; " + std::to_string(n) + " values left out (" + kind + ")";
  redact_manifest(m, note);
  if (Status st = writer->finish(m); !st) return fail(kExitOutput, st.error().message);
  std::printf("corpus %s: %llu values redacted from %s; %s\n", out_path.c_str(), (unsigned long long)writer->records(),
              in.c_str(), m.redact_note.c_str());
  return kExitOk;
}

// ---- show ----------------------------------------------------------------------------------
// The manifest a person reads: one field a line, sizes in units, the time in UTC. The JSON
// itself (corpus/corpus_file.h) is for programs; `compare --json` carries it whole.
void print_manifest(const std::string& path, const Manifest& m) {
  auto field = [](const char* name, const std::string& value) { std::printf("  %-18s %s\n", name, value.c_str()); };
  std::printf("corpus %s\n", path.c_str());
  field("format", m.format + " version " + std::to_string(m.version));
  field("source", m.source.empty() ? "-" : m.source);
  for (size_t i = 0; i < m.nodes.size(); ++i) field(i == 0 ? "nodes" : "", m.nodes[i]);
  char when[64] = "-";
  const std::time_t t = static_cast<std::time_t>(m.sampled_at_unix_s);
  std::tm utc{};
  if (m.sampled_at_unix_s > 0 && ::gmtime_r(&t, &utc)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &utc);
  field("sampled at", when);
  field("flag scheme", m.scheme);
  field("sampling", m.sampling + ", seed " + std::to_string(m.seed));
  field("keys listed", std::to_string(m.keys_seen) + " (" + std::to_string(m.keys_eligible) + " eligible)");
  field("asked for", std::to_string(m.requested_count) + " values, at most " + bytes_text(m.byte_budget));
  field("values", std::to_string(m.values) + ", " + bytes_text(m.value_bytes) + " (values only)");
  field("gone when fetched", std::to_string(m.gone));
  field("too large", std::to_string(m.too_large));
  field("redacted", m.redacted ? "yes: " + m.redact_note : "no");
  for (size_t i = 0; i < m.notes.size(); ++i) field(i == 0 ? "notes" : "", m.notes[i]);
}

int run_show(const std::string& path) {
  auto corpus = read_corpus(path);
  if (!corpus) return fail(kExitFailed, corpus.error().message);
  print_manifest(path, corpus->manifest);
  std::printf("\n");
  auto scheme = manifest_flag_scheme(corpus->manifest, path);
  if (!scheme) return fail(kExitFailed, scheme.error().message);
  struct Kind {
    uint64_t values = 0, bytes = 0;
  };
  std::map<std::string, Kind> kinds;  // "struct:php+fastlz", "unknown_flags", ...
  for (const CorpusRecord& rec : corpus->records) {
    std::string name;
    if (auto info = read_flags(*scheme, rec.flags)) {
      name = info->rep == Representation::html ? "string" : std::string("struct:") + to_string(info->serializer);
      if (info->compressor != CompressorId::none) name += std::string("+") + to_string(info->compressor);
    } else {
      name = to_string(info.error().code);
    }
    kinds[name].values++;
    kinds[name].bytes += rec.value.size();
  }
  std::printf("  %-28s %10s %12s\n", "stored as (flags)", "values", "bytes");
  for (const auto& [name, k] : kinds)
    std::printf("  %-28s %10llu %12s\n", name.c_str(), (unsigned long long)k.values, bytes_text(k.bytes).c_str());
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // redirected (CI): lines in order with stderr's
  CLI::App app{"hitcost-corpus: sample a live memcached and compare every strategy on its values"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 done, 1 could not start (a corpus file missing, truncated or corrupt; memcached unreachable), "
      "2 usage (also an output path that cannot be written, checked before anything runs), 3 a value that did not "
      "read back as written (a codec bug), 4 an output not written at the end, 130 interrupted.");

  SampleArgs s;
  CLI::App* sample_cmd = app.add_subcommand("sample", "read a sample of values, with their flags, from memcached");
  sample_cmd
      ->add_option("--from", s.from,
                   "memcached:HOST:PORT[,HOST:PORT...] (the memcached: prefix is required; ports 1..65535; only read "
                   "from)")
      ->required();
  sample_cmd->add_option("--out,-o", s.out, "the corpus file to write (its directory is checked before sampling)")
      ->required();
  sample_cmd->add_option("--keys", s.keys, "a file of keys, one per line, instead of lru_crawler metadump");
  sample_cmd->add_option("--count,-n", s.count, "values to sample")->capture_default_str();
  sample_cmd->add_option("--max-bytes", s.max_bytes, "byte budget of the sample (K/M/G)")->capture_default_str();
  sample_cmd->add_option("--max-value", s.max_value, "skip larger values (counted)")->capture_default_str();
  sample_cmd->add_option("--weight", s.weight, "uniform | recency (by last access: 1/(1+age_s))")
      ->capture_default_str();
  sample_cmd->add_option("--seed", s.seed, "random seed (the same seed, the same sample)")->capture_default_str();
  sample_cmd->add_option("--scheme", s.scheme, "what the flags mean: php-memcached | php-memcache | native")
      ->capture_default_str();
  sample_cmd->add_flag("--redact", s.redact, "replace every string and key before writing (sizes kept)");
  sample_cmd->add_flag("--quiet,-q", s.quiet, "no progress line");

  CompareArgs c;
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "decode every value, re-encode it under each strategy, measure");
  add_measure_options(compare_cmd, c.m);
  compare_cmd->add_option("--strategies,-s", c.strategies, "comma-separated; STRATEGY@SCHEME for another scheme")
      ->capture_default_str();
  compare_cmd->add_option("--csv", c.csv, "write one CSV row per strategy");
  compare_cmd->add_option(
      "--zstd-dict", c.zstd_dicts,
      "a zstd dictionary ([SCOPE=]FILE, repeatable) for +zstd-dict strategies, as hitcost-server's");

  RecommendArgs rc;
  CLI::App* recommend_cmd = app.add_subcommand(
      "recommend", "search encodings, compressors, levels and thresholds; answer on CPU per hit against cache memory");
  add_measure_options(recommend_cmd, rc.m);
  recommend_cmd->add_option("--memory-weight", rc.memory_weight, "score = CPU ratio + W x memory ratio (0: CPU alone)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  recommend_cmd->add_option("--search-rounds", rc.search_rounds, "interleaved rounds of the search (pruned after each)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  recommend_cmd->add_option("--confirm", rc.confirm, "candidates of the front measured again against today's")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  recommend_cmd->add_flag("--quiet,-q", rc.m.quiet, "no progress lines");
  recommend_cmd->add_option("--dict-dir", rc.dict_dir,
                            "keep the zstd dictionaries trained for the search here, one per representation "
                            "(struct-json.zdict, html.zdict, ...) for hitcost-server --zstd-dict");
  recommend_cmd->add_flag("--no-dict", rc.no_dict,
                          "no zstd dictionaries: every value measured, none left out for training");

  std::string redact_in, redact_out;
  CLI::App* redact_cmd = app.add_subcommand("redact", "write a corpus safe to hand over: strings and keys replaced");
  redact_cmd->add_option("corpus", redact_in, "the corpus to redact")->required();
  redact_cmd->add_option("--out,-o", redact_out, "the redacted corpus to write (not the input)")->required();

  std::string show_path;
  CLI::App* show_cmd =
      app.add_subcommand("show", "print a corpus's manifest (a field a line) and its values by stored form");
  show_cmd->add_option("corpus", show_path, "a corpus file")->required();

  TraceVerbArgs traffic;
  add_trace_verbs(app, traffic);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  if (*sample_cmd) return run_sample(s);
  if (*compare_cmd) return run_compare_verb(c);
  if (*recommend_cmd) return run_recommend_verb(rc);
  if (*redact_cmd) return run_redact(redact_in, redact_out);
  if (*show_cmd) return run_show(show_path);
  if (auto rc = run_trace_verbs(traffic)) return *rc;
  return kExitUsage;
}
