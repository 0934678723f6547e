// Every route over real loopback HTTP: health, stats, metrics, admin, keep-alive,
// pipelining, strategy switch at run time, corrupt values, graceful SIGTERM.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <csignal>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "server/metrics.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;

namespace {

std::string expected_html(int64_t id, uint32_t rows) {
  PageSpec spec;
  spec.id = id;
  spec.rows = rows;
  return render_page(generate_page(spec));
}

// Flags memcached holds for `key` (from a raw "get").
uint32_t stored_flags(int port, const std::string& key) {
  std::string raw = memcached_raw(port, "get " + key + "\r\n", "END\r\n");
  std::istringstream in(raw);
  std::string value_word, k;
  uint32_t flags = 0;
  in >> value_word >> k >> flags;
  EXPECT_EQ(value_word, "VALUE") << raw.substr(0, 60);
  return flags;
}

}  // namespace

TEST(Routes, HealthzAnswersOk) {
  ServerProcess server({});
  HttpResponse r = http_get(server.port(), "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_EQ(r.header("server"), "hitcost");
  EXPECT_FALSE(r.header("date").empty());
}

// A replayed trace's writes and invalidations (PUT and DELETE /page/{id}) on a real memcached:
// a PUT stores the page (the next GET hits), a DELETE removes it (the next GET misses); each is
// counted, and one the store fails is a 503 with the reason, the server still serving.
TEST(Routes, PutStoresAPageAndDeleteRemovesIt) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--rows", "3"});
  HttpConnection conn(server.port());
  auto request = [&](const char* method, const std::string& target) {
    conn.send_raw(std::string(method) + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    return conn.read_response();
  };
  EXPECT_EQ(request("PUT", "/page/7?rows=4").status, 200);
  EXPECT_EQ(conn.get("/page/7?rows=4").header("x-cache"), "hit");
  EXPECT_EQ(conn.get("/page/8").header("x-cache"), "miss");
  EXPECT_EQ(request("DELETE", "/page/8").status, 200);
  EXPECT_EQ(request("DELETE", "/page/8").status, 200);  // absent already: still removed
  EXPECT_EQ(conn.get("/page/8").header("x-cache"), "miss");
  EXPECT_EQ(request("PUT", "/page/x").status, 400);
  auto stats = nlohmann::json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["client_writes"], 1);
  EXPECT_EQ(stats["client_deletes"], 2);
  mc.kill_now();
  const HttpResponse failed = request("PUT", "/page/9");
  EXPECT_EQ(failed.status, 503);
  EXPECT_NE(failed.body.find("store write failed"), std::string::npos) << failed.body;
  EXPECT_EQ(request("DELETE", "/page/9").status, 503);
  EXPECT_EQ(conn.get("/page/9").status, 200);  // served from the origin
}

TEST(Routes, KeepAliveServesManyRequestsOnOneConnection) {
  ServerProcess server({"--rows", "2"});
  HttpConnection conn(server.port());
  for (int i = 0; i < 50; ++i) ASSERT_EQ(conn.get("/page/" + std::to_string(i % 5)).status, 200);
  json stats = json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["http"]["connections_opened"], 1);
  EXPECT_EQ(stats["misses"], 5);
  EXPECT_EQ(stats["hits"], 45);
}

TEST(Routes, PipelinedRequestsAreAnsweredInOrder) {
  ServerProcess server({"--rows", "2"});
  HttpConnection conn(server.port());
  std::string batch;
  for (int id : {3, 1, 2, 3}) batch += "GET /page/" + std::to_string(id) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  batch += "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  conn.send_raw(batch);  // one write: all five arrive together
  for (int id : {3, 1, 2, 3}) {
    HttpResponse r = conn.read_response();
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.header("x-cache-key"), "hc:v1:p" + std::to_string(id) + ":r2");
    EXPECT_EQ(r.body, expected_html(id, 2));
  }
  EXPECT_EQ(conn.read_response().body, "ok\n");
}

