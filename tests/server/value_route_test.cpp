// GET /value/{n} and POST /admin/warm?values=1 in a real hitcost-server started with --corpus:
// a corpus written here from hand-built trees, encoded as PHP's php-memcached writes them, served
// under every strategy from a real memcached and the memory store; every body is checked against
// the rendering of the tree this test built (never against what the server says). Then the
// edges (past the end, bad numbers, no corpus, memory:objects, a cut corpus file), /stats'
// corpus object, the access log and a short hitcost-load sweep over /value/{id}.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"
#include "corpus/value.h"
#include "tests/support/command.h"
#include "tests/support/cpu_flags_check.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"
#include "tests/support/value_corpus.h"

using namespace hitcost;
using namespace hitcost::corpus;
using namespace hitcost::testing;
using namespace hitcost::testing::value_corpus;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A directory of this test process, removed at the end.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("hitcost-value-route-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

class ValueRoute : public ::testing::Test {
 protected:
  void SetUp() override { corpus_path = write_corpus(dir.file("values.hcorpus"), good); }
  TempDir dir;
  std::vector<GoodValue> good = good_values();
  std::string corpus_path;
};

json post_json(HttpConnection& c, const std::string& target, const std::string& body) {
  HttpResponse r = c.post(target, body);
  EXPECT_EQ(r.status, 200) << target << ": " << r.body;
  return json::parse(r.body, nullptr, false);
}

class ValueRouteStores : public ValueRoute, public ::testing::WithParamInterface<std::string> {};

}  // namespace

