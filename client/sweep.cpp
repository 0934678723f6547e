#include "client/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>
#include <random>
#include <variant>

#include "measure/preflight.h"
#include "measure/run_output.h"
#include "report/exit_code.h"
#include "report/files.h"
#include "report/html_report.h"
#include "report/summary.h"

namespace hitcost::client {

namespace {
std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
}  // namespace

namespace {
// "a, b" -> {"a", "b"}: the entries of a comma list, trimmed (checked by set_up first).
std::vector<std::string> list_entries(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    const size_t comma = text.find(',', at);
    std::string e = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    e.erase(0, e.find_first_not_of(' '));
    e.erase(e.find_last_not_of(' ') + 1);
    out.push_back(std::move(e));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}
}  // namespace

std::optional<int64_t> threshold_of(const SweepOptions& o, const std::string& strategy) {
  if (o.thresholds.empty()) return o.threshold;
  const std::vector<std::string> strategies = list_entries(o.strategies), thresholds = list_entries(o.thresholds);
  for (size_t i = 0; i < strategies.size() && i < thresholds.size(); ++i)
    if (strategies[i] == strategy) return std::stoll(thresholds[i]);
  return o.threshold;
}

Result<Ok> check_thresholds(const SweepOptions& o) {
  if (o.thresholds.empty()) return ok_status();
  if (o.threshold)
    return Error{Errc::invalid_argument, "--thresholds gives each strategy its own: not with --threshold"};
  const std::vector<std::string> strategies = list_entries(o.strategies), thresholds = list_entries(o.thresholds);
  if (thresholds.size() != strategies.size())
    return Error{Errc::invalid_argument, "--thresholds: " + std::to_string(thresholds.size()) + " values for " +
                                             std::to_string(strategies.size()) + " strategies (one each, in order)"};
  for (const std::string& t : thresholds) {
    uint32_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
      return Error{Errc::invalid_argument, "--thresholds: '" + t + "' is not a byte count (0..4294967295)"};
  }
  return ok_status();
}

nlohmann::json sweep_config(const SweepOptions& o, const std::string& store, const std::string& strategy,
                            const AxisSettings& settings) {
  nlohmann::json body = {{"rows", o.rows}};
  if (!o.flags.empty()) body["flags"] = o.flags;
  const std::optional<int64_t> threshold = threshold_of(o, strategy);
  if (threshold) body["threshold"] = *threshold;
  AxisSettings all = settings;  // the cell's, with its family's and row's values
  if (!store.empty()) all["store"] = store;
  all["strategy"] = strategy;
  for (const SweepAxis& axis : sweep_axes())  // the client-side ones go on the plan (plan_of)
    if (const auto it = all.find(std::string(axis.name)); it != all.end() && axis.set_config)
      axis.set_config(it->second, body);
  // One namespace per stored form: what changes the stored bytes is in it, the log mode is not.
  const int rows = body["rows"].get<int>();
  std::string ns = "sw-" + namespace_token(strategy) + "-" + (store.empty() ? "cur" : namespace_token(store)) + "-r" +
                   std::to_string(rows);
  if (!o.flags.empty()) ns += "-" + namespace_token(o.flags);
  if (threshold) ns += "-t" + std::to_string(*threshold);
  body["namespace"] = ns;
  return body;
}

LoadPlan SweepCell::plan_of(const LoadPlan& sweep_plan) const {
  LoadPlan p = sweep_plan;
  for (const auto& [name, value] : axes)  // the server-side ones are in `config`
    if (const SweepAxis* axis = find_sweep_axis(name); axis && axis->set_plan) axis->set_plan(value, p);
  return p;
}

std::vector<SweepCell> sweep_cells(const SweepOptions& o, const std::string& store,
                                   const std::vector<std::string>& strategies, const std::vector<AxisValues>& axes) {
  // Every combination of the axes' values, the last axis varied fastest.
  std::vector<AxisSettings> combos = {{}};
  for (const AxisValues& a : axes) {
    std::vector<AxisSettings> next;
    for (const AxisSettings& c : combos)
      for (const std::string& v : a.values) {
        AxisSettings more = c;
        more[std::string(a.axis->name)] = v;
        next.push_back(std::move(more));
      }
    combos = std::move(next);
  }
  std::vector<SweepCell> cells;
  for (const std::string& strategy : strategies)
    for (const AxisSettings& settings : combos)
      cells.push_back(
          {store, strategy, settings, sweep_row_label(strategy, settings), sweep_config(o, store, strategy, settings)});
  return cells;
}

Result<SummaryOptions> sweep_summary_options(const SweepOptions& o, const std::vector<std::string>& strategies,
                                             const std::vector<AxisValues>& axes) {
  SummaryOptions s;
  const std::string baseline = o.baseline.empty() && !strategies.empty() ? strategies.front() : o.baseline;
  if (std::find(strategies.begin(), strategies.end(), baseline) == strategies.end())
    return Error{Errc::invalid_argument, "--baseline " + baseline + " is not in --strategies"};
  AxisSettings first;
  for (const AxisValues& a : axes) first[std::string(a.axis->name)] = a.values.front();
  s.baseline = sweep_row_label(baseline, first);
  for (const SweepCell& c : sweep_cells(o, "", strategies, axes)) s.order.push_back(c.label);
  s.verdict.alpha = o.alpha;
  s.verdict.min_effect = o.min_effect;
  s.verdict.sequential = !o.repeat.has_value();
  s.verdict.design.min_rounds = o.min_rounds;
  s.verdict.design.max_rounds = std::max(o.min_rounds, o.max_rounds);
  return s;
}

Result<std::vector<AxisValues>> sweep_axes_of(const SweepOptions& o) {
  std::vector<AxisValues> axes;
  auto modes = parse_log_modes(o.log_modes);
  if (!modes) return modes.error();
  if (!modes->empty()) axes.push_back({find_sweep_axis("log"), std::move(modes).value(), "--log-modes"});
  for (const std::string& spec : o.axes) {
    auto asked = parse_axis(spec);
    if (!asked) return asked.error();
    for (const AxisValues& had : axes)
      if (had.axis == asked->axis)
        return Error{Errc::invalid_argument, asked->option + ": the axis is given twice (also as " + had.option + ")"};
    axes.push_back(std::move(asked).value());
  }
  if (!o.admin_url.empty())
    for (const AxisValues& a : axes)
      if (!a.axis->with_admin_url)
        return Error{Errc::invalid_argument, a.option + " sets \"" + std::string(a.axis->config_key) +
                                                 "\" on the server at --url; with --admin-url that server is not the "
                                                 "one configured"};
  return axes;
}

std::vector<size_t> round_order(size_t n, uint64_t seed, int round) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + uint64_t(round) + 1);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

