// PHP in the loop: php/ behind the real php-fpm and nginx (scripts/php-stack.sh), a real
// memcached and a real hitcost-server (as writer, reader and origin).
//   read:  hitcost-server stores each strategy PHP can read; PHP answers the same pages as
//          hits, byte for byte what hitcost-server serves.
//   write: PHP misses (origin, render, store with the extension) and hitcost-server's next
//          GET of the key is a hit with the same bytes: PHP wrote what hitcost reads.
//   edge:  pages no generator produces (extreme ids, dates and prices, every escaped byte)
//          planted with hitcost's encoders: PHP renders them like codecs/renderer.cpp.
//   the routes' answers and errors, hits on a kept connection, and no process left when
//   the stack stops.
// php-fpm, nginx and the PHP extensions are test dependencies (scripts/install-deps.sh):
// without them the tests fail, they do not skip.
#include <gtest/gtest.h>
#include <sched.h>

#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "tests/php/php_stack_process.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost;
using namespace hitcost::testing;
using nlohmann::json;

namespace {

// Ids warmed by POST /admin/warm?from=1&to=4 and the page sizes read back: 0 and 1 rows
// (the empty table, "1 item"), 3 rows (about 2 KB: around php-memcached's threshold),
// 50 (30 KB: above php-memcache's 20000 B threshold) and 200 (119 KB of HTML: FastLZ's
// level 2, used above 64 KiB).
constexpr int64_t kIds[] = {1, 2, 3};
constexpr uint32_t kRows[] = {0, 1, 3, 50, 200};
constexpr uint32_t kBigRows = 200;
// Per strategy: every id at every size, plus one request without ?rows (the default, 50).
constexpr size_t kPagesPerStrategy = std::size(kIds) * std::size(kRows) + 1;

std::string expected_html(int64_t id, uint32_t rows) {
  PageSpec spec;  // hitcost-server's defaults: seed 1, compressibility 1
  spec.id = id;
  spec.rows = rows;
  return render_page(generate_page(spec));
}

std::string target(int64_t id, std::optional<uint32_t> rows) {
  std::string t = "/page/" + std::to_string(id);
  if (rows) t += "?rows=" + std::to_string(*rows);
  return t;
}

// "struct:php+zlib" -> "struct-php-zlib": a namespace per strategy.
std::string slug(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return s;
}

// The flags word memcached holds for `key`, or nullopt when the key is absent.
std::optional<uint32_t> stored_flags(int mc_port, const std::string& key) {
  std::string reply = memcached_raw(mc_port, "get " + key + "\r\n", "END\r\n");
  std::string head = "VALUE " + key + " ";
  if (reply.rfind(head, 0) != 0) return std::nullopt;
  return static_cast<uint32_t>(std::stoul(reply.substr(head.size())));
}

std::string origin_url(const ServerProcess& s) { return "http://127.0.0.1:" + std::to_string(s.port()); }

void configure(HttpConnection& admin, const json& patch) {
  HttpResponse r = admin.post("/admin/config", patch.dump());
  ASSERT_EQ(r.status, 200) << patch.dump() << ": " << r.body;
}

// Warms ids kIds at every size of kRows under the server's current config.
void warm_all(HttpConnection& admin) {
  for (uint32_t rows : kRows) {
    HttpResponse w = admin.post("/admin/warm?from=1&to=4&rows=" + std::to_string(rows), "");
    ASSERT_EQ(w.status, 200) << w.body;
    json j = json::parse(w.body);
    ASSERT_EQ(j["warmed"], 3) << w.body;
    ASSERT_EQ(j["errors"], 0) << w.body;
  }
}

std::string pids_text(const std::vector<pid_t>& pids) {
  std::string s;
  for (pid_t p : pids) s += std::to_string(p) + " ";
  return s;
}

// Stops the stack with TERM and checks that every process it printed is gone.
void expect_clean_stop(PhpStackProcess& php) {
  std::vector<pid_t> left = php.stop(SIGTERM);
  EXPECT_TRUE(left.empty()) << "still running after the stack stopped: " << pids_text(left);
}

// Sets a raw value (bytes and flags as given), bypassing every client library.
void plant(int mc_port, const std::string& key, uint32_t flags, const std::string& bytes) {
  std::string reply = memcached_raw(
      mc_port,
      "set " + key + " " + std::to_string(flags) + " 0 " + std::to_string(bytes.size()) + "\r\n" + bytes + "\r\n",
      "\r\n");
  ASSERT_EQ(reply, "STORED\r\n") << key;
}

// --- read: hitcost-server writes, PHP reads ------------------------------------------

struct ReadCase {
  std::string strategy;
  uint32_t big_compression;  // the big page's flags under the scheme's compression mask (0: plain)
};

// Reads every case's pages from PHP and from hitcost-server; returns how many pages were
// byte-identical hits on both sides.
size_t compare_reads(const std::vector<ReadCase>& cases, const std::string& scheme, uint32_t compression_mask,
                     const std::vector<std::string>& php_args) {
  MemcachedProcess mc(256);
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", scheme});
  HttpConnection hc(server.port());
  size_t identical = 0;
  for (const ReadCase& c : cases) {
    SCOPED_TRACE(scheme + " " + c.strategy);
    const std::string ns = "read-" + slug(c.strategy);
    HttpResponse cfg = hc.post("/admin/config", json{{"strategy", c.strategy}, {"namespace", ns}}.dump());
    if (cfg.status != 200) {
      ADD_FAILURE() << "hitcost-server rejects " << c.strategy << ": " << cfg.body;
      continue;
    }
    warm_all(hc);
    const std::string big_key = "hc:" + ns + ":p1:r" + std::to_string(kBigRows);
    std::optional<uint32_t> flags = stored_flags(mc.port(), big_key);
    EXPECT_TRUE(flags.has_value()) << big_key << " was not warmed";
    EXPECT_EQ(flags.value_or(0) & compression_mask, c.big_compression)
        << big_key << " flags 0x" << std::hex << flags.value_or(0) << ": not the compression the strategy names";

    std::vector<std::string> args = php_args;
    args.insert(args.end(), {"--memcached", mc.address(), "--origin", origin_url(server), "--namespace", ns});
    PhpStackProcess php(args);
    HttpConnection pc(php.port());
    size_t same = 0;
    std::vector<std::pair<int64_t, std::optional<uint32_t>>> pages;
    for (int64_t id : kIds)
      for (uint32_t rows : kRows) pages.emplace_back(id, rows);
    pages.emplace_back(2, std::nullopt);
    for (auto [id, rows] : pages) {
      const std::string t = target(id, rows);
      HttpResponse h = hc.get(t), p = pc.get(t);
      EXPECT_EQ(h.status, 200) << t << ": " << h.body;
      EXPECT_EQ(p.status, 200) << t << ": " << p.body;
      EXPECT_EQ(h.header("x-cache"), "hit") << t;
      EXPECT_EQ(p.header("x-cache"), "hit") << t << " (PHP did not read what hitcost stored)";
      EXPECT_EQ(p.header("x-cache-key"), h.header("x-cache-key")) << t;
      EXPECT_EQ(p.header("content-type"), h.header("content-type")) << t;
      EXPECT_TRUE(p.body == h.body) << t << ": PHP's page (" << p.body.size() << " B) differs from hitcost's ("
                                    << h.body.size() << " B)";
      EXPECT_TRUE(h.body == expected_html(id, rows.value_or(50))) << t;
      if (h.status == 200 && p.status == 200 && p.header("x-cache") == "hit" && h.header("x-cache") == "hit" &&
          p.body == h.body)
        ++same;
    }
    std::cout << "[ php read ] " << scheme << " " << c.strategy << ": " << same << "/" << pages.size()
              << " pages byte-identical hits\n";
    identical += same;
    expect_clean_stop(php);
  }
  return identical;
}

TEST(PhpBackend, ReadsEveryStrategyHitcostStoresUnderPhpMemcached) {
  constexpr uint32_t kMask = 0xF0, kZlib = 0x30, kFastlz = 0x50;  // compressed + method (FORMATS.md)
  // The last four need FastLZ and igbinary in hitcost (added with them): last, so a server
  // without them fails on them alone.
  const std::vector<ReadCase> cases = {{"html", 0},
                                       {"html+zlib", kZlib},
                                       {"struct:php", 0},
                                       {"struct:php+zlib", kZlib},
                                       {"struct:json", 0},
                                       {"struct:json+zlib", kZlib},
                                       {"struct:msgpack", 0},
                                       {"struct:msgpack+zlib", kZlib},
                                       {"struct:igbinary", 0},
                                       {"struct:igbinary+fastlz", kFastlz},
                                       {"struct:php+fastlz", kFastlz},
                                       {"html+fastlz", kFastlz}};
  size_t identical = compare_reads(cases, "php-memcached", kMask, {"--extension", "memcached"});
  EXPECT_EQ(identical, cases.size() * kPagesPerStrategy);
}

TEST(PhpBackend, ReadsEveryStrategyHitcostStoresUnderPhpMemcache) {
  constexpr uint32_t kZlib = 0x2;
  const std::vector<ReadCase> cases = {
      {"html", 0},           {"html+zlib", kZlib},        {"struct:php", 0},     {"struct:php+zlib", kZlib},
      {"struct:json", 0},    {"struct:json+zlib", kZlib}, {"struct:msgpack", 0}, {"struct:msgpack+zlib", kZlib}};
  size_t identical = compare_reads(cases, "php-memcache", kZlib, {"--extension", "memcache"});
  EXPECT_EQ(identical, cases.size() * kPagesPerStrategy);
}

// --- write: PHP misses and stores, hitcost-server reads --------------------------------

struct WriteCase {
  std::vector<std::string> php_args;
  uint32_t type_bits;        // what every stored value has under type_mask
  uint32_t big_compression;  // what the big page has under compression_mask (0: stored plain)
  uint32_t type_mask, compression_mask;
  // The same for the 3-row page (about 2 KB) where the outcome does not hang on a few bytes
  // around php-memcached's 2000 B threshold.
  std::optional<uint32_t> small_compression = std::nullopt;
};

// Each case: a fresh namespace nobody warmed; PHP's first GET is a miss that must render
// the origin's page and store it; hitcost-server's next GET is a hit with PHP's bytes;
// PHP's second GET is a hit too. Returns the pages for which all of that held.
size_t compare_writes(const std::vector<WriteCase>& cases, const std::string& scheme,
                      const std::vector<std::string>& base_args) {
  MemcachedProcess mc(256);
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", scheme});
  HttpConnection hc(server.port());
  size_t good = 0, n = 0;
  for (const WriteCase& c : cases) {
    std::string label;
    for (const auto& a : c.php_args) label += a + " ";
    SCOPED_TRACE(scheme + " " + label);
    const std::string ns = "write-" + std::to_string(n++);
    configure(hc, {{"namespace", ns}});
    std::vector<std::string> args = base_args;
    args.insert(args.end(), c.php_args.begin(), c.php_args.end());
    args.insert(args.end(), {"--memcached", mc.address(), "--origin", origin_url(server), "--namespace", ns});
    PhpStackProcess php(args);
    HttpConnection pc(php.port());
    size_t same = 0;
    for (int64_t id : {4, 5}) {
      for (uint32_t rows : {3u, kBigRows}) {
        const std::string t = target(id, rows), want = expected_html(id, rows);
        HttpResponse miss = pc.get(t);
        EXPECT_EQ(miss.status, 200) << t << ": " << miss.body;
        EXPECT_EQ(miss.header("x-cache"), "miss") << t;
        EXPECT_TRUE(miss.body == want) << t << ": PHP's miss page differs from codecs/renderer.cpp's";
        const std::string key = miss.header("x-cache-key");
        EXPECT_EQ(key, "hc:" + ns + ":p" + std::to_string(id) + ":r" + std::to_string(rows));
        std::optional<uint32_t> stored = stored_flags(mc.port(), key);
        EXPECT_TRUE(stored.has_value()) << key << ": PHP stored nothing";
        uint32_t flags = stored.value_or(0xFFFFFFFF);
        // The serializer's type (php-memcached) or hitcost's user flag (php-memcache).
        EXPECT_EQ(flags & c.type_mask, c.type_bits) << key << std::hex << " flags 0x" << flags;
        std::optional<uint32_t> want_compression = rows == kBigRows ? c.big_compression : c.small_compression;
        if (want_compression) {
          EXPECT_EQ(flags & c.compression_mask, *want_compression) << key << std::hex << " flags 0x" << flags;
        }
        HttpResponse h = hc.get(t);
        EXPECT_EQ(h.header("x-cache"), "hit") << t << " (hitcost-server could not read what PHP stored)";
        EXPECT_TRUE(h.body == miss.body) << t;
        HttpResponse again = pc.get(t);
        EXPECT_EQ(again.header("x-cache"), "hit") << t;
        EXPECT_TRUE(again.body == miss.body) << t;
        if (miss.status == 200 && miss.body == want && h.header("x-cache") == "hit" && h.body == want &&
            again.header("x-cache") == "hit" && again.body == want)
          ++same;
      }
    }
    std::cout << "[ php write ] " << scheme << " " << label << ": " << same << "/4 pages read back by hitcost\n";
    good += same;
    expect_clean_stop(php);
  }
  return good;
}

TEST(PhpBackend, MissStoresWhatHitcostReadsUnderPhpMemcached) {
  constexpr uint32_t kType = 0x0F, kMask = 0xF0, kFastlz = 0x50, kZlib = 0x30;
  std::vector<WriteCase> cases;
  const std::pair<const char*, uint32_t> serializers[] = {{"php", 4}, {"igbinary", 5}, {"json", 6}, {"msgpack", 7}};
  for (auto [ser, type] : serializers) {
    cases.push_back({{"--serializer", ser}, type, kFastlz, kType, kMask});  // the stock ini: FastLZ
    cases.push_back({{"--serializer", ser, "--compression-type", "zlib"}, type, kZlib, kType, kMask});
    cases.push_back({{"--serializer", ser, "--compression", "off"}, type, 0, kType, kMask, 0});
  }
  cases.push_back({{"--store-as", "html"}, 0, kFastlz, kType, kMask});
  cases.push_back({{"--store-as", "html", "--compression-type", "zlib"}, 0, kZlib, kType, kMask});
  cases.push_back({{"--store-as", "html", "--compression", "off"}, 0, 0, kType, kMask, 0});
  size_t good = compare_writes(cases, "php-memcached", {"--extension", "memcached"});
  EXPECT_EQ(good, cases.size() * 4);
}

TEST(PhpBackend, MissStoresWhatHitcostReadsUnderPhpMemcache) {
  // Serialized, hitcost's JSON and msgpack user flags; compressed.
  constexpr uint32_t kType = 0x30001, kSerialized = 0x1, kJson = 0x10000, kMsgpack = 0x20000, kZ = 0x2;
  std::vector<WriteCase> cases;
  const std::pair<const char*, uint32_t> kinds[] = {{"php", kSerialized}, {"json", kJson}, {"msgpack", kMsgpack}};
  for (auto [ser, flag] : kinds) {
    // on: compressed from the 20000 B threshold; always: MEMCACHE_COMPRESSED on every set.
    cases.push_back({{"--serializer", ser}, flag, kZ, kType, kZ, 0});
    cases.push_back({{"--serializer", ser, "--compression", "always"}, flag, kZ, kType, kZ, kZ});
    cases.push_back({{"--serializer", ser, "--compression", "off"}, flag, 0, kType, kZ, 0});
  }
  cases.push_back({{"--store-as", "html"}, 0, kZ, kType, kZ, 0});
  cases.push_back({{"--store-as", "html", "--compression", "always"}, 0, kZ, kType, kZ, kZ});
  cases.push_back({{"--store-as", "html", "--compression", "off"}, 0, 0, kType, kZ, 0});
  size_t good = compare_writes(cases, "php-memcache", {"--extension", "memcache"});
  EXPECT_EQ(good, cases.size() * 4);
}

// --- edge: pages no generator writes --------------------------------------------------

Row edge_row(int64_t id, double price, int64_t created, std::string text) {
  Row r;
  r.id = id;
  r.title = "T " + text;
  r.author = text + " A";
  r.tags = {text, "", "&#039;"};
  r.price = price;
  r.created = created;
  r.excerpt = "<p>" + text + "</p>";
  r.url = "https://example.org/?a=1&b=\"" + text + "\"";
  return r;
}

std::vector<Page> edge_pages(bool utf8_only) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const std::string text = utf8_only ? "&<>\"' é€😀 \t\n\\ &amp;" : "&<>\"' \xff\xfe bytes \x01";
  // Prices: llround's halves (1.005 is 100.49999… cents, 0.125 is 12.5), tiny negatives
  // that round to 0.00, and the shortest-double forms at and above 1e15.
  const double prices[] = {1.005,
                           0.125,
                           -0.001,
                           -12.345,
                           2.675,
                           5.0,
                           0.0,
                           -0.0,
                           1e15,
                           -1e15,
                           123456789012345678.0,
                           1.5e300,
                           4503599627370497.5,
                           9.999999999999998e14};
  // Dates: both ends of int64, around 1970, the years 0 and 9999 and one past each.
  const int64_t created[] = {
      kMin, kMax, -1, 0, 951782400, 253402300799, 253402300800, -62167219200, -62167219201, -86400LL * 146097 * 3 - 1};
  std::vector<Page> pages;
  Page wide;
  wide.id = kMin;
  wide.title = "Edge " + text;
  for (size_t i = 0; i < std::size(prices); ++i)
    wide.rows.push_back(
        edge_row(i % 2 ? kMax : -static_cast<int64_t>(i), prices[i], created[i % std::size(created)], text));
  for (size_t i = 0; i < std::size(created); ++i) wide.rows.push_back(edge_row(0, 1.0, created[i], text));
  pages.push_back(wide);
  Page one;  // " item", not " items"
  one.id = kMax;
  one.title = text;
  one.rows.push_back(edge_row(-1, 99.99, 1700000000, text));
  pages.push_back(one);
  Page empty;
  empty.id = 0;
  pages.push_back(empty);
  return pages;
}

