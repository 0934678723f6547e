// hitcost <-> PHP through a real memcached, with PHP's own extensions as the reference
// readers and writers of the two PHP flag schemes (FORMATS.md).
//   forward: hitcost encodes every strategy under php-memcache and php-memcached, plants
//            the bytes with a raw `set`, and a PHP script reads each key with the matching
//            extension and prints serialize() of what it got (HTML: the string itself).
//            serialize() is a canonical form: hitcost's own encode_php must match it.
//   reverse: PHP writes arrays (serialize, JSON, msgpack, igbinary) and HTML strings,
//            compressed (zlib, and FastLZ as a stock install does) and not, with each
//            extension; hitcost fetches them raw and must decode the page. igbinary is
//            compared byte for byte with hitcost's encoder.
//   Pages below and above 64 KiB, so that both FastLZ levels are exercised both ways.
// php-cli, php-memcache, php-memcached, php-msgpack and php-igbinary are test
// dependencies (scripts/install-deps.sh): when they are missing the test fails, it does
// not skip.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"
#include "tests/codecs/test_pages.h"
#include "tests/support/memcached_process.h"

namespace hitcost {
namespace {

namespace fs = std::filesystem;
using hitcost::testing::memcached_raw;
using hitcost::testing::MemcachedProcess;

// Reads each key listed in the manifest ("memcache|memcached KEY") and prints
// "KEY LEN\n<serialize(value) or the HTML string>\n". JSON and msgpack strings under
// php-memcache are recognised by hitcost's user flags, as a PHP app sharing the cache would.
constexpr const char* kReaderPhp = R"PHP(<?php
[$port, $manifest] = [(int)$argv[1], $argv[2]];
$mc = new Memcache(); $mc->addServer('127.0.0.1', $port);
$md = new Memcached(); $md->addServer('127.0.0.1', $port);
$md->setOption(Memcached::OPT_SERIALIZER, Memcached::SERIALIZER_JSON_ARRAY);
foreach (file($manifest, FILE_IGNORE_NEW_LINES) as $line) {
  [$ext, $key] = explode(' ', $line);
  if ($ext === 'memcache') {
    $flags = 0;
    $v = $mc->get($key, $flags);
    if ($v === false) { $out = "GET FAILED flags=$flags"; }
    elseif ($flags & 0x10000) { $out = serialize(json_decode($v, true, 512, JSON_THROW_ON_ERROR)); }
    elseif ($flags & 0x20000) { $out = serialize(msgpack_unpack($v)); }
    else { $out = is_string($v) ? $v : serialize($v); }
  } else {
    $v = $md->get($key);
    if ($v === false) { $out = 'GET FAILED code=' . $md->getResultCode() . ' ' . $md->getResultMessage(); }
    else { $out = is_string($v) ? $v : serialize($v); }
  }
  echo $key, ' ', strlen($out), "\n", $out, "\n";
}
)PHP";

// Writes every way a PHP app would, for pages "big" and "small" (serialize text and HTML
// come from hitcost in files), and prints one "KEY" line per value written.
constexpr const char* kWriterPhp = R"PHP(<?php
[$port, $dir] = [(int)$argv[1], $argv[2]];
$mc = new Memcache(); $mc->addServer('127.0.0.1', $port);
$zlib = new Memcached(); $zlib->addServer('127.0.0.1', $port);
$zlib->setOption(Memcached::OPT_COMPRESSION_TYPE, Memcached::COMPRESSION_ZLIB);
$plain = new Memcached(); $plain->addServer('127.0.0.1', $port);
$plain->setOption(Memcached::OPT_COMPRESSION, false);
$stock = new Memcached(); $stock->addServer('127.0.0.1', $port);  // the ini's defaults: php + FastLZ
$stock_igbinary = new Memcached(); $stock_igbinary->addServer('127.0.0.1', $port);
$stock_igbinary->setOption(Memcached::OPT_SERIALIZER, Memcached::SERIALIZER_IGBINARY);
function put($ok, $key) { if (!$ok) { fwrite(STDERR, "set $key failed\n"); exit(1); } echo $key, "\n"; }
foreach (['big', 'small', 'huge'] as $name) {
  $page = unserialize(file_get_contents("$dir/$name.ser"));
  $html = file_get_contents("$dir/$name.html");
  if (!is_array($page)) { fwrite(STDERR, "unserialize failed\n"); exit(1); }
  put($mc->set("mc.php.$name", $page, 0), "mc.php.$name");
  put($mc->set("mc.phpz.$name", $page, MEMCACHE_COMPRESSED), "mc.phpz.$name");
  put($mc->set("mc.html.$name", $html, 0), "mc.html.$name");
  put($mc->set("mc.htmlz.$name", $html, MEMCACHE_COMPRESSED), "mc.htmlz.$name");
  put($mc->set("mc.json.$name", json_encode($page), 0x10000), "mc.json.$name");
  put($mc->set("mc.jsonz.$name", json_encode($page), 0x10000 | MEMCACHE_COMPRESSED), "mc.jsonz.$name");
  put($mc->set("mc.msgpack.$name", msgpack_pack($page), 0x20000), "mc.msgpack.$name");
  put($mc->set("mc.msgpackz.$name", msgpack_pack($page), 0x20000 | MEMCACHE_COMPRESSED), "mc.msgpackz.$name");
  foreach (['zlib' => $zlib, 'plain' => $plain] as $mode => $md) {
    foreach (['php' => Memcached::SERIALIZER_PHP, 'json' => Memcached::SERIALIZER_JSON_ARRAY,
              'msgpack' => Memcached::SERIALIZER_MSGPACK, 'igbinary' => Memcached::SERIALIZER_IGBINARY]
             as $sname => $ser) {
      $md->setOption(Memcached::OPT_SERIALIZER, $ser);
      put($md->set("md.$sname.$mode.$name", $page), "md.$sname.$mode.$name");
    }
    put($md->set("md.html.$mode.$name", $html), "md.html.$mode.$name");
  }
  put($stock->set("md.fastlz.html.$name", $html), "md.fastlz.html.$name");
  put($stock->set("md.fastlz.php.$name", $page), "md.fastlz.php.$name");
  put($stock_igbinary->set("md.fastlz.igbinary.$name", $page), "md.fastlz.igbinary.$name");
}
)PHP";

class PhpInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hitcost-php-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    int rc =
        run("php -r 'exit(extension_loaded(\"memcache\") && extension_loaded(\"memcached\") && "
            "extension_loaded(\"msgpack\") && extension_loaded(\"igbinary\") && Memcached::HAVE_MSGPACK && "
            "Memcached::HAVE_JSON && Memcached::HAVE_IGBINARY ? 0 : 3);'",
            dir_ + "/probe.out");
    ASSERT_EQ(rc, 0) << "PHP interop needs php-cli with the memcache, memcached (with JSON, msgpack and "
                        "igbinary support), msgpack and igbinary extensions: run scripts/install-deps.sh "
                        "(Debian: apt-get install php-cli php-memcache php-memcached php-msgpack php-igbinary)";
    mc_ = std::make_unique<MemcachedProcess>();
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  // Runs a shell command with stdout to `out_path`; returns the exit status.
  static int run(const std::string& cmd, const std::string& out_path) {
    int st = std::system((cmd + " > '" + out_path + "' 2>&1").c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  static std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  void write(const std::string& name, const std::string& data) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << data;
  }

  void plant(const std::string& key, const EncodedValue& v) {
    std::string cmd = "set " + key + " " + std::to_string(v.flags) + " 0 " + std::to_string(v.bytes.size()) + "\r\n" +
                      v.bytes + "\r\n";
    ASSERT_EQ(memcached_raw(mc_->port(), cmd, "\r\n"), "STORED\r\n") << key;
  }

  // Raw `get`: returns false when the key is absent.
  bool fetch(const std::string& key, std::string& bytes, uint32_t& flags) {
    std::string r = memcached_raw(mc_->port(), "get " + key + "\r\n", "END\r\n");
    if (r.rfind("VALUE ", 0) != 0) return false;
    size_t eol = r.find("\r\n");
    std::istringstream head(r.substr(6, eol - 6));
    std::string k;
    size_t len = 0;
    head >> k >> flags >> len;
    EXPECT_EQ(k, key);
    EXPECT_GE(r.size(), eol + 2 + len + 7) << "short reply for " << key;
    bytes = r.substr(eol + 2, len);
    EXPECT_EQ(r.substr(eol + 2 + len), "\r\nEND\r\n") << key;
    return true;
  }

  std::string dir_;
  std::unique_ptr<MemcachedProcess> mc_;
};

// A short description of where two long strings first differ (gtest would print both).
std::string first_difference(const std::string& got, const std::string& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "equal";
  size_t from = i < 40 ? 0 : i - 40;
  return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size()) + ", first difference at " +
         std::to_string(i) + "\n  got:  ..." + got.substr(from, 100) + "\n  want: ..." + want.substr(from, 100);
}

struct Planted {
  std::string key, expect;
  bool compressed;
};

