// hitcost-corpus compare: the structural facts of a run (which values decode, which round-trip
// under which strategy, byte totals, failure counts and listings, report contents). No
// timing is asserted: the figures are CPU time and vary; only their presence is checked.
#include "advise/compare.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codecs/value_codec.h"
#include "advise/compare_report.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"

namespace hitcost::corpus {
namespace {

Value map_of(Fields f) { return make_map(std::move(f)); }

// Trees of several shapes; the first is large and repetitive enough that php-default's
// FastLZ (threshold 2000 B, factor 1.3) keeps it compressed.
std::vector<Value> sample_trees() {
  std::vector<Value> trees;
  std::vector<Value> rows;
  for (int i = 0; i < 60; ++i) {
    rows.push_back(map_of({{make_key("id"), make_int(i)},
                           {make_key("title"), make_string("Article <" + std::to_string(i) + "> & 'friends'")},
                           {make_key("score"), make_real(i * 0.25)},
                           {make_key("published"), make_bool(i % 2 == 0)},
                           {make_key("editor"), make_null()}}));
  }
  trees.push_back(map_of({{make_key("rows"), make_list(std::move(rows))}, {make_key("total"), make_int(60)}}));
  trees.push_back(make_list({make_int(1), make_int(-2), make_int(INT64_MAX), make_real(0.1)}));
  trees.push_back(map_of({{make_int_key(5), make_string("five")}, {make_int_key(9), make_string("\"nine\"")}}));
  trees.push_back(make_list({}));
  trees.push_back(map_of({{make_key("nested"), map_of({{make_key("deeper"), make_list({make_list({make_null()})})}})},
                          {make_key("pi"), make_real(3.141592653589793)}}));
  return trees;
}

Strategy strategy(std::string_view text) {
  auto s = parse_compare_strategy(text, FlagScheme::php_memcached);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message);
  return s->strategy;
}

CorpusRecord record_of(std::string key, const Strategy& st, const Value& tree) {
  std::string plain;
  EXPECT_TRUE(encode_tree(st.serializer, tree, plain).ok()) << key;
  EncodedValue ev = wrap_payload(st, std::move(plain));
  return CorpusRecord{std::move(key), ev.flags, 0, 0, std::move(ev.bytes)};
}

// The test corpus: the trees under php-default (as a stock PHP install writes them), one
// igbinary, one JSON, one plain string, one value JSON cannot hold, and three bad values.
struct TestCorpus {
  std::vector<CorpusRecord> records;
  std::vector<Value> good_trees;  // in record order, the values that decode
  std::vector<bool> good_is_string;
  std::string non_utf8_key = "user:bytes";
};

TestCorpus make_corpus() {
  TestCorpus c;
  const Strategy php = strategy("php-default");
  int n = 0;
  for (const Value& t : sample_trees()) {
    c.records.push_back(record_of("php:" + std::to_string(n++), php, t));
    c.good_trees.push_back(t);
    c.good_is_string.push_back(false);
  }
  const Value small = map_of({{make_key("lang"), make_string("en")}, {make_key("n"), make_int(3)}});
  c.records.push_back(record_of("igb:0", strategy("struct:igbinary"), small));
  c.records.push_back(record_of("json:0", strategy("struct:json"), small));
  c.good_trees.insert(c.good_trees.end(), {small, small});
  c.good_is_string.insert(c.good_is_string.end(), {false, false});
  // A non-UTF-8 string: every binary format holds it, JSON cannot.
  const Value bytes = make_list({make_string(std::string("\xff\xfe raw", 6))});
  c.records.push_back(record_of(c.non_utf8_key, php, bytes));
  c.good_trees.push_back(bytes);
  c.good_is_string.push_back(false);
  // A pre-rendered page stored as a plain string (flags 0).
  EncodedValue page = wrap_payload(strategy("html"), "<p>cached & rendered</p>");
  c.records.push_back(CorpusRecord{"page:0", page.flags, 0, 0, page.bytes});
  c.good_trees.push_back(make_string("<p>cached & rendered</p>"));
  c.good_is_string.push_back(true);
  // Bad ones: truncated serialize text, a corrupt zlib stream, flags of a PHP int (type 1).
  c.records.push_back(CorpusRecord{"bad:parse", 0x04, 0, 0, "a:2:{i:0;"});
  c.records.push_back(CorpusRecord{"bad:zlib", 0x34, 0, 0, std::string("\x64\0\0\0", 4) + "not a zlib stream"});
  c.records.push_back(CorpusRecord{"bad:flags", 0x01, 0, 0, "42"});
  return c;
}

const std::vector<std::string> kStrategyTexts = {"html", "struct:json+zlib", "struct:igbinary+zstd", "struct:msgpack",
                                                 "php-default"};

CompareOptions options(int rounds) {
  CompareOptions o;
  for (const std::string& t : kStrategyTexts) {
    auto s = parse_compare_strategy(t, FlagScheme::php_memcached);
    EXPECT_TRUE(s.ok()) << t;
    o.strategies.push_back(*s);
  }
  o.rounds = rounds;
  o.min_time_ns = 0;  // one call per measurement: the figures are not under test
  return o;
}

// What wrap_payload stores for `tree` under `st`, computed here without the engine; none when
// the format cannot hold it (cannot_encode: not stored).
std::optional<EncodedValue> stored_value(const Strategy& st, const Value& tree, bool is_string) {
  Strategy used = st;
  std::string plain;
  if (is_string) {
    used.rep = Representation::html;
    used.serializer = SerializerId::none;
    plain = tree.s;
  } else if (st.rep == Representation::html) {
    render_tree_html(tree, plain);
  } else if (!encode_tree(st.serializer, tree, plain).ok()) {
    return std::nullopt;
  }
  return wrap_payload(used, std::move(plain));
}
uint64_t stored_size(const Strategy& st, const Value& tree, bool is_string) {
  auto v = stored_value(st, tree, is_string);
  return v ? v->bytes.size() : 0;
}

const FailureKind* find_kind(const CompareRow& row, const std::string& kind) {
  for (const FailureKind& k : row.failures)
    if (k.kind == kind) return &k;
  return nullptr;
}

TEST(CorpusCompare, EveryGoodValueRoundTripsUnderEveryStrategyAndBadOnesAreCountedByKind) {
  const TestCorpus c = make_corpus();
  auto res = run_compare(c.records, FlagScheme::php_memcached, 1'700'000'000, options(2));
  ASSERT_TRUE(res.ok()) << res.error().message;
  const CompareResult& r = *res;
  ASSERT_EQ(r.rows.size(), 1 + kStrategyTexts.size());
  EXPECT_EQ(r.records, c.records.size());
  EXPECT_EQ(r.values_good, c.good_trees.size());
  EXPECT_EQ(r.good_strings, 1u);

  const CompareRow& stored = r.rows[0];
  EXPECT_EQ(stored.label, kAsStoredLabel);
  EXPECT_TRUE(stored.baseline);
  EXPECT_FALSE(stored.verdict.has_value());
  EXPECT_EQ(stored.values_ok, c.good_trees.size());
  EXPECT_EQ(stored.values_failed, 3u);
  uint64_t all_bytes = 0;
  for (const CorpusRecord& rec : c.records) all_bytes += rec.value.size();
  EXPECT_EQ(stored.stored_bytes, all_bytes);
  // Cache bytes: the slab model over the same items, fed here from the records (every one, good
  // or not, as the stored bytes) and below from wrap_payload's own output: keys, flags, sizes.
  SlabTally every_record{SlabSettings{}};
  for (const CorpusRecord& rec : c.records) every_record.add(rec.key.size(), rec.value.size(), rec.flags);
  EXPECT_EQ(stored.cache_bytes, every_record.chunk_bytes());
  EXPECT_GT(stored.cache_bytes, all_bytes);  // headers and keys on top, in whole chunks
  EXPECT_EQ(r.how.slab_settings, SlabSettings{}.source);
  EXPECT_GE(stored.compressed_values, 1u);  // the large php-default value is FastLZ'd
  const std::map<std::string, std::string> bad = {
      {"parse_error", "bad:parse"}, {"decompress_failed", "bad:zlib"}, {"unknown_flags", "bad:flags"}};
  for (const auto& [kind, key] : bad) {
    const FailureKind* k = find_kind(stored, kind);
    ASSERT_NE(k, nullptr) << kind;
    EXPECT_EQ(k->count, 1u) << kind;
    ASSERT_EQ(k->listed.size(), 1u) << kind;
    EXPECT_EQ(k->listed[0].key, key);
  }

  size_t rows_checked = 0;
  for (size_t i = 0; i < kStrategyTexts.size(); ++i) {
    const CompareRow& row = r.rows[1 + i];
    SCOPED_TRACE(row.label);
    EXPECT_EQ(row.label, kStrategyTexts[i]);
    EXPECT_FALSE(row.baseline);
    EXPECT_EQ(find_kind(row, "round_trip_mismatch"), nullptr);
    const bool json = row.label == "struct:json+zlib";
    const Strategy st = strategy(row.label);
    uint64_t expected_bytes = 0;
    SlabTally row_items{SlabSettings{}}, as_stored_items{SlabSettings{}};
    for (size_t g = 0; g < c.good_trees.size(); ++g) {
      expected_bytes += stored_size(st, c.good_trees[g], c.good_is_string[g]);
      auto v = stored_value(st, c.good_trees[g], c.good_is_string[g]);
      if (!v) continue;
      const CorpusRecord& rec = c.records[g];  // the good values are the first records, in order
      row_items.add(rec.key.size(), v->bytes.size(), v->flags);
      as_stored_items.add(rec.key.size(), rec.value.size(), rec.flags);
    }
    EXPECT_EQ(row.stored_bytes, expected_bytes);
    EXPECT_EQ(row.cache_bytes, row_items.chunk_bytes());
    EXPECT_DOUBLE_EQ(row.cache_vs_baseline, double(row_items.chunk_bytes()) / double(as_stored_items.chunk_bytes()));
    EXPECT_GT(row.baseline_bytes, 0u);
    if (json) {
      EXPECT_EQ(row.values_ok, c.good_trees.size() - 1);
      const FailureKind* k = find_kind(row, "cannot_encode");
      ASSERT_NE(k, nullptr);
      EXPECT_EQ(k->count, 1u);
      ASSERT_EQ(k->listed.size(), 1u);
      EXPECT_EQ(k->listed[0].key, c.non_utf8_key);
    } else {
      EXPECT_EQ(row.values_ok, c.good_trees.size());
      EXPECT_EQ(row.values_failed, 0u);
    }
    EXPECT_TRUE(row.encode_mean_ns.has_value());
    EXPECT_EQ(row.round_read_ns.size(), 2u);
    EXPECT_EQ(row.round_read_render_ns.size(), 2u);
    ASSERT_TRUE(row.verdict.has_value());  // 2 rounds, one look: present, on both pairs
    EXPECT_EQ(row.verdict->pairs, 2u) << row.verdict->text;
    // A row storing more bytes than as stored pays a fetch its figure leaves out: a lower bound.
    // html stores renderings, several times the bytes.
    if (row.label == "html") {
      EXPECT_GT(row.bytes_vs_baseline, 2.0);
      EXPECT_GT(row.cache_vs_baseline, 1.5);
    }
    if (row.bytes_vs_baseline > 1.05) {
      EXPECT_EQ(row.bound, "lower bound") << row.label;
    }
    if (row.bytes_vs_baseline < 1 / 1.05) {
      EXPECT_EQ(row.bound, "upper bound") << row.label;
    }
    ++rows_checked;
  }
  EXPECT_EQ(rows_checked, kStrategyTexts.size());
  // The html row stores renderings, so it pays no render on read; struct rows do.
  EXPECT_EQ(r.rows[1].render_mean_ns, 0.0);
  EXPECT_EQ(r.rows[1].decode_mean_ns, 0.0);
}

TEST(CorpusCompare, CacheBytesFollowTheMemcachedSettingsGiven) {
  const TestCorpus c = make_corpus();
  CompareOptions o = options(2);
  o.slab.growth_factor = 1.08;  // finer classes: less room lost per chunk
  o.slab.chunk_size = 32;
  o.slab.source = "stats settings of test:1";
  auto res = run_compare(c.records, FlagScheme::php_memcached, 1'700'000'000, o);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->how.slab_settings, "stats settings of test:1");
  SlabTally fine(o.slab), coarse{SlabSettings{}};
  for (const CorpusRecord& rec : c.records) {
    fine.add(rec.key.size(), rec.value.size(), rec.flags);
    coarse.add(rec.key.size(), rec.value.size(), rec.flags);
  }
  ASSERT_NE(fine.chunk_bytes(), coarse.chunk_bytes()) << "the test corpus cannot tell the settings apart";
  EXPECT_EQ(res->rows[0].cache_bytes, fine.chunk_bytes());
  size_t rows_checked = 0;
  for (const CompareRow& row : res->rows) {
    EXPECT_GT(row.cache_bytes, 0u) << row.label;
    ++rows_checked;
  }
  EXPECT_EQ(rows_checked, 1 + kStrategyTexts.size());
}

TEST(CorpusCompare, ReportsCarryEveryRowAndTheFailures) {
  const TestCorpus c = make_corpus();
  auto res = run_compare(c.records, FlagScheme::php_memcached, 1'700'000'000, options(5));
  ASSERT_TRUE(res.ok()) << res.error().message;
  Manifest m;
  m.source = "memcached:127.0.0.1:11211 <test>";
  m.sampled_at_unix_s = 1'699'999'000;
  m.values = c.records.size();

  const nlohmann::json j = nlohmann::json::parse(compare_json(*res, m));
  EXPECT_EQ(j["corpus"]["source"], m.source);
  EXPECT_EQ(j["corpus"]["records"], c.records.size());
  EXPECT_EQ(j["measurement"]["clock"], "CLOCK_THREAD_CPUTIME_ID");
  EXPECT_EQ(j["measurement"]["rounds"], 5);
  EXPECT_EQ(j["measurement"]["slab_settings"], SlabSettings{}.source);
  ASSERT_EQ(j["rows"].size(), 1 + kStrategyTexts.size());
  EXPECT_EQ(j["rows"][0]["label"], kAsStoredLabel);
  EXPECT_TRUE(j["rows"][0]["verdict"].is_null());
  for (size_t i = 0; i < kStrategyTexts.size(); ++i) {
    const nlohmann::json& row = j["rows"][1 + i];
    EXPECT_EQ(row["label"], kStrategyTexts[i]);
    EXPECT_EQ(row["values_ok"], res->rows[1 + i].values_ok);
    EXPECT_EQ(row["stored_bytes"], res->rows[1 + i].stored_bytes);
    EXPECT_EQ(row["cache_bytes"], res->rows[1 + i].cache_bytes);
    EXPECT_EQ(row["cache_vs_as_stored"], res->rows[1 + i].cache_vs_baseline);
    EXPECT_TRUE(row["verdict"].is_object());
    EXPECT_EQ(row["round_read_render_ns"].size(), 5u);
  }
  EXPECT_EQ(j["rows"][0]["failures"].size(), 3u);
  EXPECT_EQ(j["rows"][2]["failures"][0]["kind"], "cannot_encode");
  EXPECT_EQ(j["rows"][2]["failures"][0]["listed"][0]["key"], c.non_utf8_key);
  EXPECT_EQ(j["rows"][0]["failures"][2]["listed"][0]["flags"], "0x00000001");

  std::istringstream csv(compare_csv(*res));
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(csv, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2 + kStrategyTexts.size());
  EXPECT_EQ(lines[0].rfind("label,strategy,scheme,values_ok", 0), 0u);
  EXPECT_NE(lines[0].find(",cache_bytes,cache_vs_as_stored"), std::string::npos) << lines[0];
  // The as-stored line ends in its cache bytes and a ratio of 1.
  EXPECT_NE(lines[1].find("," + std::to_string(res->rows[0].cache_bytes) + ",1"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].rfind("as stored,,php-memcached,", 0), 0u);
  for (size_t i = 0; i < kStrategyTexts.size(); ++i)
    EXPECT_EQ(lines[2 + i].rfind(kStrategyTexts[i] + ",", 0), 0u) << lines[2 + i];

  const std::string html = compare_html(*res, m);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("&lt;test&gt;"), std::string::npos);  // the source, escaped
  EXPECT_EQ(html.find("http"), std::string::npos);          // self-contained: no external resources
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 1 + kStrategyTexts.size());
  for (const std::string& t : kStrategyTexts) EXPECT_NE(html.find("<td>" + t + "</td>"), std::string::npos) << t;

  const std::string table = compare_table(*res);
  for (const std::string& t : kStrategyTexts) EXPECT_NE(table.find(t), std::string::npos) << t;
  EXPECT_NE(table.find("bad:zlib"), std::string::npos);
  EXPECT_NE(table.find("read+render"), std::string::npos);
  EXPECT_NE(table.find("cache MiB"), std::string::npos);
  EXPECT_NE(html.find("<th>cache MiB</th>"), std::string::npos);
}

TEST(CorpusCompare, JsonReportReplacesNonUtf8BytesInKeysInsteadOfThrowing) {
  const std::vector<CorpusRecord> records = {CorpusRecord{std::string("bin:\xff", 5), 0x0100, 0, 0, "x"}};
  CompareOptions o = options(1);
  auto res = run_compare(records, FlagScheme::php_memcached, 0, o);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->rows[0].failures.size(), 1u);
  EXPECT_EQ(res->rows[0].failures[0].kind, "unknown_flags");
  const nlohmann::json j = nlohmann::json::parse(compare_json(*res, Manifest{}));
  EXPECT_EQ(j["rows"][0]["failures"][0]["listed"][0]["key"], "bin:\xef\xbf\xbd");  // U+FFFD
  EXPECT_EQ(j["rows"][1]["values_ok"], 0);  // nothing decoded, nothing re-encoded
}

TEST(CorpusCompare, WeightsByAccessOnlyWhenEveryRecordCarriesIt) {
  TestCorpus c = make_corpus();
  CompareOptions o = options(1);
  o.strategies.resize(1);
  auto uniform = run_compare(c.records, FlagScheme::php_memcached, 1000, o);
  ASSERT_TRUE(uniform.ok());
  EXPECT_EQ(uniform->how.weighting.rfind("uniform", 0), 0u) << uniform->how.weighting;
  for (CorpusRecord& rec : c.records) rec.last_access_unix_s = 900;
  auto access = run_compare(c.records, FlagScheme::php_memcached, 1000, o);
  ASSERT_TRUE(access.ok());
  EXPECT_EQ(access->how.weighting.rfind("access", 0), 0u) << access->how.weighting;
  // A sample already drawn by recency is not weighted by it a second time.
  o.sample_drawn_by_recency = true;
  auto drawn = run_compare(c.records, FlagScheme::php_memcached, 1000, o);
  ASSERT_TRUE(drawn.ok());
  EXPECT_EQ(drawn->how.weighting.rfind("uniform (the sample was drawn by recency", 0), 0u) << drawn->how.weighting;
  o.weighting = HitWeighting::access;  // unless asked
  auto asked = run_compare(c.records, FlagScheme::php_memcached, 1000, o);
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->how.weighting.rfind("access", 0), 0u) << asked->how.weighting;
}

