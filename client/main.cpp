// hitcost-load: drives hitcost-server and reports what a cache hit costs.
// Recipe: parse options → build the load plan → run (or sweep) → report.
// `report` and `merge` only read JSON written earlier (no load, no server).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include "client/options.h"
#include "client/sweep.h"
#include "figures/series.h"
#include "measure/admin_client.h"
#include "measure/preflight.h"
#include "measure/run_output.h"
#include "report/compare.h"
#include "report/exit_code.h"
#include "report/files.h"
#include "report/html_report.h"
#include "report/merge.h"
#include "report/summary.h"

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

std::vector<nlohmann::json> load_all(const std::vector<std::string>& paths, bool* ok) {
  std::vector<nlohmann::json> docs;
  for (const auto& path : paths) {
    auto j = hitcost::client::load_json_file(path);
    if (!j) {
      std::fprintf(stderr, "hitcost-load: %s\n", j.error().message.c_str());
      *ok = false;
      continue;
    }
    docs.push_back(std::move(*j));
  }
  return docs;
}

// Every output path of a command checked before it reads, loads or measures anything.
bool outputs_writable(const char* who, const std::vector<hitcost::client::OutputPath>& outputs) {
  const hitcost::Status st = hitcost::client::check_output_paths(outputs);
  if (!st) std::fprintf(stderr, "%s: %s\n", who, st.error().message.c_str());
  return bool(st);
}

int run_report(const hitcost::client::FilesOptions& o) {
  using namespace hitcost::client;
  if (!outputs_writable("hitcost-load report", {{"--html", o.html_out}})) return kExitUsage;
  bool ok = true;
  const auto docs = load_all(o.inputs, &ok);
  if (!ok) return kExitUsage;
  OutputWriter out("hitcost-load report");
  out.write(o.html_out, html_report(docs, o.title.empty() ? "hitcost report" : o.title));
  return out.all_written() ? kExitOk : kExitOutput;
}

int run_merge(const hitcost::client::FilesOptions& o) {
  using namespace hitcost::client;
  if (!outputs_writable("hitcost-load merge", {{"--json", o.json_out}, {"--csv", o.csv_out}, {"--html", o.html_out}}))
    return kExitUsage;
  bool ok = true;
  const auto docs = load_all(o.inputs, &ok);
  if (!ok) return kExitUsage;
  std::vector<std::string> warnings;
  auto merged = merge_docs(docs, o.inputs, &warnings);
  if (!merged) {
    std::fprintf(stderr, "hitcost-load merge: %s\n", merged.error().message.c_str());
    return kExitUsage;
  }
  for (const auto& w : warnings) std::fprintf(stderr, "hitcost-load merge: warning: %s\n", w.c_str());
  OutputWriter out("hitcost-load merge");
  if (o.json_out.empty())
    std::printf("%s\n", merged->dump(2).c_str());
  else
    out.write(o.json_out, merged->dump(2) + "\n");
  if (!o.csv_out.empty()) {
    std::string csv = csv_run_header();
    if (merged->contains("runs"))
      for (const auto& r : (*merged)["runs"]) csv += csv_run_row(r);
    else
      csv += csv_run_row(*merged);
    out.write(o.csv_out, csv);
  }
  if (!o.html_out.empty())
    out.write(o.html_out, html_report({*merged}, o.title.empty() ? "hitcost merged report" : o.title));
  return out.all_written() ? kExitOk : kExitOutput;
}
}  // namespace

