#include "advise/trace_verbs.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "advise/cli_common.h"
#include "core/duration.h"
#include "corpus/memcached_text.h"
#include "corpus/redact_record.h"
#include "corpus/sampler.h"
#include "report/exit_code.h"
#include "report/files.h"
#include "stores/store.h"
#include "trace/import.h"
#include "trace/recorder.h"
#include "trace/trace_summary.h"

namespace hitcost::corpus_cli {
namespace {

using namespace hitcost::trace;
using client::kExitFailed;
using client::kExitOk;
using client::kExitOutput;
using client::kExitUsage;

std::atomic<bool> g_stop_recording{false};
extern "C" void on_record_signal(int) { g_stop_recording.store(true); }

std::string limits_text(const WriterLimits& l) {
  std::string t;
  if (l.max_events > 0) t += " --max-events " + std::to_string(l.max_events);
  if (l.max_bytes > 0) t += " --max-bytes " + bytes_text(l.max_bytes);
  return t;
}

Result<WriterLimits> parse_limits(const TraceVerbArgs& a) {
  WriterLimits l;
  auto events = parse_size(a.max_events), bytes = parse_size(a.max_bytes);
  if (!events) return Error{Errc::invalid_argument, "--max-events: " + events.error().message};
  if (!bytes) return Error{Errc::invalid_argument, "--max-bytes: " + bytes.error().message};
  l.max_events = *events;
  l.max_bytes = *bytes;
  return l;
}

std::string ratio_text(uint64_t n, uint64_t total) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", total == 0 ? 0.0 : 100.0 * double(n) / double(total));
  return buf;
}

// --json through the outputs' one writer (report/files.h): "" is not asked for.
int write_json(const std::string& path, const nlohmann::json& j) {
  client::OutputWriter out(kWho);
  out.write(path, j.dump(2) + "\n");
  return out.all_written() ? kExitOk : kExitOutput;
}

// --values-out's default: the trace's name with .hcorpus for its extension (my.hctrace -> my.hcorpus).
std::string values_path_for(const std::string& trace_path) {
  const size_t slash = trace_path.rfind('/');
  const size_t dot = trace_path.rfind('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  return (has_extension ? trace_path.substr(0, dot) : trace_path) + ".hcorpus";
}

// record --values: the most-read keys' values, fetched (read only: `get`) into the corpus at
// `corpus_path` by sample's engine, so the traffic and the values it asks for travel together.
Result<nlohmann::json> fetch_top_values(const TraceVerbArgs& a, const RecordOptions& ro, const RecordResult& r,
                                        FlagScheme scheme, const std::string& corpus_path) {
  const TopKeys::Top& top = r.top_keys;
  if (top.keys.empty()) return Error{Errc::invalid_argument, "--values: the recording read no key"};
  corpus::SampleOptions o;
  o.nodes = {ro.address};
  for (const TopKeys::Entry& e : top.keys) o.keys.push_back(e.key);
  o.keys_note = "the " + std::to_string(o.keys.size()) + " most-read keys of the recording " + a.out +
                (top.certain ? "" : " (by a Space-Saving count: the last few may be near-ties)");
  o.count = o.keys.size();
  o.output_path = corpus_path;
  o.scheme = to_string(scheme);
  if (a.redact) {
    const uint64_t secret = random_secret();
    o.redact = [secret, scheme](const corpus::CorpusRecord& rec) { return corpus::redact_record(rec, scheme, secret); };
  }
  // The trace is complete: from here Ctrl-C ends the program (130) and removes the corpus's .tmp.
  remove_on_signal(o.output_path + ".tmp");
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  auto sampled = corpus::sample(o);
  if (!sampled) return sampled.error();
  const corpus::Manifest& m = sampled->manifest;
  std::printf("corpus %s: %llu values (%s) of the %zu most-read keys%s, %llu gone since, %llu too large%s\n",
              sampled->path.c_str(), (unsigned long long)m.values, bytes_text(m.value_bytes).c_str(), o.keys.size(),
              top.certain ? "" : " (Space-Saving estimate)", (unsigned long long)m.gone,
              (unsigned long long)m.too_large, m.redacted ? ", redacted" : "");
  const uint64_t top_reads = [&] {
    uint64_t n = 0;
    for (const TopKeys::Entry& e : top.keys) n += e.count - e.error;
    return n;
  }();
  std::printf("  those keys took at least %llu of the %llu reads recorded (%s)\n", (unsigned long long)top_reads,
              (unsigned long long)r.top_reads, ratio_text(top_reads, r.top_reads).c_str());
  return nlohmann::json{
      {"corpus", sampled->path}, {"keys", o.keys.size()},    {"values", m.values},     {"value_bytes", m.value_bytes},
      {"gone", m.gone},          {"too_large", m.too_large}, {"certain", top.certain}, {"reads_of_keys", top_reads},
      {"reads", r.top_reads}};
}

int run_record(const TraceVerbArgs& a) {
  if (a.from.rfind("memcached:", 0) != 0)
    return fail(kExitUsage, "--from '" + a.from + "': want memcached:HOST:PORT, e.g. --from memcached:" + a.from);
  RecordOptions o;
  o.address = a.from.substr(10);
  if (auto hp = corpus::split_host_port(o.address); !hp) return fail(kExitUsage, "--from: " + hp.error().message);
  o.output_path = a.out;
  const auto duration = parse_duration_ns(a.duration), baseline = parse_duration_ns(a.baseline);
  if (!duration || *duration == 0) return fail(kExitUsage, "--duration '" + a.duration + "': want e.g. 60s");
  if (!baseline) return fail(kExitUsage, "--baseline '" + a.baseline + "': want e.g. 5s, or 0");
  o.duration_s = double(*duration) / 1e9;
  o.baseline_s = double(*baseline) / 1e9;
  auto limits = parse_limits(a);
  if (!limits) return fail(kExitUsage, limits.error().message);
  o.limits = *limits;
  o.keep_keys = a.keep_keys;
  auto values = parse_size(a.values);
  if (!values) return fail(kExitUsage, "--values: " + values.error().message);
  o.top_keys = *values;
  auto scheme = parse_flag_scheme(a.scheme);
  if (!scheme) return fail(kExitUsage, "--scheme: " + scheme.error().message);
  if (o.top_keys == 0 && (!a.values_out.empty() || a.redact))
    return fail(kExitUsage, "--values-out and --redact are for the values: give --values N");
  const std::string values_out = o.top_keys == 0 ? "" : a.values_out.empty() ? values_path_for(a.out) : a.values_out;
  if (Status out = client::check_output_paths({{"-o", a.out}, {"--values-out", values_out}, {"--json", a.json}}); !out)
    return fail(kExitUsage, out.error().message);
  // Ctrl-C ends the recording early and keeps what was recorded.
  o.stop = &g_stop_recording;
  std::signal(SIGINT, on_record_signal);
  std::signal(SIGTERM, on_record_signal);
  if (!a.quiet)
    std::fprintf(stderr, "record: %s for %s%s (baseline %s first); Ctrl-C ends it early, the file kept\n",
                 a.from.c_str(), a.duration.c_str(), limits_text(o.limits).c_str(), a.baseline.c_str());
  auto r = record(o);
  if (!r) return fail(r.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed, r.error().message);
  const WatchCounts& w = r->watch;
  std::printf("trace %s: %llu events from %s (memcached %s), stopped by %s\n", a.out.c_str(),
              (unsigned long long)r->events_written, a.from.c_str(), r->memcached_version.c_str(),
              r->stopped_by.c_str());
  std::printf("  lost: %llu skipped by memcached (watcher behind), %llu missing by gid, %llu malformed lines\n",
              (unsigned long long)w.skipped, (unsigned long long)w.missing_by_gid(), (unsigned long long)w.malformed);
  for (const std::string& example : w.malformed_examples) std::printf("    malformed: %s\n", example.c_str());
  std::printf("  %llu stores' own lookups left out; %llu events later than the 1 s reorder window\n",
              (unsigned long long)w.own_lookups_dropped, (unsigned long long)w.late);
  std::printf("  recorded:");
  for (const auto& [k, n] : r->recorded)
    std::printf(" %s/%s %llu", k.first.c_str(), k.second.c_str(), (unsigned long long)n);
  std::printf("\n  memcached's counters over the window:");
  for (const auto& [name, n] : r->counters)
    if (n > 0) std::printf(" %s %llu", name.c_str(), (unsigned long long)n);
  const uint64_t unnamed = r->counters["delete_hits"] + r->counters["delete_misses"] + r->counters["incr_hits"] +
                           r->counters["incr_misses"] + r->counters["decr_hits"] + r->counters["decr_misses"] +
                           r->counters["touch_hits"] + r->counters["touch_misses"];
  std::printf("\n  %llu delete/incr/decr/touch by the counters: memcached %s logs them as lookups (gets)\n",
              (unsigned long long)unnamed, r->memcached_version.c_str());
  auto cpu_line = [](const char* name, const CpuWindow& c) {
    std::printf("  memcached CPU %-9s %.2f us per command (%.3f s CPU, %llu commands in %.1f s)\n", name,
                c.us_per_command(), c.cpu_s, (unsigned long long)c.commands, c.seconds);
  };
  if (o.baseline_s > 0) cpu_line("unwatched", r->baseline);
  cpu_line("watched", r->recording);
  if (o.baseline_s > 0 && r->baseline.commands > 0 && r->recording.commands > 0)
    std::printf("  observer effect: %.2fx memcached's CPU per command while watched\n",
                r->recording.us_per_command() / r->baseline.us_per_command());

  nlohmann::json j = {{"trace", a.out},
                      {"from", a.from},
                      {"memcached_version", r->memcached_version},
                      {"events", r->events_written},
                      {"stopped_by", r->stopped_by},
                      {"skipped", w.skipped},
                      {"missing_by_gid", w.missing_by_gid()},
                      {"malformed", w.malformed},
                      {"own_lookups_dropped", w.own_lookups_dropped},
                      {"late", w.late},
                      {"counters", r->counters},
                      {"baseline",
                       {{"seconds", r->baseline.seconds},
                        {"cpu_s", r->baseline.cpu_s},
                        {"commands", r->baseline.commands},
                        {"us_per_command", r->baseline.us_per_command()}}},
                      {"recording",
                       {{"seconds", r->recording.seconds},
                        {"cpu_s", r->recording.cpu_s},
                        {"commands", r->recording.commands},
                        {"us_per_command", r->recording.us_per_command()}}}};
  nlohmann::json recorded = nlohmann::json::array();
  for (const auto& [k, n] : r->recorded) recorded.push_back({{"op", k.first}, {"outcome", k.second}, {"events", n}});
  j["recorded"] = recorded;
  int code = kExitOk;
  if (o.top_keys > 0) {
    // The trace is whole already; a failure here costs only the values (said, exit 1).
    auto got = fetch_top_values(a, o, *r, *scheme, values_out);
    if (got) {
      j["values"] = *got;
    } else {
      code = fail(kExitFailed, "--values: " + got.error().message + " (the trace " + a.out + " is kept)");
      j["values"] = {{"error", got.error().message}};
    }
  }
  const int json_code = write_json(a.json, j);
  return code != kExitOk ? code : json_code;
}

int run_import(const TraceVerbArgs& a) {
  ImportOptions o;
  auto format = parse_import_format(a.format);
  if (!format) return fail(kExitUsage, "--format: " + format.error().message);
  o.format = *format;
  o.input_path = a.input;
  o.output_path = a.out;
  auto limits = parse_limits(a);
  if (!limits) return fail(kExitUsage, limits.error().message);
  o.limits = *limits;
  o.keep_keys = a.keep_keys;
  if (Status out = client::check_output_paths({{"-o", a.out}}); !out) return fail(kExitUsage, out.error().message);
  if (client::same_file(a.input, a.out))
    return fail(kExitUsage, "-o " + a.out + " is the input: it would be overwritten");
  remove_on_signal(a.out + ".tmp");
  auto r = import_trace(o);
  if (!r) return fail(kExitFailed, r.error().message);
  std::printf("trace %s: %llu events from %llu %s of %s%s (%s)%s\n", a.out.c_str(), (unsigned long long)r->events,
              (unsigned long long)r->lines, o.format == ImportFormat::twemcache ? "lines" : "records", a.input.c_str(),
              r->compressed ? ", zstd" : "", to_string(o.format),
              r->stopped_by.empty() ? "" : (", stopped: " + r->stopped_by).c_str());
  if (r->time_backwards > 0)
    std::printf("  %llu events earlier than the one before, imported at its time\n",
                (unsigned long long)r->time_backwards);
  for (const auto& [kind, bad] : r->bad) {
    std::string lines;
    for (uint64_t n : bad.first_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(n);
    std::printf("  bad %s: %llu (%s of the input), first at %s %s\n", kind.c_str(), (unsigned long long)bad.count,
                ratio_text(bad.count, r->lines).c_str(), o.format == ImportFormat::twemcache ? "lines" : "records",
                lines.c_str());
  }
  return kExitOk;
}

int run_show(const TraceVerbArgs& a) {
  if (Status out = client::check_output_paths({{"--json", a.json}}); !out) return fail(kExitUsage, out.error().message);
  auto trace = TraceReader::open(a.show_path);
  if (!trace) return fail(kExitFailed, trace.error().message);
  const TraceSummary s = summarize(*trace);
  std::printf("trace %s (%s)\n%s", a.show_path.c_str(), bytes_text(trace->file_bytes()).c_str(), to_text(s).c_str());
  if (!a.json.empty()) {
    nlohmann::json j = s;
    return write_json(a.json, j);
  }
  return kExitOk;
}

}  // namespace

void add_trace_verbs(CLI::App& app, TraceVerbArgs& a) {
  a.record = app.add_subcommand("record", "record what a live memcached is asked (its `watch` stream) into a trace");
  a.record->add_option("--from", a.from, "memcached:HOST:PORT (only read: `stats` and `watch`)")->required();
  a.record->add_option("--out,-o", a.out, "the trace file to write")->required();
  a.record->add_option("--duration", a.duration, "how long to record")->capture_default_str();
  a.record
      ->add_option("--baseline", a.baseline, "memcached's CPU per command measured this long unwatched first (0: not)")
      ->capture_default_str();
  a.record->add_option("--max-events", a.max_events, "stop after this many events (0: no limit)")
      ->capture_default_str();
  a.record->add_option("--max-bytes", a.max_bytes, "stop before the file passes this size (K/M/G; 0: no limit)")
      ->capture_default_str();
  a.record->add_flag("--keep-keys", a.keep_keys, "also keep the keys in clear in the file (default: hashed only)");
  a.record->add_option("--values", a.values, "also fetch the values of the N most-read keys into a corpus (0: not)")
      ->capture_default_str();
  a.record->add_option("--values-out", a.values_out, "the corpus --values writes (default: the trace's name .hcorpus)");
  a.record->add_option("--scheme", a.scheme, "--values: what the flags mean: php-memcached | php-memcache | native")
      ->capture_default_str();
  a.record->add_flag("--redact", a.redact, "--values: replace every string and key before writing (sizes kept)");
  a.record->add_option("--json", a.json, "write the recording's counts and memcached's CPU as JSON");
  a.record->add_flag("--quiet,-q", a.quiet, "no start line");

  CLI::App* trace_cmd = app.add_subcommand("trace", "import a public trace, or show what a trace holds");
  trace_cmd->require_subcommand(1);
  a.import = trace_cmd->add_subcommand("import", "a twemcache CSV or oracleGeneral file (plain or .zst) into a trace");
  a.import->add_option("--format", a.format, "twemcache | oraclegeneral")->required();
  a.import->add_option("input", a.input, "the file to import")->required();
  a.import->add_option("--out,-o", a.out, "the trace file to write")->required();
  a.import->add_option("--max-events", a.max_events, "stop after this many events (0: no limit)")
      ->capture_default_str();
  a.import->add_option("--max-bytes", a.max_bytes, "stop before the file passes this size (K/M/G; 0: no limit)")
      ->capture_default_str();
  a.import->add_flag("--keep-keys", a.keep_keys, "also keep the keys in clear in the file (default: hashed only)");
  a.show = trace_cmd->add_subcommand("show", "requests, keys, op mix, sizes, popularity, arrivals, miss ratio");
  a.show->add_option("trace", a.show_path, "a trace file")->required();
  a.show->add_option("--json", a.json, "also write the summary as JSON");
}

std::optional<int> run_trace_verbs(const TraceVerbArgs& a) {
  if (a.record && *a.record) return run_record(a);
  if (a.import && *a.import) return run_import(a);
  if (a.show && *a.show) return run_show(a);
  return std::nullopt;
}

}  // namespace hitcost::corpus_cli