// The sampler's clean tiles (server/cpu_sampler.h): whole runs of 32 requests, a quarter of
// them reserved (no sample taken), timed by the thread's CPU clock.
TEST(Routes, StatsHasCleanTilesOfThirtyTwoRequests) {
  ServerProcess server({"--rows", "2", "--threads", "1"});
  HttpConnection conn(server.port());
  constexpr int kRequests = 3200;
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(conn.get("/page/" + std::to_string(i % 5)).status, 200);
  const json stats = json::parse(conn.get("/stats").body);
  const json t = stats.at("cpu_sampled").at("clean_tiles");
  const uint64_t tiles = t.at("tiles").get<uint64_t>(), requests = t.at("requests").get<uint64_t>();
  // 100 tiles of 32 requests, each reserved with probability 1/4: 25 expected, fewer than 5
  // or more than 50 about once in 10^7 runs.
  EXPECT_GE(tiles, 5u);
  EXPECT_LE(tiles, 50u);
  EXPECT_EQ(requests, 32 * tiles);
  const double us_per_request = t.at("cpu_ns").get<double>() / double(requests) / 1000.0;
  EXPECT_GT(us_per_request, 1.0);     // a request is parsed, looked up and answered: µs, not ns
  EXPECT_LT(us_per_request, 5000.0);  // and nothing like a tick or a wait is in it

  // /metrics carries them, and the per-outcome families name the three outcomes only: the
  // clean_tiles object beside them in cpu_sampled is not an outcome.
  const std::string served = conn.get("/metrics").body;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(served, match, std::regex(R"(\nhitcost_clean_tiles_total (\d+)\n)"))) << served;
  const uint64_t served_tiles = std::stoull(match[1]);
  EXPECT_GE(served_tiles, tiles);  // a counter: the two requests since may end a tile
  EXPECT_LE(served_tiles, tiles + 1);
  ASSERT_TRUE(std::regex_search(served, match, std::regex(R"(\nhitcost_clean_tile_requests_total (\d+)\n)"))) << served;
  EXPECT_EQ(std::stoull(match[1]), 32 * served_tiles);
  size_t outcomes = 0;
  for (size_t at = served.find("hitcost_sampled_requests_total{"); at != std::string::npos;
       at = served.find("hitcost_sampled_requests_total{", at + 1))
    ++outcomes;
  EXPECT_EQ(outcomes, 3u) << served;
  EXPECT_EQ(served.find("outcome=\"clean_tiles\""), std::string::npos);
}

TEST(Routes, StatsCountAndResetZeroesThem) {
  ServerProcess server({"--rows", "2"});
  HttpConnection conn(server.port());
  conn.get("/page/1");
  conn.get("/page/1");
  json s = json::parse(conn.get("/stats").body);
  EXPECT_EQ(s["pages"], 2);
  EXPECT_EQ(s["hits"], 1);
  EXPECT_GE(s["phases_ns"]["fetch"]["count"].get<int>(), 2);
  EXPECT_GE(s["phases_ns"]["render"]["count"].get<int>(), 2);
  EXPECT_GT(s["cpu"]["user_s"].get<double>() + s["cpu"]["system_s"].get<double>(), 0.0);
  EXPECT_EQ(s["config"]["strategy"], "html");
  json reset = json::parse(conn.post("/admin/reset", "").body);
  EXPECT_EQ(reset["reset"], true);
  json after = json::parse(conn.get("/stats").body);
  EXPECT_EQ(after["pages"], 0);
  EXPECT_EQ(after["hits"], 0);
  EXPECT_EQ(after["requests"], 1);  // the /stats request itself, counted before it answers
}

