#include "client/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "client/sweep_axes.h"
#include "core/clock.h"
#include "measure/admin_client.h"
#include "measure/run_output.h"
#include "report/exit_code.h"

namespace hitcost::client {

Result<std::vector<int64_t>> parse_pid_list(std::string_view text, Lookup lookup) {
  std::vector<int64_t> out;
  for (const std::string& item : split_list(text)) {
    int64_t pid = 0;
    auto r = std::from_chars(item.data(), item.data() + item.size(), pid);
    if (r.ec != std::errc() || r.ptr != item.data() + item.size() || pid <= 0)
      return Error{Errc::invalid_argument, "'" + item + "' is not a pid"};
    if (lookup == Lookup::yes && !proc::read_process(pid))
      return Error{Errc::invalid_argument,
                   "no process " + item + " visible here (the server must run on this machine)"};
    out.push_back(pid);
  }
  if (out.empty()) return Error{Errc::invalid_argument, "no pid given"};
  return out;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string item(text.substr(0, comma));
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

Result<std::vector<std::string>> parse_log_modes(std::string_view text) {
  return parse_axis_values(*find_sweep_axis("log"), "--log-modes", text);
}

std::optional<std::vector<RowsShare>> parse_rows_mix(std::string_view text) {
  std::vector<RowsShare> mix;
  for (const std::string& item : split_list(text)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return std::nullopt;
    RowsShare s;
    const std::string rows = item.substr(0, colon), weight = item.substr(colon + 1);
    auto [p, ec] = std::from_chars(rows.data(), rows.data() + rows.size(), s.rows);
    if (ec != std::errc() || p != rows.data() + rows.size() || s.rows < 1 || s.rows > 1'000'000) return std::nullopt;
    char* end = nullptr;
    s.weight = std::strtod(weight.c_str(), &end);
    if (weight.empty() || *end != '\0' || !(s.weight > 0) || !std::isfinite(s.weight)) return std::nullopt;
    mix.push_back(s);
  }
  if (mix.empty() || mix.size() > 1000) return std::nullopt;
  return mix;
}

uint64_t default_miss_start(uint64_t keys) {
  const auto secs =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return keys + 10'000'000ULL * (1 + uint64_t(secs) % 90'000ULL);
}

namespace {
void add_load_options(CLI::App& app, LoadOptions& o) {
  app.add_option("--trace", o.trace,
                 "replay this trace (hitcost-corpus record / trace import) at its own pace: reads GET, writes "
                 "PUT, deletes DELETE /page/{id}?rows=R, each key a page sized to its value (a sweep: every run)");
  CLI::Option* speed =
      app.add_option("--speed", o.speed, "--trace: replay at this multiple of the trace's pace (2 = twice as fast)")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
  CLI::Option* as_recorded =
      app.add_flag("--as-recorded")
          ->description("--trace: at the trace's own pace (the default; says so, and not with --speed or --rate)");
  as_recorded->excludes(speed);
  app.add_option("--values", o.values,
                 "--trace: the corpus the server serves at /value/{n} (hitcost-server --corpus): each key one value "
                 "of its size class, reads GET /value/{n}");
  app.add_option("--url", o.url,
                 "server base URL, http://HOST:PORT (an IP address or a host name, port 1..65535); a path is "
                 "refused: request paths go in --path-template. A name is resolved once, at start, before anything "
                 "is timed (every connection goes to that address; a name that does not resolve exits 1). Checked "
                 "before the first run: no answer within 2 s exits 1");
  app.add_flag("--check-args", o.check_args,
               "check the command line as a run (or sweep) would — the load plan, the measuring options — print "
               "'hitcost-load: arguments ok' and exit 0 (a usage error exits 2 as always), with nothing connected, "
               "looked up, read or written. Skipped, as they need the network or this machine: resolving host names "
               "(only their form is checked), whether --cpus are online here, whether --server-pids/--cache-pids "
               "exist here, whether the output files can be written, reading --trace and --values, and what only "
               "the server can judge (a run's --strategy, a sweep's --strategies, --stores and axis values)");
  app.add_option("--admin-token-file", o.admin_token_file,
                 "the token a server started with --admin-remote --admin-token-file wants from a remote peer: its "
                 "first line, read once at start (unreadable: exit 1; empty: exit 2; not read with --check-args), "
                 "sent as 'Authorization: Bearer TOKEN' on every admin request (POST /admin/*: the floor's "
                 "calibrate, a sweep's config and warm), never printed or recorded")
      ->envname("HITCOST_ADMIN_TOKEN_FILE");
  app.add_option("--warmup", o.warmup, "load before the measured window, not counted (500ms, 1s)")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "per-request timeout; counted as a timeout error")->capture_default_str();
  app.add_option("--connections,-c", o.connections, "TCP connections, one request in flight each")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--threads,-t", o.threads, "load threads, one epoll loop each")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--keys", o.keys, "warmed key space: page ids 0..keys-1")->capture_default_str();
  app.add_option("--key-dist", o.key_dist, "uniform | zipf:S")->capture_default_str();
  app.add_option("--path-template", o.path_template, "request path; {id} is replaced by the page id")
      ->capture_default_str();
  app.add_option("--rate", o.rate,
                 "open loop: total requests/s at fixed intended times; latency from the intended "
                 "send time (coordinated omission corrected). 0 = closed loop. With --trace: the speed that "
                 "gives the trace's mean rate N/s")
      ->capture_default_str()
      ->excludes(as_recorded);
  app.add_option("--spin-us", o.spin_us,
                 "open loop: poll instead of sleeping when the next send is due within this many µs, so it "
                 "leaves on time (costs client CPU); 0 = always sleep; auto = how late this machine's timed "
                 "waits end (90th percentile of the last 32, + 5 µs)")
      ->capture_default_str();
  app.add_option("--cpus", o.cpus, "pin load thread i to the i-th CPU of this list (0,1 or 2-3)");
  app.add_option("--miss-start", o.miss_start,
                 "first never-seen page id used for forced misses (default: derived from the clock)");
  app.add_option("--seed", o.seed, "RNG seed (thread i uses a seed derived from it)")->capture_default_str();
  app.add_flag("--quiet,-q", o.quiet, "print only the summary line(s)");
  app.add_flag("--no-server-stats", o.no_server_stats, "do not GET /stats around the window");
  app.add_flag("--no-progress", o.no_progress,
               "no progress line (it is drawn on stderr only when stderr is a terminal)");
  app.add_option("--rows-mix", o.rows_mix,
                 "page sizes per request as rows:weight, e.g. 5:0.2,50:0.7,500:0.1 (sweep warms every size)");
  app.add_option("--retry-contaminated", o.retry_contaminated,
                 "re-run a run flagged contaminated (other work on its CPUs) up to N times; keep the cleanest")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app.add_option("--html", o.html_out,
                 "write a self-contained HTML report (inline SVG charts) to FILE (every output's directory is "
                 "checked before the first run)");
  app.add_option("--idle", o.idle,
                 "before each run, measure the CPU of server, cache and client with no load for this long "
                 "(net figures subtract it); 0 = none")
      ->capture_default_str();
  app.add_flag("--no-floor", o.no_floor,
               "do not ask the server for the floor of the hit before each run (POST /admin/calibrate, ~0.2 s "
               "of its CPU; reports then show no floor)");
  app.add_option("--attribution", o.attribution,
                 "which split of CPU between processes the headline uses: sender (as the kernel bills loopback "
                 "receive work) or receiver (softirq moved to the receiving process where the placement allows); "
                 "reports show both")
      ->capture_default_str()
      ->check(CLI::IsMember({"receiver", "sender"}));
  app.add_option("--contamination-threshold", o.contamination_threshold,
                 "other work on the measured CPUs above this fraction of our own CPU marks a run contaminated")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--server-pids", o.server_pids,
                 "measure a server hitcost-load did not build (php-fpm workers, nginx) from /proc: these pids' "
                 "CPU instead of GET /stats; requests and hits are the client's own counts (X-Cache)");
  app.add_option("--server-tree", o.server_tree,
                 "like --server-pids, for each pid and every process under it (a php-fpm master and its "
                 "workers), listed again at each snapshot");
  app.add_option("--cache-pids", o.cache_pids, "with --server-pids/--server-tree: the cache's pids (memcached)");
  app.add_option("--cache-tree", o.cache_tree, "with --server-pids/--server-tree: the cache's process trees");
  app.add_option("--max-error-rate", o.error_limits.wrong_answers,
                 "wrong answers (status, parse, validation errors) allowed, as a fraction of responses; above it "
                 "the exit status is 3")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-transport-error-rate", o.error_limits.transport,
                 "connect, read, write and timeout errors allowed, as a fraction of attempts; above it the exit "
                 "status is 3")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
}
}  // namespace