namespace {

// One store × strategy [× log mode]: how to configure the server for it and what it then answers.
struct Cell : SweepCell {
  std::string expect;       // the server's canonical strategy name (X-Strategy)
  std::string shown_store;  // the store that was measured, also when the sweep kept the server's
};

struct Sweep {
  const SweepOptions& o;
  LoadPlan plan;
  Endpoint admin;  // the hitcost-server that stores the values (plan.endpoint unless --admin-url)
  bool admin_is_target = true;
  MeasureOptions mo;
  const std::atomic<bool>* stop;
  const SummaryOptions& summary_options;
  uint64_t next_miss = 0;
  std::vector<RunRecord> runs{};
  int failures = 0;                         // cells skipped: the server could not be configured or warmed
  bool refused = false;                     // ... of which one because the server answered 400 (a bad value)
  int over_limit = 0;                       // runs with errors above --max-error-rate / --max-transport-error-rate
  std::vector<std::string> errors_shown{};  // "kind: detail" already printed: each reason once
  // Until decided: the budget and what the rounds took.
  uint64_t start_ns = now_ns(), max_time_ns = 0;
  uint64_t round_ns = 0, runs_timed = 0;  // time of the rounds so far, runs in them
  int rounds_run = 0;                     // of the store being swept
  std::vector<Verdict> progress{};        // the verdicts at the last look
  std::string stop_reason{};              // why the rounds ended (until decided)
  struct StoreRounds {
    std::string store;
    int rounds = 0;
    std::string stop;  // until decided: why the rounds ended
  };
  std::vector<StoreRounds> stops{};  // one per store swept

  bool stopped() const { return stop && stop->load(); }

  // POST /admin/config; on success fills the cell's canonical names.
  bool configure(Cell& c) {
    const auto cfg = http_ok_body(admin, "POST", "/admin/config", c.config.dump());
    if (!cfg) {
      std::fprintf(stderr, "skip %s on %s: POST /admin/config: %s\n", c.label.c_str(),
                   c.store.empty() ? "current store" : c.store.c_str(), cfg.error().message.c_str());
      refused = refused || cfg.error().code == Errc::invalid_argument;
      return false;
    }
    const auto answered = nlohmann::json::parse(*cfg, nullptr, false);
    c.expect = c.strategy;
    c.shown_store = c.store;
    if (answered.is_object() && answered.contains("strategy") && answered["strategy"].is_string())
      c.expect = answered["strategy"].get<std::string>();
    if (c.shown_store.empty() && answered.is_object() && answered.contains("store") && answered["store"].is_string())
      c.shown_store = answered["store"].get<std::string>();
    return true;
  }

