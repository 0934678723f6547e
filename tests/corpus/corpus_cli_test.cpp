// hitcost-corpus end to end, on values PHP itself wrote into real memcached processes
// (tests/corpus/data/php_fill.php): php-memcached with its defaults and each serializer it
// offers (serialize + FastLZ, igbinary, JSON, msgpack), pecl memcache with zlib and plain.
//   sample  gets every value with its exact flags and bytes, and never writes to the source;
//   every sampled value decodes to what PHP reads back (compared as PHP's json_encode);
//   compare decodes all of them, its round trips are exact under every strategy, and the
//           value PHP stores as an int is refused and listed, not guessed;
//   redact  keeps every size (compressed ones nearly) and every shape, and none of the text;
//   bad corpus files and bad options are refused with the reason.
// php-cli, php-memcached and php-memcache are test dependencies: missing, the test fails.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codecs/value_codec.h"
#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"
#include "tests/stores/test_util.h"
#include "tests/support/command.h"
#include "tests/support/memcached_process.h"

namespace hitcost::corpus {
namespace {

using hitcost::testing::CommandResult;
using hitcost::testing::corpus_binary;
using hitcost::testing::memcached_raw;
using hitcost::testing::MemcachedProcess;
using hitcost::testing::run_command;
using hitcost::testing::TempDir;
using nlohmann::json;

std::string show(const CommandResult& r) { return "exit " + std::to_string(r.exit_code) + "\n" + r.out + r.err; }

std::string base64_decode(const std::string& in) {
  static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const size_t v = chars.find(c);
    if (v == std::string::npos) continue;
    buf = (buf << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(char((buf >> bits) & 0xff));
    }
  }
  return out;
}

struct Expected {
  std::string scheme, json;  // json empty: the value must be refused (unknown_flags)
};

// Two memcached processes filled by PHP; what PHP reads back from each key.
class PhpFilled : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string list = dir.file("expected.tsv");
    const CommandResult r = run_command({"php", std::string(HITCOST_SOURCE_DIR) + "/tests/corpus/data/php_fill.php",
                                         std::to_string(md.port()), std::to_string(mc.port()), list});
    ASSERT_EQ(r.exit_code, 0) << show(r);
    std::ifstream in(list);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream cols(line);
      std::string scheme, key, expect;
      std::getline(cols, scheme, '\t');
      std::getline(cols, key, '\t');
      std::getline(cols, expect, '\t');
      expected[key] = Expected{scheme, expect == "unknown_flags" ? "" : base64_decode(expect)};
    }
    // 4 serializers x 8 shapes + 2 strings + 1 int; 8 shapes x 2 under pecl memcache.
    ASSERT_EQ(expected.size(), 4u * 8 + 3 + 16) << r.out;
  }
  size_t count_of(const std::string& scheme) const {
    size_t n = 0;
    for (const auto& [key, e] : expected) n += e.scheme == scheme;
    return n;
  }
  CommandResult corpus(std::vector<std::string> args) const {
    args.insert(args.begin(), corpus_binary());
    return run_command(args);
  }
  std::string sample(const MemcachedProcess& from, const std::string& name, const std::string& scheme,
                     std::vector<std::string> extra = {}) const {
    const std::string path = dir.file(name);
    std::vector<std::string> args = {"sample", "--from", "memcached:" + from.address(), "-o", path, "--scheme",
                                     scheme,   "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = corpus(args);
    EXPECT_EQ(r.exit_code, 0) << show(r);
    return path;
  }

  TempDir dir;
  MemcachedProcess md, mc;
  std::map<std::string, Expected> expected;
};

// What PHP would print for the value: json_encode of the tree the record decodes to.
Result<std::string> as_php_json(const CorpusRecord& rec, FlagScheme scheme) {
  std::string scratch;
  auto u = unwrap_value(rec.value, rec.flags, scheme, scratch);
  if (!u) return u.error();
  Value tree;
  if (u->rep == Representation::html) {
    tree = make_string(std::string(u->payload));
  } else {
    auto t = decode_tree(u->serializer, u->payload);
    if (!t) return t.error();
    tree = std::move(*t);
  }
  std::string out;
  if (Status st = encode_json_tree(tree, out); !st) return st.error();
  return out;
}