TEST(Routes, MetricsIsValidPrometheusTextAndMatchesStats) {
  ServerProcess server({"--rows", "2"});
  HttpConnection conn(server.port());
  conn.get("/page/1");
  conn.get("/page/1");
  HttpResponse m = conn.get("/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_NE(m.header("content-type").find("text/plain"), std::string::npos);
  // Text exposition format 0.0.4: comments, or `name{labels} value`.
  std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)$)");
  std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
  std::istringstream in(m.body);
  std::string line;
  int samples = 0;
  while (std::getline(in, line)) {
    ASSERT_TRUE(std::regex_match(line, sample) || std::regex_match(line, comment)) << "bad line: " << line;
    if (line[0] != '#') ++samples;
  }
  EXPECT_GT(samples, 20);
  EXPECT_NE(m.body.find("hitcost_hits_total 1\n"), std::string::npos) << m.body.substr(0, 400);
  EXPECT_NE(m.body.find("hitcost_phase_seconds_count{phase=\"fetch\"} 2\n"), std::string::npos);
  // What /stats says, /metrics says too (counters that the two requests do not move).
  json s = json::parse(conn.get("/stats").body);
  for (const char* c : {"pages", "hits", "misses", "decode_errors", "store_errors", "store_set_errors"}) {
    std::string want = std::string("hitcost_") + c + "_total " + std::to_string(s[c].get<uint64_t>()) + "\n";
    EXPECT_NE(m.body.find(want), std::string::npos) << want;
  }
  for (const auto& [phase, ph] : s["phases_ns"].items()) {
    if (phase == "write") continue;  // every response moves it, /metrics' own included
    std::string want =
        "hitcost_phase_seconds_count{phase=\"" + phase + "\"} " + std::to_string(ph["count"].get<uint64_t>()) + "\n";
    EXPECT_NE(m.body.find(want), std::string::npos) << want;
  }
  // hitcost_memory_bytes: one sample per figure of /stats "memory" that is not null (a
  // memory store has no store file: none for it), in bytes: the /metrics answered a moment
  // earlier has each within 1 MiB + 10 % (RSS moves between requests, by MiBs under ASan; a
  // KiB/byte mix-up is off 1024-fold). StatsReport.MemoryIsKiBInStatsAndBytesInMetrics
  // checks the conversion exactly.
  std::map<std::string, double> served;
  std::regex memory_sample(R"re(^hitcost_memory_bytes\{kind="([a-z_]+)"\} (\S+)$)re");
  std::istringstream mem_in(m.body);
  std::smatch match;
  while (std::getline(mem_in, line))
    if (std::regex_match(line, match, memory_sample)) served[match[1]] = std::stod(match[2]);
  size_t figures = 0;
  for (const auto& [k, v] : s.at("memory").items()) {
    ASSERT_TRUE(k.ends_with("_kb")) << k;
    const std::string kind = k.substr(0, k.size() - 3);
    if (v.is_null()) {
      EXPECT_EQ(served.count(kind), 0u) << kind;
      continue;
    }
    ++figures;
    ASSERT_EQ(served.count(kind), 1u) << kind;
    EXPECT_NEAR(served[kind], v.get<double>() * 1024, (1 << 20) + 0.1 * v.get<double>() * 1024) << kind;
  }
  EXPECT_TRUE(s.at("memory").at("store_file_resident_kb").is_null());
  EXPECT_GE(figures, 2u);  // rss and pss at least (smaps_rollup: Linux >= 4.14)
  EXPECT_EQ(served.size(), figures);
}