int arguments_ok() {
  std::printf("hitcost-load: arguments ok\n");
  return kExitOk;
}

void add_run_options(CLI::App& app, RunOptions& o) {
  add_load_options(app, o);
  app.add_option("--duration,-d", o.duration, "measured window (500ms, 10s, 2m)")->capture_default_str();
  app.add_option("--requests,-n", o.requests, "stop after N measured requests instead of --duration");
  app.add_option("--hit-ratio", o.hit_ratio,
                 "fraction of requests for warmed ids; the rest ask never-seen ids (guaranteed misses)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--rows", o.rows, "append ?rows=R to every request")->check(CLI::Range(1, 1000000));
  app.add_option("--strategy", o.strategy,
                 "append ?strategy=S to every request (one request is sent first: a strategy the server refuses "
                 "exits 2 with its reason)");
  app.add_option("--json", o.json_out, "write the run as JSON to FILE");
  app.add_option("--hdr-out", o.hdr_out, "write the HdrHistogram percentile distribution (µs) to FILE");
  app.add_option("--csv", o.csv_out, "write the run as one CSV row (with a header line) to FILE");
  app.add_flag("--series", o.series, "print the per-second series (always in --json under \"series\")");
  app.add_option("--start-at", o.start_at_ms,
                 "start the load at this wall time, Unix ms (date +%s%3N), after the floor and the idle baseline "
                 "(in the --idle just before it): clients on several machines then measure one window");
}