TEST_F(PhpFilled, SampleGetsEveryValueWithItsExactFlagsAndBytesAndWritesNothing) {
  const std::string before = memcached_raw(md.port(), "stats\r\n", "END\r\n");
  const std::string path = sample(md, "md.hcorpus", "php-memcached");
  auto c = read_corpus(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->manifest.values, count_of("php-memcached"));
  EXPECT_EQ(c->manifest.scheme, "php-memcached");
  size_t checked = 0;
  for (const CorpusRecord& rec : c->records) {
    ASSERT_TRUE(expected.count(rec.key)) << rec.key;
    // The bytes and flags as memcached holds them, read here without hitcost.
    const std::string raw = memcached_raw(md.port(), "get " + rec.key + "\r\n", "END\r\n");
    const std::string head =
        "VALUE " + rec.key + " " + std::to_string(rec.flags) + " " + std::to_string(rec.value.size()) + "\r\n";
    ASSERT_EQ(raw.substr(0, head.size()), head) << rec.key;
    EXPECT_EQ(raw.substr(head.size(), rec.value.size()), rec.value) << rec.key;
    ++checked;
  }
  EXPECT_EQ(checked, count_of("php-memcached"));
  auto stat = [](const std::string& stats, const std::string& name) {
    const size_t at = stats.find("STAT " + name + " ");
    return at == std::string::npos ? std::string("?") : stats.substr(at, stats.find('\r', at) - at);
  };
  const std::string after = memcached_raw(md.port(), "stats\r\n", "END\r\n");
  EXPECT_EQ(stat(before, "cmd_set"), stat(after, "cmd_set"));
  EXPECT_EQ(stat(before, "curr_items"), stat(after, "curr_items"));
}

TEST_F(PhpFilled, EverySampledValueDecodesToWhatPhpReadsBack) {
  size_t checked = 0, refused = 0;
  for (const auto& [scheme_name, from] : {std::pair{"php-memcached", &md}, std::pair{"php-memcache", &mc}}) {
    auto c = read_corpus(sample(*from, std::string(scheme_name) + ".hcorpus", scheme_name));
    ASSERT_TRUE(c.ok()) << c.error().message;
    const FlagScheme scheme = *parse_flag_scheme(scheme_name);
    for (const CorpusRecord& rec : c->records) {
      const Expected& e = expected.at(rec.key);
      auto got = as_php_json(rec, scheme);
      if (e.json.empty()) {
        ASSERT_FALSE(got.ok()) << rec.key;
        EXPECT_EQ(got.error().code, Errc::unknown_flags) << rec.key;
        ++refused;
        continue;
      }
      ASSERT_TRUE(got.ok()) << rec.key << ": " << got.error().message;
      EXPECT_EQ(*got, e.json) << rec.key << " flags " << rec.flags;
      ++checked;
    }
  }
  EXPECT_EQ(checked, expected.size() - 1);
  EXPECT_EQ(refused, 1u);
}

