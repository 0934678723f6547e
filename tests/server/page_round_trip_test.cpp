// One request end to end: miss stores, hit returns the same HTML, for every strategy
// on the memory and memcached stores; /data equals the generator's output.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "codecs/zstd_dictionary.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;

namespace {

std::string expected_html(int64_t id, uint32_t rows) {
  PageSpec spec;
  spec.id = id;
  spec.rows = rows;
  return render_page(generate_page(spec));
}

struct Case {
  std::string store;  // "memory" or "memcached"
  std::string strategy;
  std::string flags;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.store << " " << c.strategy << " " << c.flags; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.store + "_" + info.param.strategy + "_" + info.param.flags;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class PageRoundTrip : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(PageRoundTrip, MissStoresAndHitReturnsTheSameHtml) {
  const Case& c = GetParam();
  std::unique_ptr<MemcachedProcess> mc;
  std::string store = c.store;
  if (store == "memcached") {
    mc = std::make_unique<MemcachedProcess>();
    store = "memcached:" + mc->address();
  }
  // threshold 0 forces compression on so the +zlib strategies really store compressed values.
  ServerProcess server(
      {"--store", store, "--strategy", c.strategy, "--flags", c.flags, "--rows", "20", "--threshold", "0"});
  HttpConnection conn(server.port());
  const std::string want = expected_html(7, 20);

  HttpResponse first = conn.get("/page/7");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.header("x-cache"), "miss");
  EXPECT_EQ(first.header("x-cache-key"), "hc:v1:p7:r20");
  EXPECT_EQ(first.header("x-strategy"), c.strategy);
  EXPECT_EQ(first.body, want);

  HttpResponse second = conn.get("/page/7");
  ASSERT_EQ(second.status, 200);
  EXPECT_EQ(second.header("x-cache"), "hit");
  EXPECT_EQ(second.header("x-cache-key"), first.header("x-cache-key"));
  EXPECT_EQ(second.body, want);

  if (mc) {
    // The key in the header is the exact key in memcached, and a value is there.
    std::string raw = memcached_raw(mc->port(), "get " + first.header("x-cache-key") + "\r\n", "END\r\n");
    EXPECT_EQ(raw.rfind("VALUE " + first.header("x-cache-key") + " ", 0), 0u) << raw.substr(0, 80);
  }