TEST(PhpBackend, RendersEdgeCasePagesLikeTheRenderer) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", "php-memcached", "--namespace", "edge"});
  HttpConnection hc(server.port());
  PhpStackProcess php({"--memcached", mc.address(), "--origin", origin_url(server), "--namespace", "edge"});
  HttpConnection pc(php.port());
  // JSON text must be UTF-8 for PHP's json_decode; the binary serializers carry any byte.
  const std::pair<const char*, bool> strategies[] = {{"struct:php", false},
                                                     {"struct:msgpack", false},
                                                     {"struct:igbinary", false},
                                                     {"struct:json", true},
                                                     {"struct:php+zlib", false}};
  size_t same = 0, planted = 0;
  int64_t key_id = 100;
  for (auto [name, utf8_only] : strategies) {
    auto st = parse_strategy(name, FlagScheme::php_memcached);
    ASSERT_TRUE(st.ok()) << name;
    st->rule.threshold_bytes = 0;  // compress even the small pages
    for (const Page& page : edge_pages(utf8_only)) {
      SCOPED_TRACE(std::string(name) + " page id " + std::to_string(page.id));
      const std::string want = render_page(page);
      EncodedValue v = encode_value(*st, page, want);
      plant(mc.port(), "hc:edge:p" + std::to_string(key_id) + ":r3", v.flags, v.bytes);
      ++planted;
      const std::string t = target(key_id++, 3);
      HttpResponse p = pc.get(t), h = hc.get(t);
      EXPECT_EQ(h.header("x-cache"), "hit") << t;
      EXPECT_EQ(p.header("x-cache"), "hit") << t << " (PHP could not read it: " << p.body.substr(0, 200) << ")";
      EXPECT_TRUE(h.body == want) << t;
      EXPECT_TRUE(p.body == want) << t << "\nPHP:  " << p.body << "\nwant: " << want;
      if (p.header("x-cache") == "hit" && p.body == want && h.body == want) ++same;
    }
  }
  EXPECT_EQ(planted, std::size(strategies) * 3);
  EXPECT_EQ(same, planted);
  expect_clean_stop(php);
}