TEST_F(PhpFilled, CompareRoundTripsEveryValueUnderEveryStrategyAndListsTheRefusedOne) {
  const std::string path = sample(md, "md.hcorpus", "php-memcached");
  const std::string out = dir.file("cmp.json"), csv = dir.file("cmp.csv"), html = dir.file("cmp.html");
  const std::vector<std::string> strategies = {
      "php-default", "struct:igbinary+zstd",        "struct:json+zlib", "struct:msgpack", "html",
      "html+zstd",   "struct:php+zlib@php-memcache"};
  std::string list;
  for (const auto& s : strategies) list += (list.empty() ? "" : ",") + s;
  const CommandResult r = corpus({"compare", path, "--strategies", list, "--rounds", "2", "--min-time-us", "1",
                                  "--json", out, "--csv", csv, "--html", html, "--slabs-from",
                                  "memcached:" + md.address()});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::ifstream in(out);
  const json j = json::parse(in);
  ASSERT_EQ(j["rows"].size(), strategies.size() + 1);
  // The memory model took the settings of the memcached named, read from it.
  EXPECT_EQ(j["measurement"]["slab_settings"], "stats settings of " + md.address());
  for (const json& row : j["rows"])
    EXPECT_GT(row["cache_bytes"].get<uint64_t>(), row["stored_bytes"].get<uint64_t>()) << row["label"];
  const uint64_t good = count_of("php-memcached") - 1;  // all but the int
  size_t rows = 0;
  for (const json& row : j["rows"]) {
    const std::string label = row["label"];
    EXPECT_EQ(row["values_ok"].get<uint64_t>(), good) << label;
    for (const json& f : row["failures"]) EXPECT_NE(f["kind"], "round_trip_mismatch") << label << f.dump();
    if (row["baseline"].get<bool>()) {
      ASSERT_EQ(row["failures"].size(), 1u) << row["failures"].dump();
      EXPECT_EQ(row["failures"][0]["kind"], "unknown_flags");
      EXPECT_EQ(row["failures"][0]["listed"][0]["key"], "md:int");
    } else {
      EXPECT_EQ(row["values_failed"].get<uint64_t>(), 0u) << label;
    }
    ++rows;
  }
  EXPECT_EQ(rows, strategies.size() + 1);
  for (const auto& s : strategies) EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  std::ifstream c(csv);
  std::string line;
  size_t lines = 0;
  while (std::getline(c, line)) ++lines;
  EXPECT_EQ(lines, strategies.size() + 2);  // header + as stored + strategies
  EXPECT_GT(std::filesystem::file_size(html), 1000u);
}