  // POST target to the admin; the server's answer (an object, or discarded when it is not one),
  // printed as "<strategy>: warmed <what>: <answer>"; nullopt (the cell skipped) when it failed.
  std::optional<nlohmann::json> post_warm(const Cell& c, const std::string& target, const std::string& what) {
    auto w = http_ok_body(admin, "POST", target, "", 600'000);
    if (!w) {
      std::fprintf(stderr, "skip %s: POST %s: %s\n", c.strategy.c_str(), target.c_str(), w.error().message.c_str());
      return std::nullopt;
    }
    std::string& answer = *w;
    while (!answer.empty() && std::isspace(static_cast<unsigned char>(answer.back()))) answer.pop_back();
    if (!o.quiet)
      std::printf("%s%s%s: warmed %s: %s\n", c.strategy.c_str(), c.store.empty() ? "" : " on ", c.store.c_str(),
                  what.c_str(), answer.c_str());
    return nlohmann::json::parse(answer, nullptr, false);
  }

  // A user's values (GET /value/{n}, hitcost-server --corpus) have no page size: one call warms
  // values 0..keys-1 (the server clamps to its corpus). Values the strategy cannot write are
  // answered as misses for the whole run, so they are told like failed sets.
  bool warm_values(const Cell& c) {
    const auto answer = post_warm(c, "/admin/warm?values=1&from=0&to=" + std::to_string(o.keys), "values");
    if (!answer) return false;
    const nlohmann::json& j = *answer;
    if (!j.is_object()) return true;
    if (j.value("errors", 0) > 0)
      std::fprintf(stderr, "warning: %d values of %s could not be stored: expect a lower hit ratio\n",
                   j.value("errors", 0), c.strategy.c_str());
    if (j.value("unstorable", 0) > 0)
      std::fprintf(stderr, "warning: %d values cannot be written under %s: they stay misses\n",
                   j.value("unstorable", 0), c.strategy.c_str());
    const uint64_t in_corpus =
        j.value("warmed", uint64_t{0}) + j.value("errors", uint64_t{0}) + j.value("unstorable", uint64_t{0});
    // The server serves an id past its corpus as value id mod N under a key of its own (forced
    // misses rely on it), but warms only the corpus: ids N..keys-1 start cold.
    if (in_corpus < o.keys)
      std::fprintf(stderr,
                   "warning: the corpus holds %llu values, --keys %llu: ids past it are not warmed, so their "
                   "first requests are misses (use --keys %llu)\n",
                   static_cast<unsigned long long>(in_corpus), static_cast<unsigned long long>(o.keys),
                   static_cast<unsigned long long>(in_corpus));
    return true;
  }

  // Every page size the load will ask for must be in the store, or "99 % hits" is a lie.
  bool warm(const Cell& c) {
    if (plan.replay) return true;  // each replay's warm-up puts the trace's cache in place itself
    if (plan.path_template.starts_with("/value/")) return warm_values(c);
    std::vector<int> sizes;
    for (const RowsShare& share : plan.rows_mix) sizes.push_back(share.rows);
    if (sizes.empty()) sizes.push_back(c.config.value("rows", o.rows));
    for (int rows : sizes) {
      const auto j = post_warm(c, "/admin/warm?from=0&to=" + std::to_string(o.keys) + "&rows=" + std::to_string(rows),
                               std::to_string(rows) + " rows");
      if (!j) return false;
      if (j->is_object() && j->value("errors", 0) > 0)
        std::fprintf(stderr, "warning: %d pages of %s could not be stored: expect a lower hit ratio\n",
                     j->value("errors", 0), c.strategy.c_str());
    }
    return true;
  }

  // One measured run of a cell: closed loop (capacity, CPU) or open loop at `rate` (latency).
  void measure(Cell& c, const char* role, double rate, int round, const std::string& label) {
    if (!configure(c)) {
      ++failures;
      return;
    }
    LoadPlan p = c.plan_of(plan);
    const int rows = c.config.value("rows", o.rows);
    // Another server reading the same cache does not know the strategy (no X-Strategy
    // check) nor the configuration: the key's namespace, the rows and whether the values are
    // rendered pages (rep=html: a string is served as it is) go in the query.
    p.expect_strategy = admin_is_target ? c.expect : "";
    if (!admin_is_target) {
      std::string extra = "ns=" + c.config.value("namespace", std::string());
      if (p.rows_mix.empty() && !p.replay) extra += "&rows=" + std::to_string(rows);  // a replay's are per key
      extra += c.strategy.starts_with("html") ? "&rep=html" : "&rep=struct";
      p.query = p.query.empty() ? extra : p.query + "&" + extra;
    }
    if (!p.replay) p.rate = rate;  // a replay keeps the trace's pace
    p.keys.miss_start = next_miss;
    RunReport r = measure_run(p, mo, stop);
    next_miss = std::max(next_miss, r.load.miss_end);
    if (r.interrupted()) {  // cut short: not a run of the planned length, so not in the summary
      std::fprintf(stderr, "  %s %s: interrupted after %.2f s of %.2f s, left out\n", label.c_str(), c.label.c_str(),
                   r.load.window_s, r.planned_duration_s);
      return;
    }
    r.requested_strategy = "";  // report the server's configured strategy
    r.sweep_store = c.store;
    r.repeat_index = round;
    r.axes = c.axes;
    if (p.rows_mix.empty() && !p.replay) r.rows = rows;
    RunRecord record = record_of(r);
    record.strategy = c.strategy;
    record.sweep_store = c.store;
    record.role = role;
    record.round = round;
    runs.push_back(std::move(record));
    if (!o.quiet) std::printf("  %s %s: %s", label.c_str(), c.label.c_str(), format_terminal(r, true).c_str());
    tell_problems(r, c, label);
  }

  // What went wrong in a run, on stderr: each error reason once, the error limit, missing
  // server figures, contamination.
  void tell_problems(const RunReport& r, const Cell& c, const std::string& label) {
    for (const ErrorSample& e : r.load.error_samples) {
      const std::string shown = e.kind + ": " + e.detail;
      if (std::find(errors_shown.begin(), errors_shown.end(), shown) != errors_shown.end()) continue;
      errors_shown.push_back(shown);
      std::fprintf(stderr, "  first %s error of %s: %s\n", e.kind.c_str(), c.label.c_str(),
                   e.detail.empty() ? "(no reason given)" : e.detail.c_str());
    }
    if (const auto over = r.over_error_limit()) {
      ++over_limit;
      std::fprintf(stderr, "  %s %s: %s\n", label.c_str(), c.label.c_str(), over->c_str());
    }
    if (!r.server) std::fprintf(stderr, "  server stats unavailable: %s\n", r.server_error.c_str());
    if (r.contaminated().value_or(false))
      std::fprintf(stderr, "  warning: run contaminated after %d retr%s: %s\n", r.contamination_retries,
                   r.contamination_retries == 1 ? "y" : "ies", r.cpu()->contamination.why.c_str());
  }

  // The common open-loop rate: as asked, or half the slowest cell's median capacity, as the
  // summary (report/summary.h) has it for this store's cells (rows are named by cell label).
  double latency_rate(const std::vector<Cell>& cells) const {
    if (o.latency_rate != "auto") return std::strtod(o.latency_rate.c_str(), nullptr);
    if (cells.empty()) return 0;
    std::vector<RunRecord> this_store;
    for (const RunRecord& r : runs)
      if (r.sweep_store.value_or("") == cells.front().store) this_store.push_back(r);
    const Summary so_far = summarize(this_store, summary_options);
    double slowest = 0;
    for (const Cell& c : cells)
      for (const SweepRow& row : so_far.rows) {
        if (row.strategy != c.label || !row.rps || row.rps->median <= 0) continue;
        if (slowest == 0 || row.rps->median < slowest) slowest = row.rps->median;
      }
    return slowest * kLatencyRateOfCapacity;
  }

  // The runs of the store being swept, as the summary reads them.
  std::vector<RunRecord> runs_of(const std::string& store) const {
    std::vector<RunRecord> out;
    for (const RunRecord& r : runs)
      if (r.sweep_store.value_or("") == store) out.push_back(r);
    return out;
  }

  // Until decided: the cells a further round still needs — the baseline and every subject
  // whose verdict is undecided with fewer than max_rounds paired rounds. Empty: nothing left.
  std::vector<size_t> cells_needed(const std::vector<Cell>& cells, int rounds_done) {
    std::vector<size_t> all(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) all[i] = i;
    if (rounds_done < o.min_rounds || cells.empty()) return all;  // before the first look (or fixed: never looked)
    const Summary now = summarize(runs_of(cells.front().store), summary_options);
    std::vector<size_t> need;
    progress.clear();
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].label == summary_options.baseline) continue;
      const auto it = std::find_if(now.verdicts.begin(), now.verdicts.end(),
                                   [&](const auto& v) { return v.second.subject == cells[i].label; });
      // No verdict yet (no kept run): keep measuring it like an undecided one.
      const bool open = it == now.verdicts.end() || (!it->second.decided() && it->second.pairs < size_t(o.max_rounds));
      if (open) need.push_back(i);
      if (it != now.verdicts.end()) progress.push_back(it->second);
    }
    if (need.empty()) return need;
    for (size_t i = 0; i < cells.size(); ++i)
      if (cells[i].label == summary_options.baseline) need.push_back(i);
    std::sort(need.begin(), need.end());
    return need;
  }

  // One line after each look: what is decided, and after how many rounds.
  void tell_progress(int round) const {
    if (o.quiet || progress.empty()) return;
    size_t decided = 0;
    for (const Verdict& v : progress) decided += v.decided();
    std::printf("after round %d: %zu of %zu comparisons decided\n", round, decided, progress.size());
  }

  // The rounds of one store: --repeat N, or until decided within the budget. A round runs the
  // cells in a shuffled order; a round that lost a pair (a run left out) is made up by the
  // next, since the stop rule counts paired rounds, not rounds.
  void run_rounds(std::vector<Cell>& cells, uint64_t seed) {
    const bool fixed = o.repeat.has_value();
    const int hard_cap = fixed ? *o.repeat : 2 * o.max_rounds;  // every run left out must not loop forever
    for (int round = 0; round < hard_cap && !stopped(); ++round) {
      // Fixed: every cell in every round, and one look at the end.
      const std::vector<size_t> need = cells_needed(cells, fixed ? 0 : round);
      if (!fixed && round >= o.min_rounds) tell_progress(round);
      if (need.empty()) {
        const bool all_decided =
            std::all_of(progress.begin(), progress.end(), [](const Verdict& v) { return v.decided(); });
        stop_reason = all_decided ? "every comparison decided"
                                  : "every comparison decided or at --max-rounds " + std::to_string(o.max_rounds);
        break;
      }
      const uint64_t round_start = now_ns();
      if (!fixed && round >= o.min_rounds && out_of_time(need.size() * run_ns_estimate(), cells.size())) {
        stop_reason = "the time budget (--max-time " + o.max_time + ") is spent";
        break;
      }
      const std::string label = fixed ? "round " + std::to_string(round + 1) + "/" + std::to_string(*o.repeat)
                                      : "round " + std::to_string(round + 1);
      const std::vector<size_t> order = round_order(need.size(), seed, round);
      for (size_t k : order) {
        if (stopped()) return;
        measure(cells[need[k]], "capacity", 0, round, label);
      }
      ++rounds_run;
      round_ns += now_ns() - round_start;
      runs_timed += need.size();
    }
    if (!fixed && stop_reason.empty() && !stopped()) {
      (void)cells_needed(cells, rounds_run);
      tell_progress(rounds_run);
      stop_reason = "the round cap (2 x --max-rounds) is reached";
    }
  }

  // How long one run takes here (idle baseline, warmup, window, snapshots), from the rounds so far.
  uint64_t run_ns_estimate() const { return runs_timed ? round_ns / runs_timed : 0; }
  // Whether a round of `round_ns` more, and the latency pass after it, would pass --max-time.
  bool out_of_time(uint64_t next_round_ns, size_t cells) const {
    if (max_time_ns == 0) return false;
    const uint64_t latency_pass = o.latency_rate == "0" || plan.replay ? 0 : cells * run_ns_estimate();
    return now_ns() - start_ns + next_round_ns + latency_pass > max_time_ns;
  }

  // The store's cells, each stored form warmed once: under the first cell of its namespace (the
  // log mode or the load threads change no stored value, so cells that differ only in those
  // read the same values). A cell whose form could not be warmed is left out.
  std::vector<Cell> warmed_cells(const std::vector<SweepCell>& all) {
    std::vector<Cell> cells;
    std::vector<std::string> warmed, failed;  // namespaces
    for (const SweepCell& sc : all) {
      if (stopped()) return {};
      const std::string ns = sc.config.value("namespace", std::string());
      if (std::find(failed.begin(), failed.end(), ns) != failed.end()) continue;
      if (std::find(warmed.begin(), warmed.end(), ns) == warmed.end()) {
        Cell first{sc, "", ""};
        if (!configure(first) || !warm(first)) {
          ++failures;
          failed.push_back(ns);
          continue;
        }
        warmed.push_back(ns);
      }
      cells.push_back(Cell{sc, "", ""});
    }
    return cells;
  }

  void sweep_store(const std::string& store, const std::vector<std::string>& strategies,
                   const std::vector<AxisValues>& axes, uint64_t seed) {
    rounds_run = 0;
    stop_reason.clear();
    std::vector<Cell> cells = warmed_cells(sweep_cells(o, store, strategies, axes));
    if (stopped()) return;
    run_rounds(cells, seed);
    if (!o.quiet && !o.repeat && !stopped()) std::printf("rounds: %d (%s)\n", rounds_run, stop_reason.c_str());
    stops.push_back({store, rounds_run, stop_reason});
    // A replay's runs are open loops at the trace's pace already: no latency pass after them.
    const double rate = plan.replay ? 0 : latency_rate(cells);
    if (rate <= 0 || stopped()) return;
    if (!o.quiet)
      std::printf("latency: open loop at %.0f req/s for every %s\n", rate, axes.empty() ? "strategy" : "cell");
    for (size_t i : round_order(cells.size(), seed, rounds_run)) {
      if (stopped()) return;
      measure(cells[i], "latency", rate, -1, "latency");
    }
  }
};