// Every row of the counter table (wire/server_counters.h) is in what the server answers: its
// /stats key and its /metrics sample, under the family's HELP and TYPE lines.
TEST(Routes, StatsAndMetricsCarryEveryCounterOfTheTable) {
  ServerProcess server({"--rows", "2"});
  HttpConnection conn(server.port());
  conn.get("/page/1");
  conn.get("/page/1");
  const json s = json::parse(conn.get("/stats").body);
  const std::string metrics = conn.get("/metrics").body;
  size_t rows_found = 0;
  for (const server::CounterRow& c : server::kCounterRows) {
    const json& group = c.json_group.empty() ? s : s.at(std::string(c.json_group));
    const std::string key(c.json_key), name(c.prom_name), labels(c.prom_labels);
    ASSERT_TRUE(group.contains(key)) << c.field;
    EXPECT_TRUE(group.at(key).is_number_unsigned()) << c.field;
    const std::string sample = "\n" + name + (labels.empty() ? "" : "{" + labels + "}") + " ";
    const size_t at = metrics.find(sample);
    ASSERT_NE(at, std::string::npos) << sample;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(metrics[at + sample.size()]))) << sample;
    EXPECT_NE(metrics.find("# HELP " + name + " " + std::string(c.prom_help) + "\n# TYPE " + name + " " +
                           std::string(c.prom_type) + "\n"),
              std::string::npos)
        << name;
    ++rows_found;
  }
  EXPECT_EQ(rows_found, server::kCounters);
  EXPECT_EQ(s.at("pages").get<uint64_t>(), 2u);  // the figures are live, not a zeroed table
  EXPECT_NE(metrics.find("\nhitcost_hits_total 1\n"), std::string::npos);
}

TEST(Routes, StrategySwitchAtRunTimeStoresTheNewFormAndStillReadsTheOld) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--strategy", "html", "--rows", "10", "--flags",
                        "php-memcached", "--threshold", "0"});
  HttpConnection conn(server.port());
  ASSERT_EQ(conn.get("/page/1").header("x-cache"), "miss");      // stored as html
  EXPECT_EQ(stored_flags(mc.port(), "hc:v1:p1:r10") & 0xF, 0u);  // type 0: string

  HttpResponse sw = conn.post("/admin/config", R"({"strategy":"struct:json+zlib"})");
  ASSERT_EQ(sw.status, 200) << sw.body;
  EXPECT_EQ(json::parse(sw.body)["strategy"], "struct:json+zlib");

  HttpResponse old_form = conn.get("/page/1");  // html value, read by its flags and named so
  EXPECT_EQ(old_form.header("x-cache"), "hit");
  EXPECT_EQ(old_form.header("x-strategy"), "html");
  EXPECT_EQ(old_form.header("x-strategy-asked"), "struct:json+zlib");
  EXPECT_EQ(old_form.body, expected_html(1, 10));

  ASSERT_EQ(conn.get("/page/2").header("x-cache"), "miss");   // stored in the new form
  EXPECT_EQ(stored_flags(mc.port(), "hc:v1:p2:r10"), 0x36u);  // JSON + zlib (FORMATS.md)
  HttpResponse new_form = conn.get("/page/2");
  EXPECT_EQ(new_form.header("x-cache"), "hit");
  EXPECT_EQ(new_form.header("x-strategy"), "struct:json+zlib");
  EXPECT_EQ(new_form.header("x-stored-as"), "struct:json+zlib");
  EXPECT_EQ(new_form.header("x-strategy-asked"), "");
  EXPECT_EQ(new_form.body, expected_html(2, 10));
  EXPECT_EQ(json::parse(conn.get("/stats").body)["strategy_mismatches"], 1);

  // A bad value is refused with a reason and the old config stays.
  HttpResponse bad = conn.post("/admin/config", R"({"strategy":"struct:yaml"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("bad config"), std::string::npos);
  EXPECT_EQ(json::parse(conn.get("/stats").body)["config"]["strategy"], "struct:json+zlib");
}