// Under every strategy, warmed (hit, hit) and cold (miss, hit): every body is the rendering of
// the tree built above; a value JSON cannot hold is answered right and never stored.
TEST_P(ValueRouteStores, EveryStrategyServesEveryValueAsTheRenderingOfItsTree) {
  std::unique_ptr<MemcachedProcess> mc;
  std::string store = GetParam();
  if (store == "memcached") {
    mc = std::make_unique<MemcachedProcess>();
    store = "memcached:" + mc->address();
  }
  ServerProcess server({"--corpus", corpus_path, "--store", store});
  HttpConnection conn(server.port());
  const std::vector<std::string> strategies = {
      "struct:php+fastlz", "struct:json+zlib", "struct:igbinary", "struct:msgpack+zstd", "html", "html+zstd"};
  size_t checked = 0;
  for (const std::string& s : strategies) {
    const bool json_strategy = s.starts_with("struct:json");
    for (const bool warmed : {true, false}) {
      const std::string ns = "t" + std::to_string(checked) + (warmed ? "w" : "c");
      // threshold 0: compressed whenever it saves, so the small values are inflated on hits too
      json cfg = post_json(conn, "/admin/config", json{{"strategy", s}, {"namespace", ns}, {"threshold", 0}}.dump());
      ASSERT_EQ(cfg["strategy"], s);
      if (warmed) {
        json w = post_json(conn, "/admin/warm?values=1&from=0&to=1000", "");
        EXPECT_EQ(w["warmed"], good.size() - (json_strategy ? 1 : 0)) << s << " " << w.dump();
        EXPECT_EQ(w["errors"], 0) << s;
        EXPECT_EQ(w.value("unstorable", 0), json_strategy ? 1 : 0) << s;
      }
      for (size_t n = 0; n < good.size(); ++n) {
        const bool never_stored = json_strategy && n == kNonUtf8;
        const std::string want = rendered(good[n].tree);
        for (int round = 0; round < 2; ++round) {
          HttpResponse r = conn.get("/value/" + std::to_string(n));
          ASSERT_EQ(r.status, 200) << s << " " << good[n].what << ": " << r.body;
          const bool hit = !never_stored && (warmed || round == 1);
          EXPECT_EQ(r.header("x-cache"), hit ? "hit" : "miss") << s << " " << good[n].what << " round " << round;
          EXPECT_EQ(r.header("x-strategy"), s);
          EXPECT_EQ(r.header("x-cache-key"), "hc:" + ns + ":v" + std::to_string(n));
          EXPECT_EQ(r.body, want) << s << " " << good[n].what;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, strategies.size() * 2 * good.size() * 2);

  json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["values"], checked);
  EXPECT_EQ(stats["decode_errors"], 0);
  EXPECT_EQ(stats["store_errors"], 0);
  // struct:json: warmed once, then 2 misses warmed and 2 cold, each failing to encode it
  EXPECT_EQ(stats["value_encode_errors"], 5);

  // ?strategy= overrides the strategy in force for one request, as on /page. The key does not
  // name the strategy (as for pages), so a fresh namespace makes the first request a miss.
  post_json(conn, "/admin/config", R"({"namespace":"override"})");
  HttpResponse first = conn.get("/value/0?strategy=struct:msgpack");
  HttpResponse again = conn.get("/value/0?strategy=struct:msgpack");
  EXPECT_EQ(first.header("x-strategy"), "struct:msgpack");
  EXPECT_EQ(first.header("x-cache"), "miss");
  EXPECT_EQ(again.header("x-cache"), "hit");
  EXPECT_EQ(again.body, rendered(good[0].tree));
}

INSTANTIATE_TEST_SUITE_P(Stores, ValueRouteStores, ::testing::Values("memcached", "memory"));

TEST_F(ValueRoute, StartLineStatsAndAccessLogDescribeTheCorpus) {
  const std::string log = dir.file("access.log");
  ServerProcess server({"--corpus", corpus_path, "--access-log", log});
  EXPECT_NE(server.startup_output().find("corpus " + corpus_path + ": " + std::to_string(good.size()) +
                                         " values (2 left out: parse_error 1, unknown_flags 1)"),
            std::string::npos)
      << server.startup_output();
  HttpConnection conn(server.port());
  json stats = json::parse(conn.get("/stats").body);
  ASSERT_TRUE(stats.contains("corpus")) << stats.dump();
  const json& c = stats["corpus"];
  EXPECT_EQ(c["path"], corpus_path);
  EXPECT_EQ(c["source"], "memcached:127.0.0.1:11211");
  EXPECT_EQ(c["values"], good.size());
  EXPECT_EQ(c["records"], good.size() + 2);
  EXPECT_EQ(c["left_out"], (json{{"parse_error", 1}, {"unknown_flags", 1}}));
  EXPECT_EQ(c["redacted"], false);

  ASSERT_EQ(conn.get("/value/3").status, 200);
  ASSERT_EQ(conn.get("/value/3").status, 200);
  // A line is written once its response is sent: one more request on the same connection (the
  // same io thread) is answered only after the second line is in the file.
  ASSERT_EQ(conn.get("/healthz").status, 200);
  std::ifstream in(log);
  const std::string lines((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(lines.find("\"GET /value/3 HTTP/1.1\" 200 " + std::to_string(rendered(good[3].tree).size())),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find(" miss html "), std::string::npos) << lines;
  EXPECT_NE(lines.find(" hit html "), std::string::npos) << lines;
}

TEST_F(ValueRoute, IdsPastTheCorpusAreMissesOfItsValuesAndNotNumbersAreRefused) {
  ServerProcess server({"--corpus", corpus_path});
  HttpConnection conn(server.port());
  const std::string n = std::to_string(good.size());
  // Past the corpus: value n mod N under a key of its own, a miss the first time, then a hit.
  for (size_t lap = 1; lap <= 2; ++lap) {
    const size_t id = lap * good.size() + 3;
    HttpResponse first = conn.get("/value/" + std::to_string(id));
    HttpResponse again = conn.get("/value/" + std::to_string(id));
    EXPECT_EQ(first.status, 200) << id;
    EXPECT_EQ(first.body, rendered(good[3].tree)) << id;
    EXPECT_EQ(first.header("x-cache"), "miss") << id;
    EXPECT_EQ(again.body, rendered(good[3].tree)) << id;
    EXPECT_EQ(again.header("x-cache"), "hit") << id;
    EXPECT_NE(first.header("x-cache-key").find(":v" + std::to_string(id)), std::string::npos) << id;
  }
  EXPECT_EQ(conn.get("/value/1000000000000001").status, 404);  // past --max-id
  for (const char* bad : {"/value/abc", "/value/-1", "/value/", "/value/1x", "/value/+1"}) {
    HttpResponse r = conn.get(bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_NE(r.body.find("bad value number"), std::string::npos) << bad << ": " << r.body;
  }
  EXPECT_EQ(conn.post("/value/0", "").status, 405);
  // warming clamps to the corpus: at most N values
  json w = post_json(conn, "/admin/warm?values=1&from=2&to=999999", "");
  EXPECT_EQ(w["warmed"], good.size() - 2);
  EXPECT_EQ(conn.post("/admin/warm?values=2", "").status, 400);
}

// A client's writes to values (a replayed trace's): PUT stores value n under the strategy in
// force (the next GET a hit), DELETE removes it (the next GET a miss); one the strategy cannot
// write is 409 and stays a miss; counted in client_writes and client_deletes.
TEST_F(ValueRoute, PutStoresAValueAndDeleteRemovesIt) {
  ServerProcess server({"--corpus", corpus_path});
  HttpConnection conn(server.port());
  auto request = [&](const char* method, const std::string& target) {
    conn.send_raw(std::string(method) + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    return conn.read_response();
  };
  const std::string past = std::to_string(good.size() + 5);  // value 5 under a key of its own
  const HttpResponse put = request("PUT", "/value/" + past);
  EXPECT_EQ(put.status, 200);
  EXPECT_TRUE(put.body.empty());
  HttpResponse hit = conn.get("/value/" + past);
  EXPECT_EQ(hit.header("x-cache"), "hit");
  EXPECT_EQ(hit.body, rendered(good[5].tree));
  EXPECT_EQ(request("DELETE", "/value/" + past).status, 200);
  EXPECT_EQ(request("DELETE", "/value/" + past).status, 200);  // absent already: still removed
  EXPECT_EQ(conn.get("/value/" + past).header("x-cache"), "miss");
  EXPECT_EQ(request("PUT", "/value/abc").status, 400);
  EXPECT_EQ(request("PATCH", "/value/1").status, 405);
  json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["client_writes"], 1);
  EXPECT_EQ(stats["client_deletes"], 2);
  // JSON cannot hold the non-UTF-8 string: under struct:json the write is refused with the reason.
  ASSERT_EQ(conn.post("/admin/config", R"({"strategy":"struct:json"})").status, 200);
  const HttpResponse refused = request("PUT", "/value/" + std::to_string(kNonUtf8));
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("cannot write this value"), std::string::npos) << refused.body;
  EXPECT_EQ(conn.get("/value/" + std::to_string(kNonUtf8)).header("x-cache"), "miss");
  stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["client_writes"], 1);
}

TEST(ValueRouteWithoutCorpus, AnswersThatNoCorpusIsLoaded) {
  ServerProcess server({});
  HttpConnection conn(server.port());
  HttpResponse r = conn.get("/value/0");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "no corpus loaded (start hitcost-server with --corpus PATH)\n");
  HttpResponse w = conn.post("/admin/warm?values=1&from=0&to=10", "");
  EXPECT_EQ(w.status, 400);
  EXPECT_NE(w.body.find("no corpus loaded"), std::string::npos) << w.body;
  EXPECT_FALSE(json::parse(conn.get("/stats").body).contains("corpus"));
}

TEST_F(ValueRoute, ObjectsStoreRefusesValuesWithAReason) {
  ServerProcess server({"--corpus", corpus_path, "--store", "memory:objects"});
  HttpConnection conn(server.port());
  HttpResponse r = conn.get("/value/0");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("memory:objects"), std::string::npos) << r.body;
  EXPECT_EQ(conn.post("/admin/warm?values=1", "").status, 409);
  EXPECT_EQ(json::parse(conn.get("/stats").body)["responses_by_status"]["409"], 2);
}

// An input that cannot be read, like a store that cannot be opened: exit 1 (README, "Exit codes").
TEST_F(ValueRoute, CutCorpusFileStopsTheServerWithExit1NamingTheFile) {
  std::ifstream in(corpus_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.file("cut.hcorpus");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  CommandResult r = run_command({server_binary(), "--port", "0", "--corpus", cut}, {.timeout_ms = 30'000});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(cut), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("listening on"), std::string::npos) << r.out;
}

// A real sweep over /value/{id}: warmed with values=1, every request a hit, no errors.
TEST_F(ValueRoute, SweepOverValuesMeasuresHitsOnly) {
  ServerProcess server({"--corpus", corpus_path});
  const std::string out = dir.file("sweep.json");
  CommandResult r = run_command({load_binary(),
                                 "sweep",
                                 "--url",
                                 "http://127.0.0.1:" + std::to_string(server.port()),
                                 "--path-template",
                                 "/value/{id}",
                                 "--keys",
                                 std::to_string(good.size()),
                                 "--strategies",
                                 "html,struct:php+fastlz",
                                 "-d",
                                 "1s",
                                 "--repeat",
                                 "1",
                                 "--hit-ratio",
                                 "1",
                                 "--latency-rate",
                                 "0",
                                 "--retry-contaminated",
                                 "0",
                                 "--idle",
                                 "0",
                                 "--warmup",
                                 "200ms",
                                 "-c",
                                 "2",
                                 "-q",
                                 "--json",
                                 out},
                                {.timeout_ms = 60'000});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out);
  const json doc = json::parse(in);
  ASSERT_EQ(doc["runs"].size(), 2u) << doc.dump();
  EXPECT_EQ(hitcost::testing::expect_impossible_cpu_figures_flagged(doc, out), 2u);
  for (const json& run : doc["runs"]) {
    EXPECT_EQ(run["path_template"], "/value/{id}");
    EXPECT_GT(run["requests"].get<uint64_t>(), 0u);
    EXPECT_EQ(run["errors"]["total"], 0) << run.dump();
    EXPECT_EQ(run["hit_ratio"], 1.0) << run["strategy"];
  }
}