void add_report_options(CLI::App& app, FilesOptions& o) {
  app.add_option("inputs", o.inputs, "run or sweep JSON files written by --json (or by merge)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--html", o.html_out, "write the HTML report to FILE")->required();
  app.add_option("--title", o.title, "report title");
}

void add_compare_options(CLI::App& app, CompareOptions& o) {
  app.add_option("inputs", o.inputs,
                 "LABEL=SWEEP.json: sweeps of the same strategies on different backends (e.g. c++=a.json php=b.json), "
                 "best given alternately round by round")
      ->required();
  app.add_option("--baseline", o.baseline, "the backend every other is compared with (default: the first label)");
  app.add_option("--alpha", o.alpha, "chance that any verdict is wrong, at most")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 0.5));
  app.add_option("--min-effect", o.min_effect, "differences smaller than this fraction are not called")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--min-rounds", o.min_rounds,
                 "the inputs are rounds looked at after every one from this (as php-compare.sh does until "
                 "decided); 0 = one look at the end")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  app.add_option("--max-rounds", o.max_rounds, "with --min-rounds: the rounds the error is spent by")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app.add_option("--json", o.json_out, "write the pooled runs, summary and verdicts as JSON to FILE");
  app.add_option("--csv", o.csv_out, "write the summary table as CSV to FILE");
  app.add_option("--html", o.html_out, "write an HTML report to FILE");
}

void add_merge_options(CLI::App& app, FilesOptions& o) {
  app.add_option("inputs", o.inputs,
                 "run or sweep JSON files of the same test from several client machines, run at the same time")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--json", o.json_out, "write the merged JSON to FILE (default: print it on stdout)");
  app.add_option("--html", o.html_out, "write an HTML report of the merged runs to FILE");
  app.add_option("--csv", o.csv_out, "write the merged runs as CSV rows to FILE");
  app.add_option("--title", o.title, "report title");
}