TEST_F(PhpInterop, PhpReadsWhatHitcostWrites) {
  const std::vector<std::pair<const char*, Page>> pages = {{"big", generate_page({11, 50, 4, 1.0})},
                                                           {"tricky", testing::tricky_page()},
                                                           {"small", generate_page({12, 3, 4, 1.0})},
                                                           {"huge", generate_page({13, 400, 4, 1.0})}};
  ASSERT_GE(encode_page(SerializerId::igbinary, pages.back().second).size(), 65536u) << "FastLZ level 2 untested";
  std::vector<Planted> planted;
  std::string manifest;
  int compressed_count = 0, fastlz_levels[3] = {0, 0, 0};
  for (FlagScheme scheme : {FlagScheme::php_memcache, FlagScheme::php_memcached}) {
    const bool md = scheme == FlagScheme::php_memcached;
    const char* ext = md ? "memcached" : "memcache";
    std::vector<std::string> reps = {"html", "struct:php", "struct:json", "struct:msgpack"};
    std::vector<std::string> comps = {"", "+zlib", "+zlib:1", "+zlib:9"};
    if (md) {
      reps.push_back("struct:igbinary");
      comps.insert(comps.end(), {"+fastlz", "+fastlz:1", "+fastlz:2"});
    }
    for (const std::string& rep : reps) {
      for (const std::string& comp : comps) {
        auto st = parse_strategy(rep + comp, scheme);
        ASSERT_TRUE(st.ok()) << st.error().message;
        for (bool forced : {false, true}) {
          if (forced) st->rule.threshold_bytes = 0;
          for (const auto& [pname, page] : pages) {
            std::string html = render_page(page);
            EncodedValue v = encode_value(*st, page, html);
            std::string key = std::string(ext) + "." + st->name() + (forced ? ".forced." : ".default.") + pname;
            for (char& c : key)
              if (c == ':' || c == '+') c = '_';
            plant(key, v);
            std::string scratch;
            auto u = unwrap_value(v.bytes, v.flags, scheme, scratch);
            ASSERT_TRUE(u.ok());
            bool z = u->compressor != CompressorId::none;
            compressed_count += z;
            if (u->compressor == CompressorId::fastlz) {  // the level is in the block's first byte
              const int level = (static_cast<unsigned char>(v.bytes[4]) >> 5) + 1;
              ++fastlz_levels[level == 2 ? 2 : 1];
            }
            planted.push_back({key, st->rep == Representation::html ? html : encode_page(SerializerId::php, page), z});
            manifest += std::string(ext) + " " + key + "\n";
          }
        }
      }
    }
  }
  ASSERT_GT(compressed_count, 40);  // both forced and default-rule compression happened
  EXPECT_GT(fastlz_levels[1], 10) << "FastLZ level 1 values";
  EXPECT_GT(fastlz_levels[2], 10) << "FastLZ level 2 values";
  write("reader.php", kReaderPhp);
  write("manifest", manifest);
  int rc = run("php " + dir_ + "/reader.php " + std::to_string(mc_->port()) + " " + dir_ + "/manifest",
               dir_ + "/reader.out");
  std::string out = slurp(dir_ + "/reader.out");
  ASSERT_EQ(rc, 0) << out.substr(0, 2000);
  size_t at = 0, read_back = 0;
  for (const Planted& p : planted) {
    size_t eol = out.find('\n', at);
    ASSERT_NE(eol, std::string::npos) << "PHP output ended before " << p.key << "\n" << out.substr(at, 500);
    std::istringstream head(out.substr(at, eol - at));
    std::string key;
    size_t len = 0;
    head >> key >> len;
    ASSERT_EQ(key, p.key) << out.substr(at, 300);
    ASSERT_LE(eol + 1 + len, out.size());
    std::string got = out.substr(eol + 1, len);
    EXPECT_TRUE(got == p.expect) << p.key << (p.compressed ? " (compressed)" : "") << ": "
                                 << first_difference(got, p.expect);
    at = eol + 1 + len + 1;
    ++read_back;
  }
  EXPECT_EQ(read_back, planted.size());
  EXPECT_EQ(planted.size(), 4u * 2 * (4 * 4 + 5 * 7));  // pages x forced x (memcache + memcached strategies)
}