// The reader's libraries are switched at run time and reported; the bytes served never change.
TEST(Routes, InflateAndJsonDecoderSwitchesAnswerTheSameBytesAndAreReported) {
  MemcachedProcess mc;
  ServerProcess server(
      {"--store", "memcached:" + mc.address(), "--strategy", "struct:json+zlib", "--rows", "20", "--threshold", "0"});
  HttpConnection conn(server.port());
  json config = json::parse(conn.get("/stats").body)["config"];
  EXPECT_EQ(config["inflate"], "libdeflate");  // the defaults: the fastest measured
  EXPECT_EQ(config["json_decoder"], "simdjson");
  ASSERT_EQ(conn.get("/page/3").header("x-cache"), "miss");
  const std::string want = expected_html(3, 20);
  size_t hits = 0;
  for (const char* inflate : {"zlib", "isal", "libdeflate"}) {
    for (const char* decoder : {"hitcost", "nlohmann", "simdjson"}) {
      json body = {{"inflate", inflate}, {"json_decoder", decoder}};
      HttpResponse sw = conn.post("/admin/config", body.dump());
      ASSERT_EQ(sw.status, 200) << sw.body;
      json now = json::parse(conn.get("/stats").body)["config"];
      EXPECT_EQ(now["inflate"], inflate);
      EXPECT_EQ(now["json_decoder"], decoder);
      HttpResponse hit = conn.get("/page/3");
      EXPECT_EQ(hit.header("x-cache"), "hit") << inflate << " " << decoder;
      EXPECT_EQ(hit.body, want) << inflate << " " << decoder;
      hits += hit.header("x-cache") == "hit";
    }
  }
  EXPECT_EQ(hits, 9u);
  for (const char* bad : {R"({"inflate":"gzip"})", R"({"json_decoder":"rapidjson"})", R"({"inflate":7})"}) {
    HttpResponse r = conn.post("/admin/config", bad);
    EXPECT_EQ(r.status, 400) << bad;
  }
  HttpResponse named = conn.post("/admin/config", R"({"inflate":"gzip"})");
  EXPECT_NE(named.body.find("zlib, libdeflate, isal"), std::string::npos) << named.body;
  EXPECT_EQ(json::parse(conn.get("/stats").body)["config"]["inflate"], "libdeflate");  // the last good one stays
}