// A value the extension cannot decode (or that is no page) is a miss that refetches and
// overwrites, as hitcost-server answers its decode errors; never a 500.
TEST(PhpBackend, UndecodableValuesAreMissesLikeHitcost) {
  struct Garbage {
    uint32_t flags;
    std::string bytes;
  };
  const std::pair<const char*, std::vector<Garbage>> schemes[] = {
      {"php-memcached",
       {{0x34, std::string("\x05\0\0\0abcde", 9)},  // serialize + zlib, not a zlib stream
        {0x94, std::string("\x05\0\0\0abcde", 9)},  // zstd: unknown to extension 3.2.0
        {0x04, "a:1:{garbage"},
        {0x05, std::string("\0\0\0\x02\xff", 5)},
        {0x06, "{nope"},
        // No malformed msgpack (type 7): php-memcached 3.2.0 with php-msgpack 2.2.0RC2 (Debian
        // 12) crashes the worker on one now and then (SIGSEGV, nginx answers 502).
        {0x01, "42"}}},  // an integer: no page
      {"php-memcache",
       {{0x02, "not zlib"}, {0x01, "a:1:{garbage"}, {0x10000, "{nope"}, {0x20000, "\xc1"}, {0x100, "1"}}}};
  size_t checked = 0, expected = 0;
  for (const auto& [scheme, garbage] : schemes) {
    SCOPED_TRACE(scheme);
    MemcachedProcess mc;
    ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", scheme, "--namespace", "bad"});
    HttpConnection hc(server.port());
    PhpStackProcess php({"--extension", std::string(scheme) == "php-memcache" ? "memcache" : "memcached", "--memcached",
                         mc.address(), "--origin", origin_url(server), "--namespace", "bad"});
    HttpConnection pc(php.port());
    int64_t id = 200;
    for (const Garbage& g : garbage) {
      ++expected;
      const std::string key = "hc:bad:p" + std::to_string(id) + ":r3", t = target(id, 3), want = expected_html(id, 3);
      ++id;
      SCOPED_TRACE(key);
      plant(mc.port(), key, g.flags, g.bytes);
      HttpResponse p = pc.get(t);
      EXPECT_EQ(p.status, 200) << p.body;
      EXPECT_EQ(p.header("x-cache"), "miss");
      EXPECT_TRUE(p.body == want);
      plant(mc.port(), key, g.flags, g.bytes);
      HttpResponse h = hc.get(t);
      EXPECT_EQ(h.header("x-cache"), "miss");
      HttpResponse again = pc.get(t);  // hitcost's miss stored a good value
      EXPECT_EQ(again.header("x-cache"), "hit");
      if (p.status == 200 && p.header("x-cache") == "miss" && p.body == want && h.header("x-cache") == "miss" &&
          again.header("x-cache") == "hit" && again.body == want)
        ++checked;
    }
    expect_clean_stop(php);
  }
  EXPECT_EQ(expected, 11u);
  EXPECT_EQ(checked, expected);
}