int run_compare(const hitcost::client::CompareOptions& o) {
  using namespace hitcost::client;
  if (!outputs_writable("hitcost-load compare", {{"--json", o.json_out}, {"--csv", o.csv_out}, {"--html", o.html_out}}))
    return kExitUsage;
  std::vector<std::pair<std::string, nlohmann::json>> docs;
  std::vector<std::string> labels;
  for (const std::string& in : o.inputs) {
    auto li = parse_labelled_input(in);
    if (!li) {
      std::fprintf(stderr, "hitcost-load compare: '%s' is not LABEL=FILE\n", in.c_str());
      return kExitUsage;
    }
    auto j = load_json_file(li->second);
    if (!j) {
      std::fprintf(stderr, "hitcost-load compare: %s\n", j.error().message.c_str());
      return kExitUsage;
    }
    labels.push_back(li->first);
    docs.emplace_back(li->first, std::move(*j));
  }
  const std::string baseline = o.baseline.empty() ? labels.front() : o.baseline;
  if (std::find(labels.begin(), labels.end(), baseline) == labels.end()) {
    std::fprintf(stderr, "hitcost-load compare: --baseline %s is not a label of the inputs\n", baseline.c_str());
    return kExitUsage;
  }
  auto runs = pool_backend_runs(docs);
  if (!runs) {
    std::fprintf(stderr, "hitcost-load compare: %s\n", runs.error().message.c_str());
    return kExitUsage;
  }
  VerdictOptions vo;
  vo.alpha = o.alpha;
  vo.min_effect = o.min_effect;
  vo.sequential = o.min_rounds > 0;
  vo.design.min_rounds = std::max(2, o.min_rounds);
  vo.design.max_rounds = std::max(vo.design.min_rounds, o.max_rounds);
  const Summary summary = summarize(*runs, compare_options(labels, baseline, vo));
  std::printf("%s", format_summary(summary).c_str());
  nlohmann::json doc = summary_json(summary);
  doc["runs"] = *runs;
  doc["compare"] = {{"labels", labels}, {"baseline", baseline}, {"inputs", o.inputs}};
  OutputWriter out("hitcost-load compare");
  out.write(o.json_out, doc.dump(2) + "\n");
  out.write(o.csv_out, csv_summary(summary));
  if (!o.html_out.empty()) out.write(o.html_out, html_report({doc}, "hitcost: backends compared"));
  return out.all_written() ? kExitOk : kExitOutput;
}

// A plain run: check what can be checked first (the line, outputs, the server, the first
// request), measure, print, write every output asked for, then say how it went. --check-args
// stops after the line: nothing looked up, written or connected.
int run_once(const hitcost::client::RunOptions& run) {
  using namespace hitcost::client;
  const Lookup lookup = run.check_args ? Lookup::no : Lookup::yes;
  auto mo = measure_options(run, lookup);
  if (!mo) {
    std::fprintf(stderr, "hitcost-load: %s\n", mo.error().message.c_str());
    return kExitUsage;
  }
  if (const hitcost::Status start = apply_start_at(run, *mo, lookup); !start) {
    std::fprintf(stderr, "hitcost-load: %s\n", start.error().message.c_str());
    return kExitUsage;
  }
  if (const hitcost::Status trace =
          check_trace_options(run, run.requests > 0, run.hit_ratio.has_value(), run.rows.has_value());
      !trace) {
    std::fprintf(stderr, "hitcost-load: %s\n", trace.error().message.c_str());
    return kExitUsage;
  }
  if (!run.check_args &&
      !outputs_writable(
          "hitcost-load",
          {{"--json", run.json_out}, {"--csv", run.csv_out}, {"--hdr-out", run.hdr_out}, {"--html", run.html_out}}))
    return kExitUsage;
  // Last of the checks: a --url host name is resolved in there, once (exit 1 when it does not).
  auto plan = build_plan(run, run.duration, run.requests, run.hit_ratio, run.rows, run.strategy, lookup);
  if (!plan) {
    const bool network = plan.error().code == hitcost::Errc::connection;
    std::fprintf(stderr, "hitcost-load: %s%s\n", plan.error().message.c_str(), network ? ": nothing measured" : "");
    return network ? kExitFailed : kExitUsage;
  }
  if (run.check_args) return arguments_ok();
  if (const hitcost::Status reachable = check_reachable(plan->endpoint); !reachable) {
    std::fprintf(stderr, "hitcost-load: %s: nothing measured\n", reachable.error().message.c_str());
    return kExitFailed;
  }
  if (const hitcost::Status first = check_first_request(*plan); !first) {
    std::fprintf(stderr, "hitcost-load: %s\n", first.error().message.c_str());
    return kExitUsage;
  }
  if (!run.trace.empty()) {
    if (const hitcost::Status replay =
            attach_trace(*plan, run, run.requests > 0, run.hit_ratio.has_value(), run.rows.has_value());
        !replay) {
      std::fprintf(stderr, "hitcost-load: %s\n", replay.error().message.c_str());
      return replay.error().code == hitcost::Errc::invalid_argument ? kExitUsage : kExitFailed;
    }
    std::fprintf(stderr, "%s\n", replay_line(*plan->replay, plan->duration_ns).c_str());
  }
  mo->progress = !run.no_progress && ::isatty(2);  // transient, so -q keeps it too
  RunReport report = measure_run(*plan, *mo, &g_stop);
  report.rows = run.rows;
  std::fputs(format_terminal(report, run.quiet).c_str(), stdout);
  if (run.quiet) std::fputs(format_error_lines(report).c_str(), stdout);
  if (run.series) std::printf("\n  per second\n%s", format_series(report.load.series, report.load.window_s).c_str());
  const nlohmann::json j = to_json(report);
  OutputWriter out("hitcost-load");
  out.write(run.json_out, j.dump(2) + "\n");
  out.write(run.csv_out, csv_run_header() + csv_run_row(j));
  if (!run.hdr_out.empty()) out.write(run.hdr_out, report.load.latency.percentiles_text(1000.0));
  if (!run.html_out.empty()) out.write(run.html_out, html_report({j}, "hitcost run"));

  int code = kExitOk;
  if (report.interrupted())
    code = kExitInterrupted;
  else if (report.load.requests == 0) {
    std::fprintf(stderr, "hitcost-load: no response in the window: nothing was measured\n");
    code = kExitFailed;
  } else if (report.over_error_limit()) {
    code = kExitErrors;  // the report's ERRORS line says which limit and by how much
  }
  return worse_exit(code, out.all_written() ? kExitOk : kExitOutput);
}