// Puts back what the server ran before the sweep (strategy, store, flags, rows, namespace,
// compression rule, access-log mode, the readers' libraries) and says so; a sweep never leaves the server on its last
// cell silently. A server that does not report "log" gets none back.
void restore_config(const Endpoint& admin, const nlohmann::json& original) {
  nlohmann::json body = nlohmann::json::object();
  for (const char* key : {"strategy", "store", "flags", "rows", "namespace", "threshold", "min_savings", "factor",
                          "log", "inflate", "json_decoder"})
    if (original.contains(key)) body[key] = original[key];
  const auto r = http_ok_body(admin, "POST", "/admin/config", body.dump());
  if (r)
    std::fprintf(stderr, "hitcost-load sweep: server configuration restored (strategy %s, namespace %s)\n",
                 original.value("strategy", std::string("?")).c_str(),
                 original.value("namespace", std::string("?")).c_str());
  else if (r.error().code == Errc::connection && r.error().message.rfind("connect to ", 0) == 0)
    // Nothing listens any more (stopped with the sweep, e.g. by a Ctrl-C to both): it runs no
    // cell of ours, and there is nothing to put back.
    std::fprintf(stderr,
                 "hitcost-load sweep: the server is gone (%s): it was stopped before the sweep could put its "
                 "configuration back; nothing to restore\n",
                 r.error().message.c_str());
  else
    std::fprintf(stderr,
                 "hitcost-load sweep: could NOT restore the server's configuration (%s); it runs the "
                 "sweep's last cell\n",
                 r.error().message.c_str());
}