// --- routes and errors -----------------------------------------------------------------

TEST(PhpBackend, AnswersRoutesAndBadRequestsLikeHitcost) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", "php-memcached"});
  PhpStackProcess php({"--memcached", mc.address(), "--origin", origin_url(server)});
  HttpConnection hc(server.port()), pc(php.port());
  // Each target goes to hitcost first (a miss stores the page), then to PHP.
  const char* targets[] = {"/healthz",
                           "/nope",
                           "/page/",
                           "/page/abc",
                           "/page/-1",
                           "/page/1.5",
                           "/page/+1",
                           "/page/-0?rows=3",
                           "/page/007?rows=3",
                           "/page/1?rows=99999",
                           "/page/1?rows=-1",
                           "/page/1?rows=",
                           "/page/1?rows=%35",
                           "/page/1?x=1&rows=4&rows=9",
                           "/page/99999999999999",
                           "/page/99999999999999999999",
                           "/page/1/",
                           "/page/1000000000000?rows=1"};
  size_t same = 0;
  for (const char* t : targets) {
    HttpResponse h = hc.get(t), p = pc.get(t);
    EXPECT_EQ(p.status, h.status) << t << ": PHP said " << p.body << ", hitcost " << h.body;
    EXPECT_TRUE(p.body == h.body) << t << ": PHP '" << p.body.substr(0, 100) << "', hitcost '" << h.body.substr(0, 100)
                                  << "'";
    EXPECT_EQ(p.header("content-type"), h.header("content-type")) << t;
    EXPECT_EQ(p.header("x-cache-key"), h.header("x-cache-key")) << t;
    if (p.status == h.status && p.body == h.body) ++same;
  }
  EXPECT_EQ(same, std::size(targets));

  // A POST to a GET route: 405 with Allow, like hitcost-server.
  HttpResponse h = hc.post("/page/1", "x"), p = pc.post("/page/1", "x");
  EXPECT_EQ(h.status, 405);
  EXPECT_EQ(p.status, 405);
  EXPECT_EQ(p.header("allow"), h.header("allow"));
  EXPECT_EQ(p.body, h.body);

  // A replay's write and invalidation, on each backend's own page: PUT stores it (the next GET
  // hits), DELETE removes it (the next GET misses), both 200 with an empty body.
  size_t writes_checked = 0;
  for (auto [conn, id] : {std::pair{&hc, 41}, std::pair{&pc, 42}}) {
    const std::string target = "/page/" + std::to_string(id) + "?rows=5";
    auto send = [&](const char* method) {
      conn->send_raw(std::string(method) + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
      return conn->read_response();
    };
    const HttpResponse put = send("PUT");
    EXPECT_EQ(put.status, 200) << id << ": " << put.body;
    EXPECT_EQ(put.body, "");
    EXPECT_EQ(conn->get(target).header("x-cache"), "hit") << id;
    EXPECT_EQ(send("DELETE").status, 200) << id;
    EXPECT_EQ(send("DELETE").status, 200) << id;  // absent already
    EXPECT_EQ(conn->get(target).header("x-cache"), "miss") << id;
    ++writes_checked;
  }
  EXPECT_EQ(writes_checked, 2u);
  expect_clean_stop(php);
}