void add_sweep_options(CLI::App& app, SweepOptions& o) {
  add_load_options(app, o);
  app.add_option("--duration,-d", o.duration, "measured window per run")->capture_default_str();
  app.add_option("--strategies", o.strategies,
                 "comma-separated strategies; the server is asked to take each before anything runs (a refusal "
                 "exits 2 with its reason)")
      ->capture_default_str();
  app.add_option("--stores", o.stores,
                 "comma-separated stores (default: keep the server's); checked with the server like --strategies");
  app.add_option("--rows", o.rows, "rows per page")->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--hit-ratio", o.hit_ratio, "target hit ratio")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  app.add_option("--repeat", o.repeat,
                 "exactly N rounds (each strategy once per round, shuffled) and one look at the verdicts; "
                 "default: until decided (--min-rounds .. --max-rounds, --max-time)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--min-rounds", o.min_rounds, "until decided: rounds before the first look at the verdicts")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app.add_option("--max-rounds", o.max_rounds,
                 "until decided: paired rounds a comparison may take; the error is spent by then")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app.add_option("--max-time", o.max_time,
                 "until decided: no new round once the sweep would pass this (e.g. 150s); 0 = no time budget")
      ->capture_default_str();
  app.add_option("--baseline", o.baseline,
                 "strategy every other is compared with (default: the first of --strategies); with --log-modes, "
                 "under the first mode");
  app.add_option("--alpha", o.alpha, "chance that any verdict of the sweep is wrong, at most")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 0.5));
  app.add_option("--min-effect", o.min_effect, "differences smaller than this fraction are not called")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--latency-rate", o.latency_rate,
                 "after the closed-loop rounds, one open-loop run per strategy at this rate for latency: "
                 "auto (half the slowest strategy's capacity), REQ/S, or 0 for none")
      ->capture_default_str();
  app.add_option("--order-seed", o.order_seed, "seed of the shuffled run order (default: --seed)");
  app.add_option("--flags", o.flags, "flag scheme: php-memcache | php-memcached | native");
  app.add_option("--threshold", o.threshold, "compression threshold override, bytes");
  app.add_option("--thresholds", o.thresholds,
                 "one compression threshold per --strategies entry, in order (bytes, e.g. 2000,0): each strategy "
                 "under its own rule");
  app.add_option("--admin-url", o.admin_url,
                 "hitcost-server that stores the values (POST /admin/config, /admin/warm) when --url is "
                 "another server reading the same cache (the PHP backend); default: --url");
  app.add_option("--json", o.json_out, "write runs, summary and verdicts as JSON to FILE");
  app.add_option("--csv", o.csv_out, "write the summary table as CSV to FILE");
  app.add_option("--log-modes", o.log_modes,
                 "logging axis: the server's access-log modes to cross with every strategy, comma-separated: "
                 "off | line | buffered:SIZE, optionally +flush:MS and/or +sync:each|MS|interval:MS (e.g. "
                 "off,line,buffered:64k,buffered:64k+sync:1000); needs hitcost-server --access-log. Rows are then "
                 "labelled 'STRATEGY log=MODE' (html log=buffered:64k); --baseline is taken under the first mode. "
                 "Default: leave the server's logging as it is. The same as --axis log=MODES");
  std::string axes_help =
      "a sweep axis, NAME=V1,V2 (repeatable): every strategy is measured at every value, the cells "
      "interleaved in each round and labelled 'STRATEGY NAME=VALUE'; --baseline is taken under each axis' "
      "first value. Axes:";
  for (const SweepAxis& a : sweep_axes())
    if (a.role == AxisRole::cell) axes_help += " " + std::string(a.name) + " (" + std::string(a.what) + ");";
  app.add_option("--axis", o.axes, axes_help);
}