TEST(CorpusCompare, UntilDecidedStopsWhenEveryVerdictIsDecidedOrTheRoundsRunOut) {
  const TestCorpus c = make_corpus();
  CompareOptions o = options(0);
  o.rounds.reset();
  o.min_rounds = 3;
  o.max_rounds = 8;
  o.min_time_ns = 20'000;  // figures steady enough for verdicts
  auto res = run_compare(c.records, FlagScheme::php_memcached, 1'700'000'000, o);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_GE(res->how.rounds, 3);
  EXPECT_LE(res->how.rounds, 8);
  size_t decided = 0, checked = 0;
  for (const CompareRow& row : res->rows) {
    if (row.baseline) continue;
    ASSERT_TRUE(row.verdict) << row.label;
    EXPECT_EQ(row.round_read_render_ns.size(), size_t(res->how.rounds));
    decided += row.verdict->decided();
    ++checked;
  }
  EXPECT_EQ(checked, kStrategyTexts.size());
  // It stops early only when everything is decided, and says why it stopped.
  if (res->how.rounds < 8) {
    EXPECT_EQ(decided, checked);
  }
  EXPECT_EQ(res->how.stopped_because,
            decided == checked ? "every verdict decided" : "the maximum of rounds is reached");
  // html against the PHP-serialized values: hundreds of times cheaper to read, decided.
  EXPECT_TRUE(res->rows[1].verdict->decided()) << res->rows[1].verdict->text;
  // Looked at after round 3 and summarized again at the end: the counts and bytes are the
  // values', as after one look (they once added up at every look: 2x the values, half the ratio).
  auto once = run_compare(c.records, FlagScheme::php_memcached, 1'700'000'000, options(1));
  ASSERT_TRUE(once.ok());
  ASSERT_EQ(once->rows.size(), res->rows.size());
  for (size_t i = 0; i < res->rows.size(); ++i) {
    const CompareRow &a = res->rows[i], &b = once->rows[i];
    SCOPED_TRACE(a.label);
    EXPECT_EQ(a.values_ok, b.values_ok);
    EXPECT_EQ(a.values_failed, b.values_failed);
    EXPECT_EQ(a.stored_bytes, b.stored_bytes);
    EXPECT_EQ(a.baseline_bytes, b.baseline_bytes);
    EXPECT_DOUBLE_EQ(a.bytes_vs_baseline, b.bytes_vs_baseline);
    EXPECT_EQ(a.compressed_values, b.compressed_values);
    EXPECT_EQ(a.cache_bytes, b.cache_bytes);
  }
  EXPECT_EQ(res->rows[0].values_ok, c.good_trees.size());
}

TEST(CorpusCompare, RefusesNoRoundsAndDuplicateOrReservedLabels) {
  const TestCorpus c = make_corpus();
  CompareOptions o = options(0);
  auto r = run_compare(c.records, FlagScheme::php_memcached, 0, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
  o.rounds = 1;
  o.strategies.push_back(o.strategies[0]);
  r = run_compare(c.records, FlagScheme::php_memcached, 0, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
  o.strategies.pop_back();
  o.strategies[0].label = kAsStoredLabel;
  r = run_compare(c.records, FlagScheme::php_memcached, 0, o);
  ASSERT_FALSE(r.ok());
}

TEST(CorpusCompare, PresetsKeepTheirSchemeAndAtNamesAnother) {
  auto preset = parse_compare_strategy("php-memcache-default", FlagScheme::php_memcached);
  ASSERT_TRUE(preset.ok());
  EXPECT_EQ(preset->strategy.scheme, FlagScheme::php_memcache);
  EXPECT_EQ(preset->label, "php-memcache-default");
  auto at = parse_compare_strategy("struct:json+zlib@native", FlagScheme::php_memcached);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->strategy.scheme, FlagScheme::native);
  EXPECT_FALSE(parse_compare_strategy("struct:igbinary@php-memcache", FlagScheme::php_memcached).ok());
  EXPECT_FALSE(parse_compare_strategy("html@nowhere", FlagScheme::php_memcached).ok());
}

TEST(CorpusCompare, WeightedQuantileIsTheFirstValueReachingTheWeight) {
  const std::vector<std::pair<double, double>> vw = {{3, 2}, {1, 1}, {2, 1}};
  EXPECT_EQ(weighted_quantile(vw, 0.25), 1);
  EXPECT_EQ(weighted_quantile(vw, 0.5), 2);
  EXPECT_EQ(weighted_quantile(vw, 0.51), 3);
  EXPECT_EQ(weighted_quantile(vw, 0.99), 3);
  EXPECT_EQ(weighted_quantile({}, 0.5), 0);
}

TEST(CorpusTreeHtml, RendersMapsListsAndScalarsEscapingEveryString) {
  const Value tree = make_map({{make_key("a<b"), make_string("x & 'y'")},
                               {make_int_key(3), make_list({make_int(1), make_real(2.5), make_bool(true), make_null(),
                                                            make_string("\"q\">"), make_real(0.1), make_real(3)})},
                               {make_key("f"), make_bool(false)}});
  std::string html = "keep:";  // appends
  render_tree_html(tree, html);
  EXPECT_EQ(html,
            "keep:<dl><dt>a&lt;b</dt><dd>x &amp; &#39;y&#39;</dd><dt>3</dt><dd><ol><li>1</li><li>2.5</li>"
            "<li>true</li><li></li><li>&quot;q&quot;&gt;</li><li>0.1</li><li>3</li></ol></dd>"
            "<dt>f</dt><dd>false</dd></dl>");
}

}  // namespace
}  // namespace hitcost::corpus