// A short reason in plain text, no PHP warning page.
void expect_plain_reason(const HttpResponse& r, int status, const std::string& prefix) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.body.rfind(prefix, 0), 0u) << r.body;
  EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.body.find('<'), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("Warning"), std::string::npos) << r.body;
  EXPECT_LT(r.body.size(), 400u) << r.body;
}

TEST(PhpBackend, UnreachableMemcachedOrOriginIsA503WithAReason) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", "php-memcached"});
  for (const char* ext : {"memcached", "memcache"}) {
    SCOPED_TRACE(ext);
    mc.start_again();
    // The origin: a port nothing listens on.
    PhpStackProcess no_origin({"--extension", ext, "--memcached", mc.address(), "--origin",
                               "http://127.0.0.1:" + std::to_string(free_loopback_port())});
    expect_plain_reason(http_get(no_origin.port(), "/page/11?rows=3"), 503, "origin unreachable: ");
    expect_clean_stop(no_origin);

    PhpStackProcess php({"--extension", ext, "--memcached", mc.address(), "--origin", origin_url(server)});
    ASSERT_EQ(http_get(php.port(), "/page/12?rows=3").status, 200);  // the persistent connection is up
    mc.kill_now();
    expect_plain_reason(http_get(php.port(), "/page/12?rows=3"), 503, "memcached unavailable: ");
    expect_plain_reason(http_get(php.port(), "/page/13?rows=3"), 503, "memcached unavailable: ");
    expect_clean_stop(php);
  }
}