Result<MeasureOptions> measure_options(const LoadOptions& o, Lookup lookup) {
  const auto idle = parse_duration_ns(o.idle);
  if (!idle) return Error{Errc::invalid_argument, "bad --idle: " + o.idle};
  MeasureOptions out;
  out.server_stats = !o.no_server_stats;
  out.error_limits = o.error_limits;
  for (auto [text, flag, list] : {std::tuple{&o.server_pids, "--server-pids", &out.server_processes.pids},
                                  {&o.server_tree, "--server-tree", &out.server_processes.trees},
                                  {&o.cache_pids, "--cache-pids", &out.cache_processes.pids},
                                  {&o.cache_tree, "--cache-tree", &out.cache_processes.trees}}) {
    if (text->empty()) continue;
    auto pids = parse_pid_list(*text, lookup);
    if (!pids) return Error{pids.error().code, std::string(flag) + ": " + pids.error().message};
    *list = std::move(pids).value();
  }
  if (out.server_processes.empty() && !out.cache_processes.empty())
    return Error{Errc::invalid_argument, "--cache-pids/--cache-tree need --server-pids or --server-tree"};
  out.idle_ns = *idle;
  out.floor = !o.no_floor;
  out.retry_contaminated = o.retry_contaminated;
  out.attribution = o.attribution == "sender" ? Attribution::sender_pays : Attribution::receiver_pays;
  out.contamination_threshold = o.contamination_threshold;
  return out;
}

Status apply_start_at(const RunOptions& o, MeasureOptions& mo, Lookup lookup) {
  if (!o.start_at_ms) return ok_status();
  if (o.retry_contaminated > 0)
    return Error{Errc::invalid_argument,
                 "--start-at lines this run up with other clients, and a retry (--retry-contaminated) would run "
                 "alone after them: give one"};
  const uint64_t at_ns = *o.start_at_ms * 1'000'000;
  if (lookup == Lookup::yes) {
    const uint64_t now = unix_now_ns(), hour = 3600'000'000'000ULL;
    if (at_ns > now + hour || at_ns + hour < now) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "--start-at %llu is %.1f h from now: Unix milliseconds wanted (date +%%s%%3N), on a clock "
                    "within an hour of this one",
                    static_cast<unsigned long long>(*o.start_at_ms), (double(at_ns) - double(now)) / 3.6e12);
      return Error{Errc::invalid_argument, why};
    }
  }
  mo.start_at_unix_ns = at_ns;
  return ok_status();
}

Status check_trace_options(const LoadOptions& o, bool counted_requests, bool hit_ratio, bool rows) {
  if (o.trace.empty()) return ok_status();
  auto refuse = [](std::string why) { return Status(Error{Errc::invalid_argument, "--trace: " + std::move(why)}); };
  if (o.rate > 0 && o.speed != 1) return refuse("--rate and --speed both set the pace: give one");
  if (counted_requests) return refuse("the trace sets the requests; --requests is not taken");
  if (hit_ratio) return refuse("the trace sets the misses; --hit-ratio is not taken");
  if (rows || !o.rows_mix.empty())
    return refuse("each key's page is sized to its value; --rows and --rows-mix are not taken");
  if (o.path_template != "/page/{id}")
    return refuse("a replay asks /page/{id} (or /value/{n} with --values); --path-template is not taken");
  return ok_status();
}