TEST_F(PhpFilled, RecommendAnswersOnValuesPhpWroteWithItsProgressAndReports) {
  const std::string path = sample(md, "md.hcorpus", "php-memcached");
  const std::string out = dir.file("rec.json"), html = dir.file("rec.html");
  const CommandResult r = corpus({"recommend", path, "--search-rounds", "2", "--rounds", "2", "--min-time-us", "1",
                                  "--json", out, "--html", html, "--slabs-from", "memcached:" + md.address()});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  // Progress on stderr: each search round, then the confirmation.
  EXPECT_NE(r.err.find("recommend: search round 1/2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recommend: search round 2/2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recommend: confirming"), std::string::npos) << r.err;
  std::ifstream in(out);
  const json j = json::parse(in);
  const std::string sentence = j["recommendation"]["sentence"];
  EXPECT_EQ(r.out.rfind(sentence, 0), 0u) << r.out;  // the answer is the first line
  EXPECT_EQ(j["memory"]["model"], "stats settings of " + md.address());
  const uint64_t good = count_of("php-memcached") - 1;  // all but the int
  size_t candidates = 0;
  for (const json& c : j["candidates"]) {
    EXPECT_EQ(c["values_ok"].get<uint64_t>() + c["values_failed"].get<uint64_t>(), good) << c["name"];
    ++candidates;
  }
  EXPECT_GT(candidates, 45u);  // every form, split by threshold, and the plain ones
  EXPECT_TRUE(j["codec_failures"].empty()) << j["codec_failures"].dump();
  EXPECT_GT(std::filesystem::file_size(html), 1000u);
  // Refused before anything is measured.
  const CommandResult bad = corpus({"recommend", path, "--memory-weight", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << show(bad);
  const CommandResult none = corpus({"recommend", path, "--search-rounds", "0"});
  EXPECT_EQ(none.exit_code, 2) << show(none);
}

TEST_F(PhpFilled, RedactedCorpusKeepsSizesAndShapesButNoneOfTheText) {
  const std::string path = sample(md, "md.hcorpus", "php-memcached");
  const std::string red_path = dir.file("red.hcorpus");
  const CommandResult r = corpus({"redact", path, "-o", red_path});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  auto orig = read_corpus(path);
  auto red = read_corpus(red_path);
  ASSERT_TRUE(orig.ok() && red.ok());
  EXPECT_TRUE(red->manifest.redacted);
  EXPECT_NE(red->manifest.redact_note.find("1 values left out"), std::string::npos) << red->manifest.redact_note;
  // Where the values came from is the user's network: no host or port of it is kept, the
  // nodes are still counted (records name them by index), and the manifest says so.
  EXPECT_EQ(orig->manifest.source, "memcached:" + md.address());
  EXPECT_EQ(red->manifest.source, "memcached (1 node, addresses redacted)");
  EXPECT_EQ(red->manifest.nodes, (std::vector<std::string>{"node 1 (address redacted)"}));
  EXPECT_EQ(manifest_to_json(red->manifest).find(std::to_string(md.port())), std::string::npos)
      << manifest_to_json(red->manifest);
  EXPECT_NE(red->manifest.redact_note.find("the source's addresses removed"), std::string::npos);
  ASSERT_EQ(red->records.size(), orig->records.size() - 1);  // the int cannot be decoded, so it is left out
  const FlagScheme scheme = FlagScheme::php_memcached;
  size_t i = 0, exact_sizes = 0, compressed = 0;
  for (const CorpusRecord& o : orig->records) {
    if (o.key == "md:int") continue;
    const CorpusRecord& x = red->records.at(i++);
    EXPECT_EQ(x.key.rfind("r:", 0), 0u) << x.key;
    EXPECT_EQ(x.key.size(), 18u);
    EXPECT_EQ(x.flags, o.flags) << o.key;
    std::string s1, s2;
    auto u1 = unwrap_value(o.value, o.flags, scheme, s1);
    auto u2 = unwrap_value(x.value, x.flags, scheme, s2);
    ASSERT_TRUE(u1.ok() && u2.ok()) << o.key;
    EXPECT_EQ(std::string(u2->payload).find("CONFIDENTIAL"), std::string::npos) << o.key;
    // The serialized bytes keep their length exactly, as hitcost writes the original tree (PHP's
    // JSON "-0" is read as PHP reads it, the int 0, and written back as "0").
    size_t rewritten = u1->payload.size();
    if (u1->rep == Representation::structured) {
      std::string again;
      ASSERT_TRUE(encode_tree(u1->serializer, *decode_tree(u1->serializer, u1->payload), again).ok()) << o.key;
      rewritten = again.size();
    }
    EXPECT_EQ(u2->payload.size(), rewritten) << o.key;
    if (u1->compressor == CompressorId::none) {
      EXPECT_EQ(x.value.size(), o.value.size() - u1->payload.size() + rewritten) << o.key;
      ++exact_sizes;
    } else {
      // Same compressor; what the new bytes compress to is near what the old did.
      EXPECT_NEAR(double(x.value.size()), double(o.value.size()), 0.5 * double(o.value.size()) + 64) << o.key;
      ++compressed;
    }
    if (u1->rep == Representation::structured) {
      auto t1 = decode_tree(u1->serializer, u1->payload);
      auto t2 = decode_tree(u2->serializer, u2->payload);
      ASSERT_TRUE(t1.ok() && t2.ok()) << o.key;
      const TreeStats a = tree_stats(*t1), b = tree_stats(*t2);
      EXPECT_EQ(a.nodes, b.nodes) << o.key;
      EXPECT_EQ(a.string_bytes, b.string_bytes) << o.key;
      EXPECT_EQ(a.max_depth, b.max_depth) << o.key;
    }
  }
  EXPECT_EQ(i, red->records.size());
  EXPECT_GT(exact_sizes, 10u);
  EXPECT_GT(compressed, 3u);
  // The redacted corpus is a corpus like any other: compare reads all of it.
  const CommandResult cmp = corpus({"compare", red_path, "--strategies", "struct:igbinary", "--rounds", "2",
                                    "--min-time-us", "1", "--json", dir.file("red.json")});
  ASSERT_EQ(cmp.exit_code, 0) << show(cmp);
  std::ifstream in(dir.file("red.json"));
  const json j = json::parse(in);
  EXPECT_EQ(j["rows"][1]["values_ok"].get<size_t>(), red->records.size());
}

TEST_F(PhpFilled, PeclMemcacheValuesSampledRedactedUnderTheirOwnScheme) {
  const std::string path = sample(mc, "mc.hcorpus", "php-memcache", {"--redact"});
  auto c = read_corpus(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->manifest.redacted);
  EXPECT_EQ(c->manifest.source, "memcached (1 node, addresses redacted)");
  EXPECT_EQ(manifest_to_json(c->manifest).find(std::to_string(mc.port())), std::string::npos)
      << manifest_to_json(c->manifest);
  EXPECT_EQ(c->records.size(), count_of("php-memcache"));
  size_t zlib = 0;
  for (const CorpusRecord& rec : c->records) {
    EXPECT_EQ(rec.key.rfind("r:", 0), 0u);
    zlib += (rec.flags & 0x2) != 0;
    EXPECT_EQ(rec.value.find("CONFIDENTIAL"), std::string::npos);
  }
  EXPECT_GE(zlib, 2u);  // nested and long at least: pecl memcache's zlib, no length prefix
  const CommandResult cmp =
      corpus({"compare", path, "--strategies", "php-memcache-default,struct:igbinary+zstd@php-memcached", "--rounds",
              "2", "--min-time-us", "1"});
  ASSERT_EQ(cmp.exit_code, 0) << show(cmp);
  EXPECT_NE(cmp.out.find("php-memcache-default"), std::string::npos) << cmp.out;
}

TEST(CorpusCli, BadCorpusFilesAndOptionsAreRefusedWithTheReason) {
  TempDir dir;
  // A good corpus of one value, then damaged copies.
  const std::string good = dir.file("good.hcorpus");
  {
    auto w = CorpusWriter::create(good);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(CorpusRecord{"k", 0, 0, 0, "<p>x</p>"}).ok());
    Manifest m;
    m.nodes = {"127.0.0.1:1"};
    ASSERT_TRUE(w->finish(m).ok());
  }
  std::ifstream in(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.file("cut.hcorpus"), junk = dir.file("junk.hcorpus");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  std::ofstream(junk, std::ios::binary) << "hello, not a corpus";
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"compare", cut}, 1, "truncated"},
      {{"compare", junk}, 1, "not a hitcost corpus"},
      {{"compare", dir.file("missing.hcorpus")}, 1, "missing.hcorpus"},
      {{"show", cut}, 1, "truncated"},
      {{"redact", cut, "-o", dir.file("r.hcorpus")}, 1, "truncated"},
      {{"compare", good, "--strategies", "struct:nope"}, 2, "nope"},
      {{"compare", good, "--rounds", "0"}, 2, "round"},
      {{"compare", good, "--weight", "often"}, 2, "--weight"},
      {{"compare", good, "--slabs-from", "127.0.0.1:11211"},
       2,
       "--slabs-from: '127.0.0.1:11211': want memcached:HOST:PORT, e.g. memcached:127.0.0.1:11211"},
      {{"compare", good, "--slabs-from", "memcached:127.0.0.1:70000"}, 2, "--slabs-from: "},
      // Nothing answers there: refused before any round is measured.
      {{"compare", good, "--slabs-from", "memcached:127.0.0.1:1", "--json", dir.file("c.json")}, 1, "127.0.0.1:1"},
      {{"sample", "--from", "memcached:127.0.0.1:1", "-o", dir.file("s.hcorpus"), "--weight", "often"}, 2, "often"},
      // A bare HOST:PORT was taken as memcached's before: the prefix is asked for, with the form.
      {{"sample", "--from", "127.0.0.1:11211", "-o", dir.file("s.hcorpus")},
       2,
       "--from '127.0.0.1:11211': want memcached:HOST:PORT[,HOST:PORT...], e.g. --from memcached:127.0.0.1:11211"},
      {{"sample", "--from", "memcached:127.0.0.1:70000", "-o", dir.file("s.hcorpus")}, 2, "port 1-65535"},
      // Outputs are checked before anything is read or sampled (4 after the work, before).
      {{"sample", "--from", "memcached:127.0.0.1:1", "-o", dir.file("none/s.hcorpus")},
       2,
       "-o " + dir.file("none/s.hcorpus")},
      {{"compare", good, "--csv", dir.file("none/c.csv")}, 2, "--csv " + dir.file("none/c.csv") + ": directory"},
      {{"redact", good, "-o", dir.file("none/r.hcorpus")}, 2, "-o " + dir.file("none/r.hcorpus")},
      {{"redact", good, "-o", good}, 2, "is the corpus to redact"},
      {{"sample", "--from", "memcached:127.0.0.1:1", "-o", dir.file("s.hcorpus"), "-q"}, 1, "127.0.0.1:1"},
      {{"frobnicate"}, 2, ""},
  };
  size_t checked = 0;
  for (const Case& c : cases) {
    std::vector<std::string> argv = c.args;
    argv.insert(argv.begin(), corpus_binary());
    const CommandResult r = run_command(argv);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args[0] << " " << c.args[1] << "\n" << show(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << show(r);
    ++checked;
  }
  EXPECT_EQ(checked, cases.size());
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.hcorpus")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("c.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.hcorpus")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("none")));
  // The good one still reads (redact did not write over it): show names its stored forms.
  const CommandResult ok = run_command({corpus_binary(), "show", good});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
  EXPECT_NE(ok.out.find("string"), std::string::npos) << ok.out;
}

