// A hit is what it says it is (issue 30): keys do not name the strategy, so a namespace warmed
// under one strategy and asked under another used to be served from the first strategy's values
// while X-Strategy named the second — a hitcost-load run "measured" struct:json+zlib at the cost
// of an html hit, with no error. Now the server holds each value's form (its flags) against the
// strategy in force: a mismatch is answered from the value as stored, X-Strategy names that form,
// X-Strategy-Asked the strategy asked, /stats counts it, and hitcost-load's X-Strategy check
// turns it into validation errors (exit 3) with a sample that says what to do.
// Real memcached, real hitcost-server, real hitcost-load runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"
#include "corpus/value.h"
#include "tests/support/command.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kMismatchDetail =
    "the server decoded a value stored as html, not struct:json+zlib (X-Strategy): the namespace holds values of "
    "another strategy; warm under this strategy or give it a namespace of its own";

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("hitcost-hit-form-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

json post_json(int port, const std::string& target, const std::string& body) {
  HttpResponse r = http_post(port, target, body);
  EXPECT_EQ(r.status, 200) << target << ": " << r.body;
  return json::parse(r.body, nullptr, false);
}

uint64_t mismatches(int port) { return json::parse(http_get(port, "/stats").body)["strategy_mismatches"]; }

// The sample of /metrics named `name` (no labels), or -1.
double metric(int port, const std::string& name) {
  const std::string text = http_get(port, "/metrics").body;
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

// A short plain hitcost-load run; its exit code and run JSON.
struct LoadRun {
  CommandResult result;
  json run;
};
LoadRun load_run(int port, const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> argv = {load_binary(), "--url",  "http://127.0.0.1:" + std::to_string(port),
                                   "-d",          "1s",     "--warmup",
                                   "200ms",       "--idle", "0",
                                   "-c",          "2",      "-q",
                                   "--json",      out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  LoadRun r;
  r.result = run_command(argv, {.timeout_ms = 60'000});
  std::ifstream in(out);
  r.run = json::parse(in, nullptr, false);
  return r;
}

std::string first_validation_error(const json& run) {
  for (const json& e : run.value("error_samples", json::array()))
    if (e["kind"] == "validation") return e["first"];
  return "";
}

}  // namespace

// The exact scenario of the issue: warmed as html, then `hitcost-load --strategy struct:json+zlib`.
TEST(HitForm, PagesWarmedAsHtmlAreNotAStructJsonZlibMeasurement) {
  TempDir dir;
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--strategy", "html"});
  const json warmed = post_json(server.port(), "/admin/warm?from=0&to=100", "");
  ASSERT_EQ(warmed["warmed"], 100) << warmed.dump();

  // One request by hand: what the headers say.
  HttpResponse asked = http_get(server.port(), "/page/7?strategy=struct:json%2Bzlib");
  HttpResponse plain = http_get(server.port(), "/page/7");
  ASSERT_EQ(asked.status, 200);
  EXPECT_EQ(asked.header("x-cache"), "hit");
  EXPECT_EQ(asked.header("x-strategy"), "html");
  EXPECT_EQ(asked.header("x-strategy-asked"), "struct:json+zlib");
  EXPECT_EQ(asked.header("x-stored-as"), "html");
  EXPECT_EQ(asked.body, plain.body);  // the page decoded from the value as stored, never a wrong one
  EXPECT_EQ(plain.header("x-strategy"), "html");
  EXPECT_EQ(plain.header("x-strategy-asked"), "");
  EXPECT_EQ(plain.header("x-stored-as"), "html");
  ASSERT_EQ(mismatches(server.port()), 1u);

  LoadRun r = load_run(server.port(), dir.file("run.json"), {"--keys", "100", "--strategy", "struct:json+zlib"});
  EXPECT_EQ(r.result.exit_code, 3) << r.result.out << r.result.err;
  ASSERT_TRUE(r.run.is_object()) << r.result.err;
  const uint64_t requests = r.run["requests"];
  EXPECT_GT(requests, 0u);
  EXPECT_EQ(r.run["errors"]["validation"], requests) << "every answer was an html hit";
  EXPECT_EQ(first_validation_error(r.run), kMismatchDetail) << r.run["error_samples"].dump();
  EXPECT_NE(r.result.out.find(kMismatchDetail), std::string::npos) << r.result.out << r.result.err;
  // The server counted every one (the load's warmup and window, and the request above).
  EXPECT_GT(mismatches(server.port()), requests);
  EXPECT_EQ(metric(server.port(), "hitcost_strategy_mismatches_total"), double(mismatches(server.port())));

  // Warmed under the strategy asked (its own namespace), the same run measures it: no errors.
  post_json(server.port(), "/admin/config", R"({"strategy":"struct:json+zlib","namespace":"jz"})");
  post_json(server.port(), "/admin/warm?from=0&to=100", "");
  const uint64_t before = mismatches(server.port());
  LoadRun ok = load_run(server.port(), dir.file("ok.json"), {"--keys", "100", "--strategy", "struct:json+zlib"});
  EXPECT_EQ(ok.result.exit_code, 0) << ok.result.out << ok.result.err;
  EXPECT_EQ(ok.run["errors"]["total"], 0) << ok.run["error_samples"].dump();
  EXPECT_EQ(mismatches(server.port()), before);
}

// The same for a user's own values: /value/{n} with --corpus, warmed as html.
TEST(HitForm, ValuesWarmedAsHtmlAreNotAStructJsonZlibMeasurement) {
  TempDir dir;
  const std::string corpus_path = dir.file("values.hcorpus");
  {
    auto w = corpus::CorpusWriter::create(corpus_path);
    ASSERT_TRUE(w.ok());
    const Strategy php = *parse_strategy("php-default", FlagScheme::php_memcached);
    for (int i = 0; i < 20; ++i) {
      corpus::Fields fields;
      fields.emplace_back(corpus::make_key("id"), corpus::make_int(i));
      fields.emplace_back(corpus::make_key("name"), corpus::make_string("value " + std::to_string(i) + " <b>"));
      const corpus::Value tree = corpus::make_map(std::move(fields));
      std::string plain;
      ASSERT_TRUE(corpus::encode_tree(php.serializer, tree, plain).ok());
      EncodedValue ev = wrap_payload(php, std::move(plain));
      ASSERT_TRUE(w->add(corpus::CorpusRecord{"app:" + std::to_string(i), ev.flags, 0, 0, ev.bytes}).ok());
    }
    corpus::Manifest m;
    m.source = "memcached:127.0.0.1:11211";
    m.nodes = {"127.0.0.1:11211"};
    ASSERT_TRUE(w->finish(m).ok());
  }
  MemcachedProcess mc;
  ServerProcess server({"--corpus", corpus_path, "--store", "memcached:" + mc.address(), "--strategy", "html"});
  const json warmed = post_json(server.port(), "/admin/warm?values=1", "");
  ASSERT_EQ(warmed["warmed"], 20) << warmed.dump();

  HttpResponse asked = http_get(server.port(), "/value/3?strategy=struct:json%2Bzlib");
  ASSERT_EQ(asked.status, 200);
  EXPECT_EQ(asked.header("x-cache"), "hit");
  EXPECT_EQ(asked.header("x-strategy"), "html");
  EXPECT_EQ(asked.header("x-strategy-asked"), "struct:json+zlib");
  EXPECT_EQ(asked.body, http_get(server.port(), "/value/3").body);
  ASSERT_EQ(mismatches(server.port()), 1u);

  LoadRun r = load_run(server.port(), dir.file("run.json"),
                       {"--keys", "20", "--path-template", "/value/{id}", "--strategy", "struct:json+zlib"});
  EXPECT_EQ(r.result.exit_code, 3) << r.result.out << r.result.err;
  ASSERT_TRUE(r.run.is_object()) << r.result.err;
  const uint64_t requests = r.run["requests"];
  EXPECT_GT(requests, 0u);
  EXPECT_EQ(r.run["errors"]["validation"], requests);
  EXPECT_EQ(first_validation_error(r.run), kMismatchDetail) << r.run["error_samples"].dump();
  EXPECT_GT(mismatches(server.port()), requests);
}

// A struct:json+zlib page under the compression threshold is stored plain (flags of struct:json):
// still struct:json+zlib's own value, not a mismatch. X-Stored-As tells the two sizes apart.
TEST(HitForm, ValueStoredPlainUnderTheThresholdIsTheStrategysOwn) {
  TempDir dir;
  ServerProcess server({"--store", "memory", "--strategy", "struct:json+zlib"});
  post_json(server.port(), "/admin/warm?from=0&to=50&rows=1", "");   // ~0.4 KB of JSON: under 2000 B
  post_json(server.port(), "/admin/warm?from=0&to=50&rows=50", "");  // ~13 KB: compressed
  size_t checked = 0;
  for (const auto& [rows, stored] : {std::pair<std::string, std::string>{"1", "struct:json"},
                                     std::pair<std::string, std::string>{"50", "struct:json+zlib"}}) {
    HttpResponse r = http_get(server.port(), "/page/4?rows=" + rows);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache"), "hit") << rows;
    EXPECT_EQ(r.header("x-strategy"), "struct:json+zlib") << rows;
    EXPECT_EQ(r.header("x-stored-as"), stored) << rows;
    EXPECT_EQ(r.header("x-strategy-asked"), "") << rows;
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
  LoadRun r =
      load_run(server.port(), dir.file("run.json"), {"--keys", "50", "--rows", "1", "--strategy", "struct:json+zlib"});
  EXPECT_EQ(r.result.exit_code, 0) << r.result.out << r.result.err;
  EXPECT_GT(r.run["requests"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.run["errors"]["total"], 0) << r.run["error_samples"].dump();
  EXPECT_EQ(mismatches(server.port()), 0u);
  EXPECT_EQ(metric(server.port(), "hitcost_strategy_mismatches_total"), 0.0);
}

// A preset asked by name is answered by that name (X-Strategy: php-default, not its expansion
// struct:php+fastlz), so hitcost-load --strategy php-default, which checks X-Strategy against
// what it asked, measures it; a mismatch names the preset as asked.
TEST(HitForm, PresetAskedByNameIsAnsweredByThatName) {
  TempDir dir;
  ServerProcess server({"--store", "memory"});
  post_json(server.port(), "/admin/warm?from=100&to=101", "");  // page 100: html
  HttpResponse first = http_get(server.port(), "/page/1?strategy=php-default");
  HttpResponse again = http_get(server.port(), "/page/1?strategy=php-default");
  EXPECT_EQ(first.header("x-cache"), "miss");
  EXPECT_EQ(first.header("x-strategy"), "php-default");
  EXPECT_EQ(again.header("x-cache"), "hit");
  EXPECT_EQ(again.header("x-strategy"), "php-default");
  EXPECT_EQ(again.header("x-stored-as"), "struct:php+fastlz");
  HttpResponse other = http_get(server.port(), "/page/100?strategy=php-default");
  EXPECT_EQ(other.header("x-strategy"), "html");
  EXPECT_EQ(other.header("x-strategy-asked"), "php-default");
  ASSERT_EQ(mismatches(server.port()), 1u);
  LoadRun r = load_run(server.port(), dir.file("run.json"), {"--keys", "20", "--strategy", "php-default"});
  EXPECT_EQ(r.result.exit_code, 0) << r.result.out << r.result.err;
  EXPECT_GT(r.run["requests"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.run["errors"]["total"], 0) << r.run["error_samples"].dump();
  EXPECT_EQ(mismatches(server.port()), 1u);
}