// memcached's count of connections accepted since it started.
uint64_t total_connections(int mc_port) {
  std::string stats = memcached_raw(mc_port, "stats\r\n", "END\r\n");
  const std::string name = "STAT total_connections ";
  auto at = stats.find(name);
  if (at == std::string::npos) throw std::runtime_error("no total_connections in: " + stats);
  return std::stoull(stats.substr(at + name.size()));
}

// A hit must cost a get, not a connect: the worker keeps its memcached connection
// (Memcached's persistent id, Memcache's pconnect) across requests.
TEST(PhpBackend, HitsReuseTheWorkersMemcachedConnection) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address(), "--flags", "php-memcached"});
  size_t hits = 0;
  for (const char* ext : {"memcached", "memcache"}) {
    SCOPED_TRACE(ext);
    PhpStackProcess php({"--extension", ext, "--workers", "1", "--memcached", mc.address(), "--origin",
                         origin_url(server), "--namespace", std::string("conn-") + ext});
    HttpConnection pc(php.port());
    EXPECT_EQ(pc.get("/page/1?rows=3").header("x-cache"), "miss");  // the worker connects here
    uint64_t before = total_connections(mc.port());
    for (int i = 0; i < 20; ++i)
      if (pc.get("/page/1?rows=3").header("x-cache") == "hit") ++hits;
    // One new connection: the stats probe that reads the figure.
    EXPECT_EQ(total_connections(mc.port()) - before, 1u);
    expect_clean_stop(php);
  }
  EXPECT_EQ(hits, 40u);
}