// The issue this guards: show printed the manifest as one line of raw JSON. Now one field a
// line, sizes in units, the time in UTC.
TEST(CorpusCli, ShowPrintsTheManifestAFieldALine) {
  TempDir dir;
  const std::string path = dir.file("one.hcorpus");
  {
    auto w = CorpusWriter::create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(CorpusRecord{"k", 0, 0, 0, std::string(3000, 'x')}).ok());
    Manifest m;
    m.source = "memcached:127.0.0.1:1";
    m.nodes = {"127.0.0.1:1"};
    m.sampled_at_unix_s = 1'700'000'000;
    m.byte_budget = 256ull << 20;
    m.requested_count = 1000;
    m.notes = {"fewer values than requested: only 1 could be fetched"};
    ASSERT_TRUE(w->finish(m).ok());
  }
  const CommandResult r = run_command({corpus_binary(), "show", path});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out.find("{\""), std::string::npos) << "no raw JSON:\n" << r.out;
  const std::vector<std::string> lines = {
      "corpus " + path,
      "  source             memcached:127.0.0.1:1",
      "  nodes              127.0.0.1:1",
      "  sampled at         2023-11-14 22:13:20 UTC",
      "  asked for          1000 values, at most 256.0 MiB",
      "  values             1, 2.9 KiB (values only)",
      "  redacted           no",
      "  notes              fewer values than requested: only 1 could be fetched",
  };
  size_t checked = 0;
  for (const std::string& line : lines) {
    EXPECT_NE(r.out.find(line + "\n"), std::string::npos) << line << "\n" << r.out;
    ++checked;
  }
  EXPECT_EQ(checked, lines.size());
  EXPECT_NE(r.out.find("2.9 KiB\n", r.out.find("stored as (flags)")), std::string::npos) << r.out;
}

// Ctrl-C during a long sample or compare: exit 130 and no half-written file left behind.
TEST(CorpusCli, InterruptedCompareExits130AndLeavesNoPartialOutput) {
  TempDir dir;
  const std::string path = dir.file("one.hcorpus");
  {
    auto w = CorpusWriter::create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(CorpusRecord{"k", 0, 0, 0, "<p>x</p>"}).ok());
    ASSERT_TRUE(w->finish(Manifest{}).ok());
  }
  hitcost::testing::CommandOptions o;
  o.signal = SIGINT;
  o.signal_after_ms = 700;
  const CommandResult r = run_command(
      {corpus_binary(), "compare", path, "--rounds", "5", "--min-time-us", "50000", "--json", dir.file("c.json")}, o);
  EXPECT_EQ(r.exit_code, 130) << show(r);
  EXPECT_FALSE(std::filesystem::exists(dir.file("c.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("c.json.tmp")));
}

}  // namespace
}  // namespace hitcost::corpus