// What a sweep needs before it touches the server, from the options; an exit code when they
// are wrong: kExitUsage for the line, kExitFailed when a host name does not resolve (the names
// are resolved last, once, after every check of the line). With --check-args nothing is looked
// up or checked for writing (Lookup::no).
struct SweepSetup {
  LoadPlan plan;
  MeasureOptions measure;
  std::vector<std::string> strategies, stores;
  std::vector<AxisValues> axes;  // empty: one cell per strategy
  SummaryOptions summary;
  uint64_t seed = 0;
  Endpoint admin;
  uint64_t max_time_ns = 0;  // until decided: the sweep's time budget; 0 = none
};

std::variant<SweepSetup, int> set_up(const SweepOptions& o) {
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "hitcost-load sweep: %s\n", why.c_str());
    return kExitUsage;
  };
  const Lookup lookup = o.check_args ? Lookup::no : Lookup::yes;
  auto measure = measure_options(o, lookup);
  if (!measure) return fail(measure.error().message);
  if (Status trace = check_trace_options(o, false, false, false); !trace) return fail(trace.error().message);
  if (!o.check_args)
    if (Status outputs = check_output_paths({{"--json", o.json_out}, {"--csv", o.csv_out}, {"--html", o.html_out}});
        !outputs)
      return fail(outputs.error().message);
  SweepSetup s{{}, std::move(measure).value(), {}, {}, {}, {}, 0, {}, 0};
  if (o.latency_rate != "auto") {
    char* end = nullptr;
    const double r = std::strtod(o.latency_rate.c_str(), &end);
    if (o.latency_rate.empty() || *end != '\0' || !(r >= 0))
      return fail("bad --latency-rate (auto | REQ/S | 0): " + o.latency_rate);
  }
  auto strategies = parse_axis_values(*find_sweep_axis("strategy"), "--strategies", o.strategies);
  if (!strategies) return fail(strategies.error().message);
  auto stores = parse_axis_values(*find_sweep_axis("store"), "--stores", o.stores);
  if (!stores) return fail(stores.error().message);
  s.strategies = std::move(strategies).value();
  s.stores = std::move(stores).value();
  if (s.stores.empty()) s.stores.push_back("");  // the server's own
  if (s.strategies.empty()) return fail("--strategies is empty");
  if (Status t = check_thresholds(o); !t) return fail(t.error().message);
  auto axes = sweep_axes_of(o);
  if (!axes) return fail(axes.error().message);
  s.axes = std::move(axes).value();
  auto summary = sweep_summary_options(o, s.strategies, s.axes);
  if (!summary) return fail(summary.error().message);
  s.summary = std::move(summary).value();
  s.summary.family = s.stores.size() * (s.summary.order.size() - 1);
  if (o.repeat && (o.min_rounds != SweepOptions{}.min_rounds || o.max_rounds != SweepOptions{}.max_rounds ||
                   o.max_time != SweepOptions{}.max_time))
    return fail("--repeat N runs exactly N rounds: --min-rounds, --max-rounds and --max-time are for until-decided");
  if (o.max_rounds < o.min_rounds)
    return fail("--max-rounds " + std::to_string(o.max_rounds) + " is below --min-rounds " +
                std::to_string(o.min_rounds));
  const auto max_time = parse_duration_ns(o.max_time);
  if (!max_time) return fail("bad --max-time (a duration, e.g. 150s; 0 = none): " + o.max_time);
  s.max_time_ns = *max_time;
  s.measure.progress = !o.no_progress && ::isatty(2);
  s.seed = o.order_seed.value_or(o.seed);
  std::optional<Endpoint> admin;
  if (!o.admin_url.empty()) {
    auto ep = parse_url(o.admin_url, Lookup::no);  // resolved with --url's name, below
    if (!ep) return fail("bad --admin-url: " + ep.error().message);
    admin = *ep;
  }
  // The host names last, each once, before anything is timed: a name that does not resolve
  // is the network's failure, not the line's (exit 1).
  auto unresolved = [](const std::string& why) {
    std::fprintf(stderr, "hitcost-load sweep: %s: nothing measured\n", why.c_str());
    return kExitFailed;
  };
  auto plan = build_plan(o, o.duration, 0, o.hit_ratio, std::nullopt, "", lookup);
  if (!plan)
    return plan.error().code == Errc::connection ? unresolved(plan.error().message) : fail(plan.error().message);
  s.plan = std::move(plan).value();
  s.admin = s.plan.endpoint;
  if (admin) {
    if (lookup == Lookup::yes)
      if (Status resolved = resolve_host(*admin); !resolved)
        return unresolved("--admin-url: " + resolved.error().message);
    s.admin = *admin;
  }
  return s;
}