// The floor of a hit: every step of the strategy's hit on its bytes, every library of a format,
// the fastest of each marked, and per part the floor as the fastest alternatives summed.
TEST(Routes, CalibrateTimesEveryStepOfTheHitWithEveryLibrary) {
  MemcachedProcess mc;
  ServerProcess server(
      {"--store", "memcached:" + mc.address(), "--strategy", "struct:json+zlib", "--threshold", "0", "--rows", "20"});
  HttpConnection conn(server.port());
  HttpResponse r = conn.post("/admin/calibrate?repeats=3&slice_us=500", "");
  ASSERT_EQ(r.status, 200) << r.body;
  const json f = json::parse(r.body);
  EXPECT_EQ(f["strategy"], "struct:json+zlib");
  EXPECT_EQ(f["store"], "memcached");
  EXPECT_EQ(f["repeats"], 3);
  std::map<std::string, int> by_step;        // "part/step" -> steps
  std::map<std::string, double> fastest_of;  // "part/step" -> the fastest's median ns
  size_t timed = 0;
  for (const json& s : f["steps"]) {
    ASSERT_FALSE(s.contains("error")) << s.dump();
    const std::string key = s["part"].get<std::string>() + "/" + s["step"].get<std::string>();
    ++by_step[key];
    EXPECT_GT(s["ns"]["median"].get<double>(), 0) << key;
    EXPECT_LE(s["ns"]["min"].get<double>(), s["ns"]["median"].get<double>()) << key;
    if (s["fastest"].get<bool>()) fastest_of[key] = s["ns"]["median"].get<double>();
    ++timed;
  }
  EXPECT_EQ(by_step["receive/recv"], 1);
  EXPECT_EQ(by_step["receive/http_parse"], 1);
  EXPECT_EQ(by_step["fetch/round_trip"], 1);
  EXPECT_EQ(by_step["unwrap/decompress"], 3);  // zlib, libdeflate, isal
  EXPECT_EQ(by_step["decode/decode"], 3);      // simdjson, hitcost, nlohmann
  EXPECT_EQ(by_step["render/render"], 1);
  EXPECT_EQ(by_step["write/send"], 1);
  EXPECT_EQ(by_step["composed/hit"], 1);  // the whole hit in one loop, not a part of the floor
  EXPECT_EQ(timed, 12u);
  EXPECT_GT(f["composed_us"].get<double>(), 0);
  // Each part's floor is its steps' fastest alternatives, summed; the total sums the parts.
  double parts = 0;
  for (const char* part : {"receive", "fetch", "unwrap", "decode", "render", "write", "other"}) {
    ASSERT_TRUE(f["floor_us"].contains(part)) << part;
    double want = 0;
    for (const auto& [key, ns] : fastest_of)
      if (key.rfind(std::string(part) + "/", 0) == 0) want += ns / 1e3;
    EXPECT_NEAR(f["floor_us"][part].get<double>(), want, 1e-9) << part;
    parts += f["floor_us"][part].get<double>();
  }
  EXPECT_NEAR(f["floor_us"]["total"].get<double>(), parts, 1e-9);
  EXPECT_EQ(f["floor_us"]["other"], 0.0);
  // The libraries in force are marked; switched, the in-force sum moves to the new one.
  for (const json& s : f["steps"]) {
    if (s["part"] == "unwrap") {
      EXPECT_EQ(s["in_force"].get<bool>(), s["library"] == "zlib:libdeflate") << s.dump();
    }
  }
  ASSERT_EQ(conn.post("/admin/config", R"({"inflate":"zlib","json_decoder":"nlohmann"})").status, 200);
  const json g = json::parse(conn.post("/admin/calibrate?repeats=3&slice_us=500", "").body);
  EXPECT_GT(g["in_force_us"]["decode"].get<double>(),
            g["floor_us"]["decode"].get<double>());  // nlohmann is not the fastest
  for (const char* bad : {"repeats=0", "repeats=x", "slice_us=5", "peer_cpu=-5", "strategy=struct:yaml"})
    EXPECT_EQ(conn.post(std::string("/admin/calibrate?") + bad, "").status, 400) << bad;
}

TEST(Routes, PerRequestStrategyOverride) {
  ServerProcess server({"--rows", "4", "--namespace", "t"});
  HttpConnection conn(server.port());
  HttpResponse r = conn.get("/page/5?strategy=struct:msgpack");
  EXPECT_EQ(r.header("x-strategy"), "struct:msgpack");
  EXPECT_EQ(r.body, expected_html(5, 4));
  // The key does not name the strategy: asked under html, the hit reads the msgpack value the
  // override stored, and says so (a hit is what it says it is; docs/http-api.md).
  HttpResponse html = conn.get("/page/5");
  EXPECT_EQ(html.header("x-cache"), "hit");
  EXPECT_EQ(html.header("x-strategy"), "struct:msgpack");
  EXPECT_EQ(html.header("x-strategy-asked"), "html");
  EXPECT_EQ(html.body, expected_html(5, 4));
  HttpResponse fresh = conn.get("/page/6");  // a page of its own: stored and answered as html
  EXPECT_EQ(fresh.header("x-strategy"), "html");
  EXPECT_EQ(fresh.header("x-strategy-asked"), "");
  EXPECT_EQ(conn.get("/page/5?strategy=nonsense").status, 400);
}

TEST(Routes, AdminWarmFillsTheStore) {
  ServerProcess server({"--rows", "3"});
  HttpConnection conn(server.port());
  json w = json::parse(conn.post("/admin/warm?from=10&to=20", "").body);
  EXPECT_EQ(w["warmed"], 10);
  EXPECT_EQ(w["errors"], 0);
  for (int id = 10; id < 20; ++id) EXPECT_EQ(conn.get("/page/" + std::to_string(id)).header("x-cache"), "hit");
  EXPECT_EQ(conn.get("/page/20").header("x-cache"), "miss");
  EXPECT_EQ(conn.post("/admin/warm?from=5", "").status, 400);
}