int main(int argc, char** argv) {
  // Redirected to a file or a pipe (CI, a script's log), stdout would be block-buffered and its
  // lines would land after the stderr lines printed later: one line at a time keeps the order.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  using namespace hitcost::client;
  CLI::App app{"hitcost-load: load generator and cost report for hitcost-server"};
  RunOptions run;
  add_run_options(app, run);
  SweepOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "compare strategies (and stores) with repeats and verdicts");
  add_sweep_options(*sweep_cmd, sweep);
  // `replay TRACE`: a plain run of the trace (the same as --trace TRACE).
  RunOptions replay;
  CLI::App* replay_cmd = app.add_subcommand("replay", "replay a trace at its own pace (a plain run with --trace)");
  add_run_options(*replay_cmd, replay);
  replay_cmd->add_option("file", replay.trace, "the trace (hitcost-corpus record / trace import)")->required();
  FilesOptions report_opts, merge_opts;
  CLI::App* report_cmd = app.add_subcommand("report", "build an HTML report from saved run/sweep JSON files");
  add_report_options(*report_cmd, report_opts);
  CLI::App* merge_cmd =
      app.add_subcommand("merge", "combine the JSONs of several client machines that ran at the same time");
  add_merge_options(*merge_cmd, merge_opts);
  CompareOptions compare_opts;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare", "compare the same strategies on different backends (C++ and PHP), from sweep JSONs");
  add_compare_options(*compare_cmd, compare_opts);
  app.require_subcommand(0, 1);
  app.footer(
      "Exit codes: 0 a measurement, 1 nothing measured (the server unreachable: told within 2 s), 2 usage (also "
      "an output path that cannot be written, a strategy the server refuses: all checked before the first run), 3 "
      "errors above the limits, 4 an output not written at the end, 130 interrupted.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help prints and is a success
  }

  // --check-args before a subcommand's name is the main command's option: it still holds for
  // the sweep or replay named after it, and is refused for the commands that only read files.
  if (run.check_args) {
    if (*report_cmd || *merge_cmd || *compare_cmd) {
      std::fprintf(stderr, "hitcost-load: --check-args is for a run, a replay or a sweep\n");
      return kExitUsage;
    }
    sweep.check_args = replay.check_args = true;
  }
  if (*report_cmd) return run_report(report_opts);
  if (*merge_cmd) return run_merge(merge_opts);
  if (*compare_cmd) return run_compare(compare_opts);

  // The admin token, once, before anything asks the server (not with --check-args).
  const LoadOptions& load = *sweep_cmd    ? static_cast<const LoadOptions&>(sweep)
                            : *replay_cmd ? static_cast<const LoadOptions&>(replay)
                                          : static_cast<const LoadOptions&>(run);
  if (!load.check_args && !load.admin_token_file.empty()) {
    auto token = read_admin_token(load.admin_token_file);
    if (!token) {
      std::fprintf(stderr, "hitcost-load: %s\n", token.error().message.c_str());
      return token.error().code == hitcost::Errc::invalid_argument ? kExitUsage : kExitFailed;
    }
    set_admin_token(std::move(*token));
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);  // a closed peer is an error we count, not a crash

  try {
    if (*sweep_cmd) return run_sweep(sweep, &g_stop);
    if (*replay_cmd) return run_once(replay);
    return run_once(run);
  } catch (const std::exception& e) {  // set-up failures (load/load_runner.h)
    std::fprintf(stderr, "hitcost-load: %s\n", e.what());
    return g_stop.load() ? kExitInterrupted : kExitFailed;
  }
}