// Every finished run and their summary go to every output, interrupted or not. Returns
// whether every output was written.
bool report_sweep(const SweepOptions& o, const SweepSetup& s, const Sweep& sw, bool interrupted) {
  const std::vector<RunRecord>& runs = sw.runs;
  const Summary summary = summarize(runs, s.summary);
  std::printf("\n%s", format_summary(summary).c_str());
  nlohmann::json doc = summary_json(summary);
  doc["runs"] = runs;
  int rounds = 0;
  nlohmann::json stops = nlohmann::json::array();
  for (const auto& st : sw.stops) {
    rounds = std::max(rounds, st.rounds);
    stops.push_back({{"store", st.store}, {"rounds", st.rounds}, {"stopped_because", st.stop}});
  }
  doc["order"] = {{"seed", s.seed}, {"rounds", rounds}, {"rule", "strategies shuffled anew in each round"}};
  if (!o.repeat) doc["order"]["until_decided"] = stops;  // each store's rounds and why they ended
  if (!s.axes.empty()) {                                 // only then: a sweep without axes writes what it always wrote
    doc["order"]["rule"] = "strategy x axis cells shuffled anew in each round";
    for (const AxisValues& a : s.axes) doc["axes"][std::string(a.axis->name)] = a.values;
  }
  doc["interrupted"] = interrupted;
  OutputWriter out("hitcost-load sweep");
  out.write(o.json_out, doc.dump(2) + "\n");
  if (!o.html_out.empty())
    out.write(o.html_out, html_report({doc}, interrupted ? "hitcost sweep (interrupted)" : "hitcost sweep"));
  out.write(o.csv_out, csv_summary(summary));
  return out.all_written();
}