// --- the stack's own life cycle --------------------------------------------------------

// The first CPU this test may run on (a container may not offer CPU 0).
int first_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) return c;
  return 0;
}

TEST(PhpBackend, StoppingTheStackLeavesNoProcess) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address()});
  const std::string cpu = std::to_string(first_allowed_cpu());
  const std::vector<std::string> args = {"--memcached", mc.address(), "--origin", origin_url(server),
                                         "--workers",   "2",          "--cpus",   cpu};
  size_t stopped = 0;
  for (int how : {SIGTERM, SIGINT, 0}) {  // 0: the --time-limit
    SCOPED_TRACE(how == 0 ? "time limit" : how == SIGINT ? "INT" : "TERM");
    PhpStackProcess php(args, how == 0 ? 3 : 240);
    // fpm master + 2 workers, nginx master + 1 worker, all running and pinned.
    ASSERT_EQ(php.printed_pids().size(), 5u) << php.stderr_text();
    for (pid_t p : php.printed_pids()) {
      EXPECT_TRUE(process_running(p)) << p;
      std::ifstream status("/proc/" + std::to_string(p) + "/status");
      std::string line, cpus;
      while (std::getline(status, line))
        if (line.rfind("Cpus_allowed_list:", 0) == 0) cpus = line.substr(line.find_last_of(" \t") + 1);
      EXPECT_EQ(cpus, cpu) << "pid " << p << " not pinned by --cpus";
    }
    EXPECT_EQ(http_get(php.port(), "/page/1?rows=1").status, 200);
    std::vector<pid_t> left = how == 0 ? php.wait_exit(20000) : php.stop(how);
    EXPECT_TRUE(left.empty()) << "still running: " << pids_text(left);
    if (left.empty()) ++stopped;
  }
  EXPECT_EQ(stopped, 3u);
}

}  // namespace
