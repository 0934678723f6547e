// PHP's GET /value/{n} (php/src/value_service.php, tree_render.php) next to hitcost-server's on
// the very same stored values: hitcost-server (started with the corpus) writes every value under
// each strategy PHP's extension reads, PHP reads them back through its extension (decoding by
// the flags) and renders them; every body must be byte for byte hitcost-server's, which must be
// the rendering of the tree this test built. Both PHP extensions, over a real memcached.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/php/php_stack_process.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"
#include "tests/support/value_corpus.h"

using namespace hitcost::testing;
using namespace hitcost::testing::value_corpus;
using nlohmann::json;

namespace {

struct Scheme {
  std::string flags, extension;
  std::vector<std::string> strategies;  // what that extension reads (docs/formats.md)
};

size_t check_scheme(const Scheme& scheme, const std::string& corpus_path, const std::vector<GoodValue>& good) {
  MemcachedProcess mc(256);
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", scheme.flags, "--corpus", corpus_path});
  PhpStackProcess php({"--extension", scheme.extension, "--memcached", mc.address(), "--origin",
                       "http://127.0.0.1:" + std::to_string(server.port())});
  HttpConnection admin(server.port());
  size_t checked = 0;
  for (const std::string& s : scheme.strategies) {
    SCOPED_TRACE(scheme.extension + " " + s);
    const std::string ns = "pv" + std::to_string(checked);
    // threshold 0: every value compressed where it saves, so PHP inflates the small ones too
    HttpResponse cfg = admin.post("/admin/config", json{{"strategy", s}, {"namespace", ns}, {"threshold", 0}}.dump());
    EXPECT_EQ(cfg.status, 200) << cfg.body;
    HttpResponse warm = admin.post("/admin/warm?values=1", "");
    EXPECT_EQ(warm.status, 200) << warm.body;
    const bool json_strategy = s.starts_with("struct:json");
    for (size_t n = 0; n < good.size(); ++n) {
      SCOPED_TRACE(good[n].what);
      const HttpResponse cpp = http_get(server.port(), "/value/" + std::to_string(n));
      const HttpResponse p = http_get(php.port(), "/value/" + std::to_string(n) + "?ns=" + ns +
                                                      (s.starts_with("html") ? "&rep=html" : "&rep=struct"));
      EXPECT_EQ(cpp.status, 200) << cpp.body;
      EXPECT_EQ(p.status, 200) << p.body;
      EXPECT_EQ(cpp.body, rendered(good[n].tree));
      EXPECT_EQ(p.body, cpp.body);
      EXPECT_EQ(p.header("x-cache-key"), "hc:" + ns + ":v" + std::to_string(n));
      // JSON cannot hold the non-UTF-8 string: never stored, PHP answers from the origin.
      EXPECT_EQ(p.header("x-cache"), json_strategy && n == kNonUtf8 ? "miss" : "hit");
      ++checked;
    }
  }
  return checked;
}

}  // namespace

TEST(PhpValue, EveryValueRendersByteForByteAsHitcostServerDoesUnderEveryStrategyPhpReads) {
  const auto dir = fresh_dir("php-value", "corpus");
  const std::vector<GoodValue> good = good_values();
  const std::string corpus_path = write_corpus((dir / "values.hcorpus").string(), good);
  const std::vector<Scheme> schemes = {
      {"php-memcached",
       "memcached",
       {"html", "html+zlib", "html+fastlz", "struct:php", "struct:php+zlib", "struct:igbinary",
        "struct:igbinary+fastlz", "struct:json", "struct:json+zlib", "struct:msgpack", "struct:msgpack+fastlz"}},
      {"php-memcache",
       "memcache",
       {"html", "html+zlib", "struct:php", "struct:php+zlib", "struct:json", "struct:msgpack"}},
  };
  size_t checked = 0;
  for (const Scheme& s : schemes) checked += check_scheme(s, corpus_path, good);
  EXPECT_EQ(checked, (11u + 6u) * good.size());
}

TEST(PhpValue, BadNumbersAreRefusedAsHitcostServerRefusesThem) {
  const auto dir = fresh_dir("php-value", "bad-numbers");
  const std::string corpus_path = write_corpus((dir / "values.hcorpus").string(), good_values());
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--corpus", corpus_path});
  PhpStackProcess php({"--memcached", mc.address(), "--origin", "http://127.0.0.1:" + std::to_string(server.port())});
  size_t checked = 0;
  for (const auto& [target, status] : std::vector<std::pair<std::string, int>>{{"/value/-1", 400},
                                                                               {"/value/x", 400},
                                                                               {"/value/1000000000001", 404},
                                                                               {"/value/99999999999999999999", 400},
                                                                               {"/value/1?rep=yaml", 400}}) {
    SCOPED_TRACE(target);
    const HttpResponse p = http_get(php.port(), target);
    EXPECT_EQ(p.status, status) << p.body;
    if (target.find("rep=") == std::string::npos) {  // rep is PHP's alone
      EXPECT_EQ(http_get(server.port(), target).status, status);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 5u);
}