// POST /admin/config `body` before the sweep: the server's answer, or nullopt with the refusal
// printed ("hitcost-load sweep: WHAT: the server refused it: WHY") and `code` made worse by it:
// kExitUsage when the server answered (a bad value), kExitFailed when it did not answer.
std::optional<std::string> ask_config(const Endpoint& admin, const nlohmann::json& body, const std::string& what,
                                      std::optional<int>& code) {
  auto r = http_ok_body(admin, "POST", "/admin/config", body.dump());
  if (r) return std::move(r).value();
  std::string why = r.error().message;
  while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
  std::fprintf(stderr, "hitcost-load sweep: %s: the server refused it: %s\n", what.c_str(), why.c_str());
  code = worse_exit(code.value_or(kExitOk), server_answered(r.error()) ? kExitUsage : kExitFailed);
  return std::nullopt;
}

// Asks the server to take every value of every server-side axis (POST /admin/config {KEY: VALUE})
// before anything is warmed or measured, so a value it refuses ends the sweep at once with its
// reason instead of leaving holes in the table. Returns the exit code when one is refused:
// kExitUsage for a 400 (a bad log mode, a server without --access-log) or a server whose answer
// does not echo the key (it cannot set it), kExitFailed when it did not answer. The server is
// left on the last value: restore_config follows.
std::optional<int> check_axes(const Endpoint& admin, const std::vector<AxisValues>& axes, bool quiet) {
  for (const AxisValues& a : axes) {
    const std::string key(a.axis->config_key);
    if (!a.axis->set_config) continue;  // a client-side axis
    for (const std::string& value : a.values) {
      nlohmann::json body;
      a.axis->set_config(value, body);
      std::optional<int> code;
      const auto r = ask_config(admin, body, a.option + " " + value, code);
      if (!r) return code;
      const auto answered = nlohmann::json::parse(*r, nullptr, false);
      if (!answered.is_object() || !answered.contains(key)) {
        std::fprintf(stderr,
                     "hitcost-load sweep: %s: the server's POST /admin/config answer has no \"%s\": it cannot set "
                     "it (for the log axis: a hitcost-server with --access-log can)\n",
                     a.option.c_str(), key.c_str());
        return kExitUsage;
      }
      if (!quiet)
        std::printf(
            "%s %s: the server runs it as %s\n", a.option.c_str(), value.c_str(),
            answered[key].is_string() ? answered[key].get<std::string>().c_str() : answered[key].dump().c_str());
    }
  }
  return std::nullopt;
}

// Asks the server to take every strategy (under the sweep's flags, threshold and rows) and
// every store of --stores (POST /admin/config of each) before anything is warmed or measured.
// The server is the authority: its flag scheme decides which presets hold and its build which
// compressors exist, which a local parse could only guess. Every refusal is printed with the
// server's reason, not only the first. Returns kExitUsage when one got a 400 (a typo),
// kExitFailed when the server did not answer. The server is left on the last one it took:
// restore_config follows.
std::optional<int> check_cells(const Endpoint& admin, const SweepOptions& o, const SweepSetup& s) {
  std::vector<std::pair<std::string, nlohmann::json>> asks;  // "--strategies X", its config body
  for (const std::string& strategy : s.strategies)
    asks.emplace_back("--strategies " + strategy, sweep_config(o, "", strategy));
  for (const std::string& store : s.stores)
    if (!store.empty()) asks.emplace_back("--stores " + store, nlohmann::json{{"store", store}});
  std::optional<int> code;
  for (const auto& [what, body] : asks) (void)ask_config(admin, body, what, code);
  return code;
}

