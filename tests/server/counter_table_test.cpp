// The counter table (wire/server_counters.h) is the one source of the server's plain counters:
// every row is a member that MetricsRegistry::total() sums, MetricsSnapshot::minus()
// subtracts, /stats reports under its key and /metrics under its sample, and /metrics is
// written from the figures (not parsed back from /stats).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

#include "server/metrics.h"
#include "server/stats_report.h"

using namespace hitcost;
using namespace hitcost::server;

namespace {

// A different value for each row, so that a row read from its neighbour's member shows.
uint64_t row_value(size_t i) { return 1000 + 37 * i; }

StatsFigures figures_with_row_values() {
  StatsFigures f;
  f.config = {{"strategy", "html"}, {"store", "memory"}, {"flags", "php-memcached"}};
  for (size_t i = 0; i < kCounters; ++i) f.counters.*kCounterRows[i].summed = row_value(i);
  return f;
}

std::string sample_line(const CounterRow& c, uint64_t value) {
  const std::string labels(c.prom_labels);
  return std::string(c.prom_name) + (labels.empty() ? "" : "{" + labels + "}") + " " + std::to_string(value) + "\n";
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(CounterTable, RowsNameDistinctMembersKeysAndSamples) {
  std::set<std::string_view> fields;
  std::set<std::pair<std::string_view, std::string_view>> keys, samples;
  std::set<std::string_view> families_done;
  std::string_view family;
  for (size_t i = 0; i < kCounters; ++i) {
    const CounterRow& c = kCounterRows[i];
    EXPECT_TRUE(fields.insert(c.field).second) << c.field;
    EXPECT_TRUE(keys.insert({c.json_group, c.json_key}).second) << c.field;
    EXPECT_TRUE(samples.insert({c.prom_name, c.prom_labels}).second) << c.field;
    EXPECT_EQ(c.prom_type, "counter") << c.field;
    EXPECT_TRUE(c.prom_name.starts_with("hitcost_") && c.prom_name.ends_with("_total")) << c.field;
    // One family per run of rows: the HELP and TYPE lines are written once, at its first row.
    if (c.prom_name != family) {
      EXPECT_TRUE(families_done.insert(c.prom_name).second) << c.prom_name << " is split by another family";
      family = c.prom_name;
    } else {
      EXPECT_EQ(c.prom_help, kCounterRows[i - 1].prom_help) << c.field;
      EXPECT_EQ(c.prom_type, kCounterRows[i - 1].prom_type) << c.field;
      EXPECT_FALSE(c.prom_labels.empty() || kCounterRows[i - 1].prom_labels.empty()) << c.field;
    }
  }
  EXPECT_EQ(fields.size(), kCounters);
  EXPECT_EQ(keys.size(), kCounters);
  EXPECT_EQ(samples.size(), kCounters);
}

TEST(CounterTable, TotalSumsEveryCounterOverThreadsAndResetStartsThemAgain) {
  MetricsRegistry registry(2);
  for (size_t i = 0; i < kCounters; ++i) {
    (registry.thread(0).*kCounterRows[i].per_thread).add(row_value(i));
    (registry.thread(1).*kCounterRows[i].per_thread).add(2 * row_value(i));
  }
  const MetricsSnapshot total = registry.total();
  registry.reset();
  for (size_t i = 0; i < kCounters; ++i) (registry.thread(1).*kCounterRows[i].per_thread).add(i + 1);
  const MetricsSnapshot since = registry.since_reset();
  size_t checked = 0;
  for (size_t i = 0; i < kCounters; ++i) {
    EXPECT_EQ(total.*kCounterRows[i].summed, 3 * row_value(i)) << kCounterRows[i].field;
    EXPECT_EQ(since.*kCounterRows[i].summed, i + 1) << kCounterRows[i].field;
    ++checked;
  }
  EXPECT_EQ(checked, kCounters);
}

TEST(CounterTable, MinusSubtractsEveryCounter) {
  MetricsSnapshot now, base;
  for (size_t i = 0; i < kCounters; ++i) {
    now.*kCounterRows[i].summed = 3 * row_value(i);
    base.*kCounterRows[i].summed = row_value(i);
  }
  const MetricsSnapshot delta = now.minus(base);
  // A base above the value (counters read at two moments, threads in a different order)
  // gives 0, not a wrapped 2^64 - n.
  const MetricsSnapshot under = base.minus(now);
  size_t checked = 0;
  for (size_t i = 0; i < kCounters; ++i) {
    EXPECT_EQ(delta.*kCounterRows[i].summed, 2 * row_value(i)) << kCounterRows[i].field;
    EXPECT_EQ(under.*kCounterRows[i].summed, 0u) << kCounterRows[i].field;
    ++checked;
  }
  EXPECT_EQ(checked, kCounters);
}

// Beyond the table: minus() leaves no member of the snapshot out (a counter added outside
// the table, or an array, would keep its value since start). The snapshot is all uint64_t,
// so it is filled word by word; the two gauges are the only words not differenced.
TEST(MetricsSnapshotMinus, SubtractsEveryWordButTheTwoGauges) {
  static_assert(std::is_trivially_copyable_v<MetricsSnapshot>);
  static_assert(std::has_unique_object_representations_v<MetricsSnapshot>);  // no padding
  constexpr size_t kWords = sizeof(MetricsSnapshot) / sizeof(uint64_t);
  static_assert(kWords * sizeof(uint64_t) == sizeof(MetricsSnapshot));
  uint64_t now_words[kWords], base_words[kWords], delta_words[kWords];
  for (size_t w = 0; w < kWords; ++w) {
    base_words[w] = w + 1;
    now_words[w] = 5 * (w + 1);
  }
  MetricsSnapshot now, base;
  std::memcpy(&now, now_words, sizeof now);
  std::memcpy(&base, base_words, sizeof base);
  const MetricsSnapshot delta = now.minus(base);
  std::memcpy(delta_words, &delta, sizeof delta);
  const size_t period_word = offsetof(MetricsSnapshot, sample_period) / sizeof(uint64_t);
  const size_t clock_word = offsetof(MetricsSnapshot, clock_read_ns) / sizeof(uint64_t);
  size_t differenced = 0;
  for (size_t w = 0; w < kWords; ++w) {
    if (w == period_word || w == clock_word) {
      EXPECT_EQ(delta_words[w], now_words[w]) << "gauge word " << w;
      continue;
    }
    EXPECT_EQ(delta_words[w], 4 * (w + 1)) << "word " << w << " of " << kWords;
    ++differenced;
  }
  EXPECT_EQ(differenced, kWords - 2);
}

TEST(CounterTable, StatsAndMetricsReportEveryCounterWithItsValue) {
  const StatsFigures f = figures_with_row_values();
  const nlohmann::json stats = stats_json(f);
  const std::string metrics = metrics_text(f);
  size_t reported = 0;
  for (size_t i = 0; i < kCounters; ++i) {
    const CounterRow& c = kCounterRows[i];
    const nlohmann::json& group = c.json_group.empty() ? stats : stats.at(std::string(c.json_group));
    ASSERT_TRUE(group.contains(std::string(c.json_key))) << c.field;
    EXPECT_EQ(group.at(std::string(c.json_key)).get<uint64_t>(), row_value(i)) << c.field;
    EXPECT_EQ(occurrences(metrics, "\n" + sample_line(c, row_value(i))), 1u) << sample_line(c, row_value(i));
    const std::string name(c.prom_name);
    EXPECT_EQ(occurrences(metrics, "# HELP " + name + " " + std::string(c.prom_help) + "\n# TYPE " + name + " " +
                                       std::string(c.prom_type) + "\n"),
              1u)
        << name;
    ++reported;
  }
  EXPECT_EQ(reported, kCounters);
  // The grouped rows are all of their /stats groups: nothing else is in "cache" or "http", "log"
  // has only its mode besides (no --access-log in these figures: no path, no syncs) and "slow" its
  // threshold (null: no --slow-log).
  size_t grouped = 0;
  for (const CounterRow& c : kCounterRows) grouped += c.json_group.empty() ? 0 : 1;
  EXPECT_EQ(
      stats.at("cache").size() + stats.at("http").size() + stats.at("log").size() - 1 + stats.at("slow").size() - 1 +
          stats.at("admin_refused").size(),
      grouped);
  EXPECT_TRUE(stats.at("slow").at("threshold_us").is_null());
  EXPECT_EQ(stats.at("log").at("mode"), "off");
}

// /metrics has no /stats to fall back on: figures that hold nothing still give well-formed
// text, with zeros where there is nothing to count.
TEST(StatsReport, MetricsOfEmptyFiguresAreWellFormedZeros) {
  const std::string text = metrics_text(StatsFigures{});
  std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN)$)");
  std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
  std::istringstream in(text);
  std::string line;
  size_t samples = 0;
  while (std::getline(in, line)) {
    ASSERT_TRUE(std::regex_match(line, sample) || std::regex_match(line, comment)) << "bad line: " << line;
    if (line[0] != '#') ++samples;
  }
  EXPECT_GT(samples, kCounters);
  EXPECT_NE(text.find("\nhitcost_clean_tiles_total 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nhitcost_sampled_requests_total{outcome=\"hit\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nhitcost_partial_writes_total 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("hitcost_proc_io_total"), std::string::npos) << "no /proc/self/io read, no family";
}

// /stats "memory" is in KiB, null where the kernel gives no figure; /metrics has the same
// figures in bytes and no sample for a null one.
TEST(StatsReport, MemoryIsKiBInStatsAndBytesInMetrics) {
  StatsFigures f;
  f.rss_kb = 5000;
  f.memory.pss_kb = 4000;
  f.memory.pss_anon_kb = 1500;
  f.memory.pss_shmem_kb = 20;  // pss_file_kb: not given
  f.store.extra["resident_bytes"] = 3 * 1024 * 1024;
  const nlohmann::json memory = stats_json(f).at("memory");
  const std::map<std::string, std::optional<uint64_t>> want = {
      {"rss", 5000},     {"pss", 4000},         {"pss_anon", 1500},           {"pss_file", std::nullopt},
      {"pss_shmem", 20}, {"process_own", 1520}, {"store_file_resident", 3072}};
  ASSERT_EQ(memory.size(), want.size()) << memory.dump();
  const std::string metrics = metrics_text(f);
  size_t checked = 0;
  for (const auto& [kind, kb] : want) {
    const std::string sample = "\nhitcost_memory_bytes{kind=\"" + kind + "\"} ";
    if (!kb) {
      EXPECT_TRUE(memory.at(kind + "_kb").is_null()) << kind;
      EXPECT_EQ(metrics.find(sample), std::string::npos) << kind;
    } else {
      EXPECT_EQ(memory.at(kind + "_kb").get<uint64_t>(), *kb) << kind;
      EXPECT_NE(metrics.find(sample + std::to_string(*kb * 1024) + "\n"), std::string::npos) << kind;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 7u);
  EXPECT_NE(metrics.find("\nhitcost_rss_bytes 5120000\n"), std::string::npos);
}

// A synced file's figures (core/durable_sync.h) in /stats and /metrics: absent where nothing is
// synced under a policy, complete where something is.
TEST(StatsReport, StoreSyncFiguresAreInStatsAndMetricsOnlyWhenPresent) {
  StatsFigures f;
  EXPECT_FALSE(stats_json(f).at("store").contains("sync"));
  EXPECT_EQ(metrics_text(f).find("hitcost_store_sync"), std::string::npos);
  SyncStats::Figures s;
  s.calls = 3;
  s.errors = 1;
  s.total_ns = 2'500'000'000;
  s.max_ns = 2'000'000'000;
  s.log2_ns[4] = 2;
  s.log2_ns[30] = 1;
  f.store.sync_policy = "interval:10";
  f.store.sync = s;
  const nlohmann::json j = stats_json(f).at("store").at("sync");
  EXPECT_EQ(j.at("policy"), "interval:10");
  EXPECT_EQ(j.at("calls"), 3u);
  EXPECT_EQ(j.at("errors"), 1u);
  EXPECT_EQ(j.at("sum_ns"), 2'500'000'000u);
  EXPECT_EQ(j.at("max_ns"), 2'000'000'000u);
  ASSERT_EQ(j.at("log2_buckets").size(), 31u);  // up to the last non-empty bucket
  EXPECT_EQ(j.at("log2_buckets")[4], 2u);
  EXPECT_EQ(j.at("log2_buckets")[30], 1u);
  const std::string m = metrics_text(f);
  EXPECT_NE(m.find("\nhitcost_store_sync_calls_total 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nhitcost_store_sync_errors_total 1\n"), std::string::npos);
  EXPECT_NE(m.find("\nhitcost_store_sync_seconds_total 2.5\n"), std::string::npos);
}

// The access log's own figures next to its counters: only with a log file; its mode always.
TEST(StatsReport, AccessLogFiguresJoinTheLogCountersWhenThereIsALogFile) {
  StatsFigures f;
  f.config = {{"log", "off"}};
  EXPECT_FALSE(stats_json(f).at("log").contains("path"));
  EXPECT_EQ(metrics_text(f).find("hitcost_log_sync"), std::string::npos);
  f.config = {{"log", "buffered:64K+sync:interval:1000"}};
  StatsFigures::Log log;
  log.path = "/var/log/x.log";
  log.reopens = 2;
  log.last_error = ENOSPC;
  log.sync_policy = "interval:1000";
  log.sync.calls = 7;
  log.sync.total_ns = 3'000'000'000;
  log.sync.log2_ns[20] = 7;
  f.log = log;
  f.counters.log_lines = 1234;
  const nlohmann::json j = stats_json(f).at("log");
  EXPECT_EQ(j.at("mode"), "buffered:64K+sync:interval:1000");
  EXPECT_EQ(j.at("path"), "/var/log/x.log");
  EXPECT_EQ(j.at("reopens"), 2u);
  EXPECT_EQ(j.at("last_error"), std::strerror(ENOSPC));
  EXPECT_EQ(j.at("lines"), 1234u);
  EXPECT_EQ(j.at("sync").at("policy"), "interval:1000");
  EXPECT_EQ(j.at("sync").at("calls"), 7u);
  EXPECT_EQ(j.at("sync").at("log2_buckets").size(), 21u);
  const std::string m = metrics_text(f);
  EXPECT_NE(m.find("\nhitcost_log_sync_calls_total 7\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nhitcost_log_sync_seconds_total 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nhitcost_log_reopens_total 2\n"), std::string::npos) << m;
}