  nlohmann::json stats = nlohmann::json::parse(conn.get("/stats").body);
  EXPECT_EQ(stats["hits"], 1);
  EXPECT_EQ(stats["misses"], 1);
  EXPECT_EQ(stats["decode_errors"], 0);
  EXPECT_EQ(stats["store_errors"], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, PageRoundTrip,
    ::testing::Values(
        Case{"memory", "html", "php-memcached"}, Case{"memory", "struct:json", "php-memcached"},
        Case{"memory", "html+zlib", "php-memcached"}, Case{"memory", "struct:msgpack+zlib", "native"},
        Case{"memory:objects", "html", "native"}, Case{"memcached", "html", "php-memcached"},
        Case{"memcached", "html+zlib", "php-memcached"}, Case{"memcached", "struct:json", "php-memcached"},
        Case{"memcached", "struct:json+zlib", "php-memcached"}, Case{"memcached", "struct:php+zlib:9", "php-memcache"},
        Case{"memcached", "struct:msgpack+zlib", "php-memcached"}, Case{"memcached", "struct:json+zlib", "native"}),
    case_name);

TEST(PageData, DataRouteEqualsTheGeneratorOutput) {
  ServerProcess server({"--store", "memory", "--rows", "12"});
  HttpResponse r = http_get(server.port(), "/data/42");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  PageSpec spec;
  spec.id = 42;
  spec.rows = 12;
  Page want = generate_page(spec);
  auto got = decode_page(SerializerId::json, r.body);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(*got, want);
  // ?rows= changes the page size; the page route renders the same data.
  HttpResponse r5 = http_get(server.port(), "/data/42?rows=5");
  auto got5 = decode_page(SerializerId::json, r5.body);
  ASSERT_TRUE(got5.ok());
  EXPECT_EQ(got5->rows.size(), 5u);
  EXPECT_EQ(http_get(server.port(), "/page/42?rows=5").body, render_page(*got5));
}

TEST(PageCache, HitMissTransitionsPerKey) {
  ServerProcess server({"--store", "memory", "--rows", "3"});
  HttpConnection conn(server.port());
  EXPECT_EQ(conn.get("/page/1").header("x-cache"), "miss");
  EXPECT_EQ(conn.get("/page/2").header("x-cache"), "miss");
  EXPECT_EQ(conn.get("/page/1").header("x-cache"), "hit");
  EXPECT_EQ(conn.get("/page/1?rows=4").header("x-cache"), "miss");  // another size, another key
  EXPECT_EQ(conn.get("/page/1?rows=4").header("x-cache-key"), "hc:v1:p1:r4");
  EXPECT_EQ(conn.get("/page/2").header("x-cache"), "hit");
}

// +zstd-dict in a real server over a real memcached: the dictionary (trained here on other pages'
// JSON) is loaded from its file, writes the values, and the frame in memcached names it; a server
// started without it refuses those values (decode_errors) and answers from the origin, never a
// guess; a form without a dictionary is refused at /admin/config and ?strategy=.
TEST(ZstdDictionaryServer, LoadsItWritesWithItAndAServerWithoutItRefusesTheValues) {
  std::vector<std::string> samples;
  for (int64_t id = 100; id < 160; ++id) {
    PageSpec spec;
    spec.id = id;
    spec.rows = 20;
    samples.push_back(encode_page(SerializerId::json, generate_page(spec)));
  }
  auto dict = train_zstd_dictionary(std::vector<std::string_view>(samples.begin(), samples.end()), 16384);
  ASSERT_TRUE(dict.ok()) << dict.error().message;
  const unsigned id = ZSTD_getDictID_fromDict(dict->data(), dict->size());
  const std::string path = ::testing::TempDir() + "/page_round_trip_struct-json.zdict";
  { std::ofstream(path, std::ios::binary) << *dict; }

  MemcachedProcess mc;
  const std::string store = "memcached:" + mc.address();
  ServerProcess server({"--store", store, "--strategy", "struct:json+zstd-dict", "--zstd-dict", "struct:json=" + path,
                        "--rows", "20", "--threshold", "0"});
  EXPECT_NE(server.startup_output().find("zstd dictionary " + std::to_string(id) + ": " + std::to_string(dict->size()) +
                                         " bytes, writes struct:json"),
            std::string::npos)
      << server.startup_output();
  HttpConnection conn(server.port());
  const std::string want = expected_html(7, 20);
  HttpResponse miss = conn.get("/page/7");
  ASSERT_EQ(miss.status, 200) << miss.body;
  EXPECT_EQ(miss.header("x-strategy"), "struct:json+zstd-dict");
  EXPECT_EQ(miss.body, want);
  HttpResponse hit = conn.get("/page/7");
  EXPECT_EQ(hit.header("x-cache"), "hit");
  EXPECT_EQ(hit.header("x-stored-as"), "struct:json+zstd");  // zstd's flags: the frame names the dictionary
  EXPECT_EQ(hit.body, want);

  // In memcached: php-memcached's zstd flags, the length prefix, then a frame naming the dictionary.
  const std::string raw = memcached_raw(mc.port(), "get hc:v1:p7:r20\r\n", "END\r\n");
  const size_t data = raw.find("\r\n") + 2;
  ASSERT_EQ(raw.rfind("VALUE hc:v1:p7:r20 150 ", 0), 0u) << raw.substr(0, 60);  // 0x96: json, 0x10|0x80 zstd
  EXPECT_EQ(ZSTD_getDictID_fromFrame(raw.data() + data + 4, raw.size() - data - 4), id);

  nlohmann::json stats = nlohmann::json::parse(conn.get("/stats").body);
  ASSERT_EQ(stats["config"]["zstd_dictionaries"].size(), 1u) << stats["config"].dump();
  EXPECT_EQ(stats["config"]["zstd_dictionaries"][0]["id"], id);
  EXPECT_EQ(stats["config"]["zstd_dictionaries"][0]["writes_for"], nlohmann::json::array({"struct:json"}));
  EXPECT_EQ(stats["decode_errors"], 0);

  HttpResponse refused = conn.post("/admin/config", R"({"strategy":"html+zstd-dict"})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("no zstd dictionary is loaded for html"), std::string::npos) << refused.body;
  HttpResponse asked = conn.get("/page/8?strategy=struct:msgpack%2Bzstd-dict");
  EXPECT_EQ(asked.status, 400);
  EXPECT_NE(asked.body.find("struct:msgpack"), std::string::npos) << asked.body;

  // The same key read by a server without the dictionary: refused, counted, answered right.
  ServerProcess blind({"--store", store, "--strategy", "struct:json+zstd", "--rows", "20", "--threshold", "0"});
  HttpResponse blind_hit = http_get(blind.port(), "/page/7");
  EXPECT_EQ(blind_hit.status, 200);
  EXPECT_EQ(blind_hit.body, want);
  nlohmann::json blind_stats = nlohmann::json::parse(http_get(blind.port(), "/stats").body);
  EXPECT_EQ(blind_stats["decode_errors"], 1) << blind_stats.dump();
  std::remove(path.c_str());
}