int sweep_exit_code(const Sweep& sw, bool interrupted) {
  if (interrupted) return kExitInterrupted;
  if (sw.runs.empty() || sw.failures) return sw.refused ? kExitUsage : kExitFailed;
  if (sw.over_limit) {
    std::fprintf(stderr, "hitcost-load sweep: %d run%s had errors above the limits (see above)\n", sw.over_limit,
                 sw.over_limit == 1 ? "" : "s");
    return kExitErrors;
  }
  return kExitOk;
}

}  // namespace

int run_sweep(const SweepOptions& o, const std::atomic<bool>* stop) {
  auto setup = set_up(o);
  if (const int* code = std::get_if<int>(&setup)) return *code;
  if (o.check_args) return arguments_ok();  // the server is not asked (--strategies, --stores, axes)
  SweepSetup& s = std::get<SweepSetup>(setup);
  // Within seconds, not after a round of runs: every server the sweep talks to answers.
  for (const Endpoint* ep : {&s.admin, &s.plan.endpoint}) {
    if (ep == &s.plan.endpoint && o.admin_url.empty()) break;
    if (const Status reachable = check_reachable(*ep); !reachable) {
      std::fprintf(stderr, "hitcost-load sweep: %s: nothing measured\n", reachable.error().message.c_str());
      return kExitFailed;
    }
  }
  if (!o.trace.empty()) {  // every run of every cell replays the same trace
    if (const Status replay = attach_trace(s.plan, o, false, false, false); !replay) {
      std::fprintf(stderr, "hitcost-load sweep: %s\n", replay.error().message.c_str());
      return replay.error().code == Errc::invalid_argument ? kExitUsage : kExitFailed;
    }
    if (!o.quiet) std::printf("%s\n", replay_line(*s.plan.replay, s.plan.duration_ns).c_str());
  }
  if (!o.quiet) {
    std::string cells = fmt("%zu strateg%s", s.strategies.size(), s.strategies.size() == 1 ? "y" : "ies");
    for (const AxisValues& a : s.axes)
      cells +=
          fmt(" x %zu %s value%s", a.values.size(), std::string(a.axis->name).c_str(), a.values.size() == 1 ? "" : "s");
    const std::string rounds =
        o.repeat
            ? fmt("%d round%s", *o.repeat, *o.repeat == 1 ? "" : "s")
            : fmt("rounds until every comparison is decided (first look after %d, at most %d paired%s)", o.min_rounds,
                  s.summary.verdict.design.max_rounds, s.max_time_ns ? (", within " + o.max_time).c_str() : "");
    std::printf("%s, %s, interleaved: a shuffled order in each round (order seed %llu)\n", cells.c_str(),
                rounds.c_str(), static_cast<unsigned long long>(s.seed));
  }
  // What the server runs now, to put back when the sweep ends (POST {} changes nothing and
  // answers the whole configuration).
  const auto before = http_ok_body(s.admin, "POST", "/admin/config", "{}");
  const auto original = nlohmann::json::parse(before ? *before : std::string(), nullptr, false);
  if (!before || !original.is_object()) {
    std::fprintf(stderr, "hitcost-load sweep: cannot read the server's configuration: %s\n",
                 before ? "POST /admin/config {} did not answer a JSON object" : before.error().message.c_str());
    return !before && !server_answered(before.error()) ? kExitFailed : kExitUsage;
  }
  std::optional<int> refused = check_cells(s.admin, o, s);
  if (!refused) refused = check_axes(s.admin, s.axes, o.quiet);
  if (refused) {
    std::fprintf(stderr, "hitcost-load sweep: nothing measured\n");
    restore_config(s.admin, original);
    return *refused;
  }
  Sweep sw{o, s.plan, s.admin, o.admin_url.empty(), s.measure, stop, s.summary};
  sw.next_miss = s.plan.keys.miss_start;
  sw.max_time_ns = s.max_time_ns;
  for (size_t k = 0; k < s.stores.size() && !sw.stopped(); ++k)
    sw.sweep_store(s.stores[k], s.strategies, s.axes, s.seed + k);
  const bool interrupted = sw.stopped();
  if (interrupted) std::fprintf(stderr, "hitcost-load sweep: interrupted; the runs finished so far follow\n");
  restore_config(s.admin, original);
  const bool written = report_sweep(o, s, sw, interrupted);
  return worse_exit(sweep_exit_code(sw, interrupted), written ? kExitOk : kExitOutput);
}

}  // namespace hitcost::client