Status attach_trace(LoadPlan& plan, const LoadOptions& o, bool counted_requests, bool hit_ratio, bool rows) {
  auto refuse = [](std::string why) { return Status(Error{Errc::invalid_argument, "--trace: " + std::move(why)}); };
  if (Status line = check_trace_options(o, counted_requests, hit_ratio, rows); !line) return line;
  ReplayTarget target;
  if (!o.values.empty()) {
    // The user's values: the corpus the server serves at /value/{n}, read here for its values'
    // stored sizes. The server must serve the same one: its /stats counts must match ours.
    uint64_t records = 0;
    auto sizes = served_value_sizes(o.values, records);
    if (!sizes) return Error{sizes.error().code, "--values " + o.values + ": " + sizes.error().message};
    auto stats = http_ok_body(plan.endpoint, "GET", "/stats");
    if (!stats) return Error{stats.error().code, "--values: reading the server's /stats: " + stats.error().message};
    const auto served = nlohmann::json::parse(*stats, nullptr, false);
    const nlohmann::json* corpus = served.is_object() && served.contains("corpus") ? &served["corpus"] : nullptr;
    if (!corpus || !corpus->is_object())
      return refuse("--values: the server serves no corpus at /value/{n} (start hitcost-server with --corpus " +
                    o.values + ")");
    const uint64_t their_records = corpus->value("records", uint64_t{0}),
                   their_values = corpus->value("values", uint64_t{0});
    if (their_records != records || their_values != sizes->size())
      return refuse("--values " + o.values + " holds " + std::to_string(records) + " records (" +
                    std::to_string(sizes->size()) + " served), the server's corpus " +
                    corpus->value("path", std::string("?")) + " " + std::to_string(their_records) + " (" +
                    std::to_string(their_values) + "): not the same corpus");
    target.value_sizes = std::move(*sizes);
    target.corpus_path = o.values;
  } else {
    // Page sizes on this server, under its strategy: a page of 1 and of 201 rows, of an id no
    // trace key gets (ids are numbered from 0), removed again so the cache is as it was.
    const std::string probe_id = std::to_string(std::min<uint64_t>(100'000'000, default_miss_start(o.keys)));
    double bytes[2] = {};
    const int probe_rows[2] = {1, 201};
    for (int i = 0; i < 2; ++i) {
      const std::string probe = "/page/" + probe_id + "?rows=" + std::to_string(probe_rows[i]);
      auto got = http_ok_body(plan.endpoint, "GET", probe);
      if (!got) return Error{got.error().code, "--trace: sizing pages with GET " + probe + ": " + got.error().message};
      bytes[i] = static_cast<double>(got->size());
      (void)http_request(plan.endpoint, "DELETE", probe);
    }
    target.pages.bytes_per_row = std::max(1.0, (bytes[1] - bytes[0]) / 200.0);
    target.pages.base_bytes = bytes[0] - target.pages.bytes_per_row;
  }
  auto schedule = build_replay_schedule(o.trace, o.speed, plan.threads, target, o.rate);
  if (!schedule) return Error{schedule.error().code, "--trace " + o.trace + ": " + schedule.error().message};
  plan.replay = *schedule;
  plan.duration_ns = (*schedule)->span_ns + 1;
  plan.requests = 0;
  // An open loop at the trace's mean pace (the threads' clocks are the schedule's; rate only
  // marks the loop open).
  const double span_s = std::max(1e-3, static_cast<double>(plan.duration_ns) / 1e9);
  plan.rate = std::max(1.0, static_cast<double>((*schedule)->counts.events) / span_s);
  plan.rows_mix.clear();
  // The hit ratio to expect is the trace's own (runs far off it are left out of a sweep's
  // figures, as for any target); none when the trace records no outcomes (oracleGeneral).
  const ReplayCounts& c = (*schedule)->counts;
  plan.keys.hit_ratio.reset();
  if (c.recorded_found + c.recorded_not_found > 0)
    plan.keys.hit_ratio = double(c.recorded_found) / double(c.recorded_found + c.recorded_not_found);
  return ok_status();
}

std::string replay_line(const ReplaySchedule& schedule, uint64_t duration_ns) {
  const ReplayCounts& c = schedule.counts;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "replay %s: %llu events, %llu keys at %gx over %.1f s: %llu reads, %llu writes (%llu inferred from "
                "recorded hits), %llu deletes (%llu inferred from recorded misses), %llu not replayed; %llu keys "
                "prewarmed",
                schedule.trace_path.c_str(), (unsigned long long)c.events, (unsigned long long)c.keys, schedule.speed,
                double(duration_ns) / 1e9, (unsigned long long)c.reads,
                (unsigned long long)(c.writes + c.inferred_writes), (unsigned long long)c.inferred_writes,
                (unsigned long long)(c.removes + c.inferred_removes), (unsigned long long)c.inferred_removes,
                (unsigned long long)c.not_replayed, (unsigned long long)c.prewarmed);
  std::string line = buf;
  if (schedule.values)
    line += "; keys as /value/{n}: " + std::to_string(c.keys_in_class) + " a value of their size class, " +
            std::to_string(c.keys_nearest) + " the nearest size (none of theirs in the corpus)";
  return line;
}

