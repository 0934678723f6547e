#include "advise/trace_verbs.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "advise/cli_common.h"
#include "core/duration.h"
#include "corpus/memcached_text.h"
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
  if (Status out = client::check_output_paths({{"-o", a.out}, {"--json", a.json}}); !out)
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
  return write_json(a.json, j);
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