// cache.bytes_unwrapped: what hits' values came to once unwrapped. Stored plain, the bytes
// read; stored compressed, more than read, and the page the hit served (html) exactly.
TEST(Routes, UnwrappedBytesAreTheReadBytesPlainAndTheInflatedPageCompressed) {
  size_t checked = 0;
  for (const char* strategy : {"html", "html+zlib"}) {
    ServerProcess server({"--store", "memory", "--rows", "40", "--strategy", strategy, "--threshold", "0"});
    HttpConnection conn(server.port());
    ASSERT_EQ(conn.post("/admin/warm?from=0&to=10", "").status, 200);
    ASSERT_EQ(conn.post("/admin/reset", "").status, 200);
    size_t page_bytes = 0;
    for (int id = 0; id < 10; ++id) {
      const auto r = conn.get("/page/" + std::to_string(id));
      ASSERT_EQ(r.header("x-cache"), "hit") << strategy;
      page_bytes += r.body.size();
    }
    const json cache = json::parse(conn.get("/stats").body)["cache"];
    const uint64_t read = cache["bytes_read"], unwrapped = cache["bytes_unwrapped"];
    EXPECT_EQ(unwrapped, page_bytes) << strategy << ": the html value unwraps to the page";
    if (std::string(strategy) == "html")
      EXPECT_EQ(unwrapped, read);
    else
      EXPECT_GT(unwrapped, 2 * read) << "a page of 40 rows deflates to well under half";
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
}

TEST(Routes, CorruptValueInMemcachedIsAMissCountedAndTheRightPage) {
  MemcachedProcess mc;
  ServerProcess server(
      {"--store", "memcached:" + mc.address(), "--strategy", "struct:json+zlib", "--rows", "6", "--threshold", "0"});
  HttpConnection conn(server.port());
  // Planted by hand: compressed-JSON flags over bytes that are not a zlib stream.
  std::string junk = "\x10\x00\x00\x00garbage-not-zlib";
  std::string reply =
      memcached_raw(mc.port(), "set hc:v1:p9:r6 54 0 " + std::to_string(junk.size()) + "\r\n" + junk + "\r\n", "\r\n");
  ASSERT_EQ(reply, "STORED\r\n");
  HttpResponse r = conn.get("/page/9");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("x-cache"), "miss");
  EXPECT_EQ(r.body, expected_html(9, 6));
  json s = json::parse(conn.get("/stats").body);
  EXPECT_EQ(s["decode_errors"], 1);
  EXPECT_EQ(s["decode_errors_by_kind"].size(), 1u);
  // The miss replaced the junk with a good value: next time a hit.
  EXPECT_EQ(conn.get("/page/9").header("x-cache"), "hit");
}

TEST(Routes, SigtermFinishesAndExitsZero) {
  ServerProcess server({"--rows", "2"});
  HttpConnection idle(server.port());  // an idle keep-alive connection must not hold the exit
  ASSERT_EQ(idle.get("/page/1").status, 200);
  server.signal(SIGTERM);
  int status = server.wait_exit(5000);
  ASSERT_NE(status, -1) << "server did not exit within 5 s of SIGTERM";
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Routes, SigtermLetsTheRequestInFlightFinish) {
  // A miss sleeps 700 ms in the origin: SIGTERM arrives while it is in flight.
  ServerProcess server({"--rows", "2", "--origin-delay-us", "700000"});
  HttpConnection conn(server.port());
  conn.send_raw("GET /page/3 HTTP/1.1\r\nHost: x\r\n\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  server.signal(SIGTERM);
  HttpResponse r = conn.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, expected_html(3, 2));
  EXPECT_EQ(r.header("connection"), "close");
  int status = server.wait_exit(5000);
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