Result<LoadPlan> build_plan(const LoadOptions& o, std::string_view duration, uint64_t requests,
                            std::optional<double> hit_ratio, std::optional<int> rows, const std::string& strategy,
                            Lookup lookup) {
  auto fail = [](std::string why) -> Result<LoadPlan> { return Error{Errc::invalid_argument, std::move(why)}; };
  LoadPlan p;
  if (o.url.empty()) return fail("--url is required");
  auto ep = parse_url(o.url, Lookup::no);  // the name, if any, resolved last: a mistake of the line is told first
  if (!ep) return ep.error();
  p.endpoint = std::move(ep).value();
  const auto warm = parse_duration_ns(o.warmup);
  const auto dur = parse_duration_ns(duration);
  const auto tmo = parse_duration_ns(o.timeout);
  if (!warm) return fail("bad --warmup: " + o.warmup);
  if (!dur || *dur == 0) return fail("bad --duration: " + std::string(duration));
  if (!tmo || *tmo == 0) return fail("bad --timeout: " + o.timeout);
  p.warmup_ns = *warm;
  p.duration_ns = *dur;
  p.timeout_ns = *tmo;
  p.requests = requests;
  if (o.threads < 1 || o.connections < o.threads) return fail("need --connections >= --threads >= 1");
  if (!o.values.empty() && o.trace.empty())
    return fail(
        "--values CORPUS is a replay's (with --trace); a sweep of /value/{n} takes --path-template /value/{id}");
  p.connections = o.connections;
  p.threads = o.threads;
  if (!o.cpus.empty()) {
    auto cpus = parse_cpu_list(o.cpus);
    if (!cpus) return fail("bad --cpus: " + o.cpus);
    if (lookup == Lookup::yes)  // this machine's CPUs: not the business of a line checked elsewhere
      if (auto offline = proc::cpus_not_online_error(*cpus)) return fail("--cpus " + o.cpus + ": " + *offline);
    p.cpus = *cpus;
  }
  if (o.keys == 0) return fail("--keys must be > 0");
  auto dist = parse_key_dist(o.key_dist);
  if (!dist) return fail("bad --key-dist (uniform | zipf:S): " + o.key_dist);
  p.keys.keys = o.keys;
  p.keys.dist = *dist;
  p.keys.hit_ratio = hit_ratio;
  p.keys.miss_start = o.miss_start ? *o.miss_start : default_miss_start(o.keys);
  if (p.keys.miss_start < o.keys) return fail("--miss-start must be >= --keys");
  if (o.rate < 0) return fail("--rate must be >= 0");
  p.rate = o.rate;
  p.spin_adaptive = o.spin_us == "auto";
  if (!p.spin_adaptive) {  // a fixed spin; "auto" starts from the plan's default and adapts
    double spin_us = -1;
    const auto [end, ec] = std::from_chars(o.spin_us.data(), o.spin_us.data() + o.spin_us.size(), spin_us);
    if (ec != std::errc() || end != o.spin_us.data() + o.spin_us.size() || !(spin_us >= 0) || spin_us > 1e6)
      return fail("--spin-us must be auto or a number in 0..1000000, not '" + o.spin_us + "'");
    p.spin_ns = uint64_t(std::llround(spin_us * 1000.0));
  }
  p.path_template = o.path_template.empty() ? "/" : o.path_template;
  if (p.path_template.front() != '/') return fail("--path-template must start with /");
  std::string query;
  if (!o.rows_mix.empty()) {
    if (rows) return fail("--rows and --rows-mix exclude each other");
    auto mix = parse_rows_mix(o.rows_mix);
    if (!mix) return fail("bad --rows-mix (rows:weight,...): " + o.rows_mix);
    p.rows_mix = *mix;  // each request carries its own ?rows=
  }
  if (rows) query += "rows=" + std::to_string(*rows);
  if (!strategy.empty()) query += (query.empty() ? "" : "&") + std::string("strategy=") + url_encode(strategy);
  p.query = query;
  p.expect_strategy = strategy;
  // Only /page answers carry X-Cache; other paths (e.g. /healthz) are not validated for it.
  p.expect_cache_header = p.path_template.rfind("/page/", 0) == 0;
  p.seed = o.seed;
  // Once, here, before anything is timed: every connection of the run goes to this address.
  if (lookup == Lookup::yes)
    if (Status resolved = resolve_host(p.endpoint); !resolved) return resolved.error();
  return p;
}

}  // namespace hitcost::client