TEST_F(PhpInterop, HitcostReadsWhatPhpWrites) {
  const Page big = generate_page({21, 50, 8, 1.0});
  const Page small = testing::tricky_page();
  const Page huge = generate_page({22, 400, 8, 1.0});
  ASSERT_GE(encode_page(SerializerId::php, huge).size(), 65536u);
  for (const auto& [name, page] : {std::pair{"big", &big}, {"small", &small}, {"huge", &huge}}) {
    write(std::string(name) + ".ser", encode_page(SerializerId::php, *page));
    write(std::string(name) + ".html", render_page(*page));
  }
  write("writer.php", kWriterPhp);
  int rc = run("php " + dir_ + "/writer.php " + std::to_string(mc_->port()) + " " + dir_, dir_ + "/writer.out");
  std::string out = slurp(dir_ + "/writer.out");
  ASSERT_EQ(rc, 0) << out;
  std::istringstream keys(out);
  std::string key;
  int checked = 0, compressed = 0, fastlz = 0, igbinary_exact = 0, zlib_by_library = 0, json_by_decoder = 0;
  while (std::getline(keys, key)) {
    const Page& page = key.ends_with(".big") ? big : key.ends_with(".huge") ? huge : small;
    const FlagScheme scheme = key.starts_with("mc.") ? FlagScheme::php_memcache : FlagScheme::php_memcached;
    std::string bytes, scratch;
    uint32_t flags = 0;
    ASSERT_TRUE(fetch(key, bytes, flags)) << key;
    auto u = unwrap_value(bytes, flags, scheme, scratch);
    ASSERT_TRUE(u.ok()) << key << " flags " << flags << ": " << u.error().message;
    compressed += u->compressor != CompressorId::none;
    if (u->compressor == CompressorId::zlib) {
      // PHP's zlib (with and without a length prefix) inflates alike through every library.
      for (const InflateRow& lib : kInflateLibraries) {
        std::string other;
        auto again = unwrap_value(bytes, flags, scheme, other, Decoders{.inflate = lib.id});
        ASSERT_TRUE(again.ok()) << key << " " << lib.name << ": " << again.error().message;
        EXPECT_TRUE(again->payload == u->payload) << key << " " << lib.name;
        ++zlib_by_library;
      }
    }
    if (key.starts_with("md.fastlz.") && !key.ends_with(".small")) {
      ASSERT_EQ(u->compressor, CompressorId::fastlz) << key << " flags " << flags;
      const int level = (static_cast<unsigned char>(bytes[4]) >> 5) + 1;
      EXPECT_EQ(level, key.ends_with(".huge") ? 2 : 1) << key;
      ++fastlz;
    }
    if (key == "md.fastlz.php.big") {
      EXPECT_EQ(flags, 0x54u) << "a stock install's serialize + FastLZ";
    }
    if (key.starts_with("md.igbinary.") || key.starts_with("md.fastlz.igbinary.")) {
      // PHP's igbinary of the array it unserialized: hitcost's encoder, byte for byte.
      EXPECT_EQ(u->serializer, SerializerId::igbinary) << key;
      EXPECT_TRUE(u->payload == encode_page(SerializerId::igbinary, page))
          << key << ": " << first_difference(std::string(u->payload), encode_page(SerializerId::igbinary, page));
      ++igbinary_exact;
    }
    if (key.find(".html") != std::string::npos) {
      EXPECT_EQ(u->rep, Representation::html) << key;
      EXPECT_TRUE(u->payload == render_page(page))
          << key << ": " << first_difference(std::string(u->payload), render_page(page));
    } else {
      ASSERT_EQ(u->rep, Representation::structured) << key << " flags " << flags;
      for (const PageDecoder& dec : page_decoders()) {
        if (dec.serializer != u->serializer) continue;
        auto p = decode_page(dec.serializer, u->payload, dec.decoders);
        ASSERT_TRUE(p.ok()) << key << " flags " << flags << " " << dec.name << ": " << p.error().message << "\n"
                            << std::string(u->payload.substr(0, 300));
        EXPECT_TRUE(*p == page) << key << " " << dec.name << ": "
                                << first_difference(encode_page(SerializerId::php, *p),
                                                    encode_page(SerializerId::php, page));
        json_by_decoder += dec.serializer == SerializerId::json;
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3 * (8 + 10 + 3));
  EXPECT_GE(compressed, 16);
  EXPECT_EQ(fastlz, 2 * 3);
  EXPECT_EQ(igbinary_exact, 3 * 3);
  EXPECT_GE(zlib_by_library, 3 * 6);  // each library on at least 6 zlib values PHP wrote
  EXPECT_EQ(zlib_by_library % 3, 0);
  EXPECT_GE(json_by_decoder, 3 * 3);  // each JSON decoder on PHP's JSON values
}

}  // namespace
}  // namespace hitcost
