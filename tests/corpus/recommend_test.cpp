// hitcost-corpus recommend: the space it searches under each flag scheme, what PHP can do with
// a candidate and the settings it is told, the front, and a whole run's structural facts on a
// mixed corpus PHP's default would write (every candidate holds every value, the confirmed
// candidates store what the search derived, the answer names one of them). No timing is
// asserted: CPU figures vary; their presence and consistency are checked.
#include "advise/recommend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "advise/recommend_report.h"
#include "codecs/value_codec.h"
#include "codecs/zstd_dictionary.h"
#include "corpus/tree_codec.h"
#include "tests/support/small_records.h"

namespace hitcost::corpus {
namespace {

Strategy parsed(std::string_view text, FlagScheme scheme = FlagScheme::php_memcached) {
  auto s = parse_strategy(text, scheme);
  EXPECT_TRUE(s.ok()) << text;
  return *s;
}

std::vector<std::string> names(const std::vector<SpaceRepresentation>& reps) {
  std::vector<std::string> out;
  for (const SpaceRepresentation& r : reps)
    out.push_back(r.rep == Representation::html ? "html" : std::string("struct:") + to_string(r.serializer));
  return out;
}
std::vector<std::string> names(const std::vector<SpaceCompressor>& comps) {
  std::vector<std::string> out;
  for (const SpaceCompressor& c : comps) out.push_back(std::string(to_string(c.id)) + ":" + std::to_string(c.level));
  return out;
}

TEST(RecommendSpace, EachSchemeSearchesWhatItsFlagsCanSay) {
  EXPECT_EQ(names(space_representations(FlagScheme::php_memcached)),
            (std::vector<std::string>{"html", "struct:json", "struct:msgpack", "struct:php", "struct:igbinary"}));
  // pecl memcache has no igbinary flag; JSON and msgpack ride on hitcost's user flags.
  EXPECT_EQ(names(space_representations(FlagScheme::php_memcache)),
            (std::vector<std::string>{"html", "struct:json", "struct:msgpack", "struct:php"}));
  EXPECT_EQ(names(space_compressors(parsed("struct:php"))),
            (std::vector<std::string>{"zlib:1", "zlib:0", "zlib:9", "zstd:1", "zstd:0", "zstd:9", "zstd:19", "fastlz:0",
                                      "fastlz:2"}));
  EXPECT_EQ(names(space_compressors(parsed("struct:php", FlagScheme::php_memcache))),
            (std::vector<std::string>{"zlib:1", "zlib:0", "zlib:9"}));
  EXPECT_EQ(space_compressors(parsed("html", FlagScheme::native)).size(), 11u);  // lz4 too
  EXPECT_EQ(space_thresholds(FlagScheme::php_memcached, 3000),
            (std::vector<uint32_t>{0, 64, 128, 256, 512, 1024, 2000, 2048, 4096}));
  EXPECT_EQ(space_thresholds(FlagScheme::php_memcache, 100), (std::vector<uint32_t>{0, 64, 128, 20000}));
}

TEST(RecommendSpace, PhpReachAndTheSettingsThatWriteIt) {
  Strategy fastlz = parsed("struct:igbinary+fastlz");
  fastlz.rule.threshold_bytes = 512;
  EXPECT_EQ(php_reach(fastlz, true).use, PhpUse::writes);
  EXPECT_EQ(php_settings(fastlz, true),
            (std::vector<std::string>{"memcached.serializer = igbinary", "memcached.compression_type = fastlz",
                                      "memcached.compression_threshold = 512", "memcached.compression_factor = 1.3"}));
  EXPECT_EQ(hitcost_settings(fastlz, true),
            (std::vector<std::string>{"--strategy struct:igbinary+fastlz", "--flags php-memcached", "--threshold 512",
                                      "--factor 1.3"}));
  // JSON arrays come back as arrays only with json_array.
  EXPECT_EQ(php_settings(parsed("struct:json"), false),
            (std::vector<std::string>{"memcached.serializer = json_array", "Memcached::OPT_COMPRESSION => false"}));
  // zstd: not in 3.2.0; another zlib level: read, not written; the native scheme: nothing.
  EXPECT_EQ(php_reach(parsed("struct:php+zstd:3"), true).use, PhpUse::cannot);
  EXPECT_EQ(php_reach(parsed("struct:php+zlib:9"), true).use, PhpUse::reads_only);
  EXPECT_TRUE(php_settings(parsed("struct:php+zlib:9"), true).empty());
  EXPECT_EQ(php_reach(parsed("struct:php", FlagScheme::native), false).use, PhpUse::cannot);
  // pecl memcache: JSON is the application's to decode; serialize() with zlib is written.
  EXPECT_EQ(php_reach(parsed("struct:json", FlagScheme::php_memcache), false).use, PhpUse::reads_only);
  Strategy memcache = parsed("struct:php+zlib", FlagScheme::php_memcache);
  EXPECT_EQ(php_reach(memcache, true).use, PhpUse::writes);
  EXPECT_EQ(hitcost_settings(memcache, true),
            (std::vector<std::string>{"--strategy struct:php+zlib", "--flags php-memcache", "--threshold 20000",
                                      "--min-savings 0.2"}));
}

TEST(ParetoFront, KeepsThePointsNoOtherBeatsOnBoth) {
  //                                  0           1          2           3           4           5
  const std::vector<std::pair<double, double>> pts = {{1, 1}, {0.5, 2}, {0.6, 1.5}, {2, 0.4}, {1.2, 1.2}, {0.5, 3}};
  EXPECT_EQ(pareto_front(pts), (std::vector<size_t>{1, 2, 0, 3}));
  EXPECT_TRUE(pareto_front({}).empty());
}

Value map_of(Fields f) { return make_map(std::move(f)); }

// A mixed corpus as stock PHP writes it (php-default: serialize + FastLZ from 2000 B): pages of
// 5..80 rows, small arrays, and a rendered fragment stored as a string.
std::vector<CorpusRecord> php_default_corpus() {
  const Strategy php = parsed("php-default");
  std::vector<CorpusRecord> out;
  for (int p = 0; p < 24; ++p) {
    std::vector<Value> rows;
    for (int i = 0; i < 5 + p * 3; ++i)
      rows.push_back(map_of(
          {{make_key("id"), make_int(p * 1000 + i)},
           {make_key("title"),
            make_string("Story " + std::to_string(i) + " of page " + std::to_string(p) + ": the long road home")},
           {make_key("score"), make_real(i * 0.5)},
           {make_key("tags"), make_list({make_string("news"), make_string("tag" + std::to_string(i % 7))})}}));
    const Value tree = map_of({{make_key("rows"), make_list(std::move(rows))}, {make_key("page"), make_int(p)}});
    std::string plain;
    EXPECT_TRUE(encode_tree(SerializerId::php, tree, plain).ok());
    EncodedValue ev = wrap_payload(php, std::move(plain));
    out.push_back(CorpusRecord{"page:" + std::to_string(p), ev.flags, 0, 0, std::move(ev.bytes)});
  }
  for (int k = 0; k < 8; ++k) {
    std::string plain;
    EXPECT_TRUE(encode_tree(SerializerId::php,
                            map_of({{make_key("user"), make_int(k)}, {make_key("lang"), make_string("en")}}), plain)
                    .ok());
    EncodedValue ev = wrap_payload(php, std::move(plain));
    out.push_back(CorpusRecord{"user:" + std::to_string(k), ev.flags, 0, 0, std::move(ev.bytes)});
  }
  EncodedValue frag = wrap_payload(parsed("html"), "<ul><li>cached</li><li>rendered</li></ul>");
  out.push_back(CorpusRecord{"fragment:0", frag.flags, 0, 0, frag.bytes});
  return out;
}

RecommendOptions quick_options() {
  RecommendOptions o;
  o.search_rounds = 2;
  o.confirm.rounds = 3;  // one look: the structure is under test, not the decision
  o.confirm.min_time_ns = 0;
  return o;
}

TEST(Recommend, SearchesTheSpaceConfirmsTheFrontAndAnswersWithAConfirmedCandidate) {
  const std::vector<CorpusRecord> corpus = php_default_corpus();
  std::vector<std::string> progress;
  RecommendOptions o = quick_options();
  o.progress = [&](const std::string& line) { progress.push_back(line); };
  auto res = run_recommend(corpus, FlagScheme::php_memcached, 1'700'000'000, o);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const RecommendResult& r = *res;
  EXPECT_TRUE(r.codec_failures.empty()) << r.codec_failures[0].kind << ": " << r.codec_failures[0].listed[0].reason;
  EXPECT_EQ(r.values_good, corpus.size());
  EXPECT_EQ(r.search_rounds, 2);
  EXPECT_EQ(r.forms, 5u * 9u);     // 5 representations x 9 compressor levels under php-memcached
  ASSERT_EQ(progress.size(), 3u);  // two search rounds, then the confirmation
  EXPECT_EQ(progress[0].rfind("recommend: search round 1/2", 0), 0u) << progress[0];
  EXPECT_EQ(progress[2].rfind("recommend: confirming", 0), 0u) << progress[2];
  ASSERT_EQ(r.pruning.size(), 1u);  // after every round but the last

  // Today's memory is the model's over today's values, the same ones every candidate holds.
  SlabTally today{SlabSettings{}};
  for (const CorpusRecord& rec : corpus) today.add(rec.key.size(), rec.value.size(), rec.flags);
  EXPECT_EQ(r.as_stored_chunk_bytes, today.chunk_bytes());

  std::set<std::string> seen;
  size_t plain = 0, on_front = 0, confirmed = 0;
  for (const Candidate& c : r.candidates) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(seen.insert(c.name).second) << "a candidate listed twice";
    EXPECT_EQ(c.values_ok + c.values_failed, r.values_good);
    EXPECT_EQ(c.values_failed, 0u);  // every value of this corpus fits every format
    EXPECT_GT(c.chunk_bytes, c.stored_bytes);
    EXPECT_DOUBLE_EQ(c.memory_ratio, double(c.chunk_bytes) / double(r.as_stored_chunk_bytes));
    plain += !c.compressing;
    if (!c.compressing) {
      EXPECT_EQ(c.compressed_values, 0u);
    }
    if (c.dropped_after_round == 0) {
      EXPECT_EQ(c.round_cpu_ns.size(), 2u);
      EXPECT_GT(c.cpu_ratio, 0);
    } else {
      EXPECT_EQ(c.dropped_after_round, 1);
      EXPECT_FALSE(c.on_front);
    }
    on_front += c.on_front;
    confirmed += c.confirmed.has_value();
  }
  EXPECT_EQ(plain, 5u);
  EXPECT_GT(r.candidates.size(), r.forms);  // thresholds split the forms
  EXPECT_GE(on_front, 1u);
  // The confirmation: as stored, then each confirmed candidate, storing what the search derived
  // (a difference would be a codec failure, checked above).
  EXPECT_EQ(r.confirmation.rows.size(), 1 + confirmed);
  EXPECT_GE(confirmed, 1u);
  EXPECT_LE(confirmed, o.confirm_at_most + 1);  // the best few, and the best PHP writes
  for (size_t i = 1; i < r.confirmation.rows.size(); ++i) {
    const CompareRow& row = r.confirmation.rows[i];
    auto it =
        std::find_if(r.candidates.begin(), r.candidates.end(), [&](const Candidate& c) { return c.name == row.label; });
    ASSERT_NE(it, r.candidates.end()) << row.label;
    EXPECT_EQ(row.stored_bytes, it->stored_bytes);
    EXPECT_EQ(row.cache_bytes, it->chunk_bytes);
    EXPECT_EQ(row.round_read_render_ns.size(), 3u);
  }
  EXPECT_FALSE(r.best.sentence.empty());
  if (r.best.made) {
    const Candidate& c = r.candidates[r.best.candidate];
    ASSERT_TRUE(c.confirmed.has_value());
    EXPECT_TRUE(c.confirmed->decided());
    EXPECT_LT(c.score, 1 + r.memory_weight);
    EXPECT_NE(r.best.sentence.find(c.name), std::string::npos) << r.best.sentence;
    EXPECT_EQ(r.best.hitcost_config.front(), "--strategy " + c.strategy.name());
    if (c.php == PhpUse::writes) {
      EXPECT_FALSE(r.best.php_config.empty());
    }
  }
  if (r.best_php.made) {
    EXPECT_EQ(r.candidates[r.best_php.candidate].php, PhpUse::writes);
  }

  // The reports carry every candidate, the answer and the chart.
  Manifest m;
  m.source = "test <corpus>";
  const nlohmann::json j = nlohmann::json::parse(recommend_json(r, m));
  EXPECT_EQ(j["candidates"].size(), r.candidates.size());
  EXPECT_EQ(j["recommendation"]["sentence"], r.best.sentence);
  EXPECT_EQ(j["memory"]["as_stored_chunk_bytes"], r.as_stored_chunk_bytes);
  EXPECT_EQ(j["confirmation"]["rows"].size(), r.confirmation.rows.size());
  for (const auto& c : j["candidates"]) EXPECT_TRUE(c.contains("chunk_bytes") && c.contains("stored_bytes"));
  const std::string html = recommend_html(r, m);
  EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained
  EXPECT_NE(html.find("&lt;corpus&gt;"), std::string::npos);
  size_t front_points = 0;
  for (size_t at = html.find("class=\"front\""); at != std::string::npos; at = html.find("class=\"front\"", at + 1))
    ++front_points;
  EXPECT_EQ(front_points, on_front);
  EXPECT_NE(html.find("class=\"today\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"recommended\"") != std::string::npos, r.best.made || r.best_php.made);
  const std::string table = recommend_table(r);
  EXPECT_EQ(table.rfind(r.best.sentence, 0), 0u) << table.substr(0, 300);  // the answer first
}

// Small JSON values (100-1,000 B) as php-memcached stores them with memcached.serializer=json.
std::vector<CorpusRecord> small_json_corpus(size_t n) {
  const Strategy json = parsed("struct:json");
  std::vector<CorpusRecord> out;
  size_t i = 0;
  for (std::string& record : test::small_json_records(n, 23)) {
    EncodedValue ev = wrap_payload(json, std::move(record));
    out.push_back(CorpusRecord{"user:" + std::to_string(i++), ev.flags, 0, 0, std::move(ev.bytes)});
  }
  return out;
}

TEST(Recommend, TrainsADictionaryPerRepresentationOnAFifthAndMeasuresTheRest) {
  const std::vector<CorpusRecord> corpus = small_json_corpus(600);
  std::vector<std::string> progress;
  RecommendOptions o = quick_options();
  o.dictionary_dir = "/srv/dicts";
  o.progress = [&](const std::string& line) { progress.push_back(line); };
  auto res = run_recommend(corpus, FlagScheme::php_memcached, 1'700'000'000, o);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const RecommendResult& r = *res;
  EXPECT_TRUE(r.codec_failures.empty()) << r.codec_failures[0].kind << ": " << r.codec_failures[0].listed[0].reason;
  // Every fifth value trains; no figure is taken on one of them.
  EXPECT_EQ(r.records, 600u);
  EXPECT_EQ(r.values_good, 480u);
  ASSERT_EQ(r.training_records.size(), 120u);
  for (size_t i = 0; i < r.training_records.size(); ++i) EXPECT_EQ(r.training_records[i], 5 * i);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress[0].rfind("recommend: 5 zstd dictionaries trained on 120 values", 0), 0u) << progress[0];
  ASSERT_EQ(r.dictionaries.size(), 5u) << (r.dictionary_notes.empty() ? "" : r.dictionary_notes[0]);
  std::set<std::string> scopes;
  for (const TrainedDictionary& d : r.dictionaries) {
    scopes.insert(d.scope);
    EXPECT_EQ(d.samples, 120u) << d.scope;
    EXPECT_GT(d.bytes.size(), 0u);
    EXPECT_LE(d.bytes.size(), default_dictionary_capacity(d.sample_bytes));
  }
  EXPECT_EQ(scopes, (std::set<std::string>{"html", "struct:json", "struct:msgpack", "struct:php", "struct:igbinary"}));
  EXPECT_EQ(r.forms, 5u * 12u);  // 9 compressor levels and 3 zstd-dict levels per representation

  // The same representation and level, threshold 0: with the dictionary (counted) at least 2x
  // smaller than without; PHP cannot read it; the settings load the dictionary.
  auto find = [&](const std::string& name) -> const Candidate* {
    for (const Candidate& c : r.candidates)
      if (c.name == name) return &c;
    return nullptr;
  };
  const Candidate* with = find("struct:json+zstd-dict, threshold 0 B");
  const Candidate* without = find("struct:json+zstd, threshold 0 B");
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  EXPECT_EQ(with->values_ok, 480u);
  EXPECT_EQ(with->compressed_values, 480u);
  EXPECT_GT(with->dictionary_bytes, 0u);
  EXPECT_EQ(without->dictionary_bytes, 0u);
  EXPECT_LE(2 * (with->stored_bytes + with->dictionary_bytes), without->stored_bytes)
      << with->stored_bytes << " + " << with->dictionary_bytes << " vs " << without->stored_bytes;
  EXPECT_EQ(with->php, PhpUse::cannot);
  EXPECT_TRUE(with->strategy.dictionary);
  EXPECT_EQ(hitcost_settings(with->strategy, true, "/srv/dicts/struct-json.zdict")[2],
            "--zstd-dict struct:json=/srv/dicts/struct-json.zdict");
  // The answer, when it is a dictionary strategy, names the file in --dict-dir and the size.
  if (r.best.made && r.candidates[r.best.candidate].strategy.dictionary) {
    const Candidate& c = r.candidates[r.best.candidate];
    EXPECT_NE(r.best.sentence.find(std::to_string(c.dictionary_bytes) + " B dictionary"), std::string::npos);
    EXPECT_NE(std::find(r.best.hitcost_config.begin(), r.best.hitcost_config.end(),
                        "--zstd-dict " + c.strategy.dictionary_scope() + "=/srv/dicts/" +
                            dictionary_file_name(c.strategy.dictionary_scope())),
              r.best.hitcost_config.end());
  }
  // A candidate PHP writes is pruned only by another PHP writes (with no more memory), never by a
  // dictionary candidate, which beats them all here.
  size_t php_dropped = 0;
  for (const Candidate& x : r.candidates) {
    if (x.php != PhpUse::writes || !x.dropped_after_round) continue;
    ++php_dropped;
    EXPECT_TRUE(std::any_of(r.candidates.begin(), r.candidates.end(), [&](const Candidate& y) {
      return &y != &x && y.php == PhpUse::writes && y.chunk_bytes <= x.chunk_bytes;
    })) << x.name;
  }
  EXPECT_GT(php_dropped, 0u);
  Manifest m;
  const nlohmann::json j = nlohmann::json::parse(recommend_json(r, m));
  EXPECT_EQ(j["corpus"]["training_values"], 120u);
  EXPECT_EQ(j["dictionaries"]["trained"].size(), 5u);

  // --no-dict: every value measured, no dictionary candidate.
  o.dictionaries = false;
  o.progress = nullptr;
  auto plain = run_recommend(corpus, FlagScheme::php_memcached, 1'700'000'000, o);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->values_good, 600u);
  EXPECT_TRUE(plain->training_records.empty());
  EXPECT_EQ(plain->forms, 5u * 9u);
  for (const Candidate& c : plain->candidates) EXPECT_FALSE(c.strategy.dictionary) << c.name;
}

TEST(Recommend, RefusesWhatCannotBeSearched) {
  const std::vector<CorpusRecord> corpus = php_default_corpus();
  RecommendOptions o = quick_options();
  o.search_rounds = 0;
  auto r = run_recommend(corpus, FlagScheme::php_memcached, 0, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
  o = quick_options();
  o.memory_weight = -1;
  r = run_recommend(corpus, FlagScheme::php_memcached, 0, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
}

}  // namespace
}  // namespace hitcost::corpus
