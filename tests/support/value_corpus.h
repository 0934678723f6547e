#pragma once
// A corpus of values built by hand to be hard to render alike — nested maps, int keys, every
// kind of double (-0, 1e300, 5e-324, 1/3), empty arrays, long, Unicode and non-UTF-8 strings, a
// plain string — encoded as PHP's php-memcached writes them, with two values that do not decode
// among them (left out, so the good ones are numbered without gaps). For the tests that serve
// it at GET /value/{n}: hitcost-server's (tests/server/value_route_test.cpp) and PHP's
// (tests/php/php_value_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"
#include "corpus/tree_html.h"
#include "corpus/value.h"

namespace hitcost::testing::value_corpus {

using namespace hitcost::corpus;

inline Value str(std::string s) { return make_string(std::move(s)); }
// A map with string keys (canonical integers among them become int keys, as in PHP).
inline Value obj(std::vector<std::pair<std::string, Value>> kv) {
  Fields fields;
  for (auto& [k, v] : kv) fields.emplace_back(make_key(k), std::move(v));
  return make_map(std::move(fields));
}

// The good values, in corpus order: the trees the server must render, and how each is stored.
struct GoodValue {
  std::string what;
  std::string strategy;  // how the "application" wrote it (php-memcached scheme); "" = a plain string
  Value tree;
};

inline std::vector<GoodValue> good_values() {
  std::vector<Value> rows;
  for (int i = 0; i < 40; ++i)
    rows.push_back(obj({{"id", make_int(i)},
                        {"title", str("Row " + std::to_string(i) + " & <more>")},
                        {"score", make_real(i * 1.5)}}));
  std::string long_text;
  while (long_text.size() < 20000) long_text += "The quick brown fox & the <lazy> dog, \"again\". ";
  return {
      {"nested maps", "php-default",
       obj({{"user",
             obj({{"id", make_int(42)}, {"name", str("Ada <admin>")}, {"roles", make_list({str("a"), str("b")})}})},
            {"settings",
             obj({{"theme", str("dark")}, {"flags", obj({{"beta", make_bool(true)}, {"off", make_null()}})}})},
            {"rows", make_list(std::move(rows))}})},
      {"list of ints", "php-default",
       make_list({make_int(1), make_int(-2), make_int(std::numeric_limits<int64_t>::min()),
                  make_int(std::numeric_limits<int64_t>::max())})},
      {"int keys", "php-default",
       make_map({{make_int_key(5), str("five")},
                 {make_int_key(-3), str("minus three")},
                 {make_int_key(100), str("hundred")},
                 {make_key("x"), str("ex")}})},
      {"floats", "php-default",
       obj({{"pi", make_real(3.141592653589793)},
            {"neg_zero", make_real(-0.0)},
            {"big", make_real(1e300)},
            {"tiny", make_real(5e-324)},
            {"third", make_real(1.0 / 3)}})},
      {"empty arrays", "php-default",
       obj({{"empty", make_list({})},
            {"nested", obj({{"also", make_list({})}})},
            {"lists", make_list({make_list({}), make_list({})})}})},
      {"empty array alone", "php-default", make_list({})},
      {"long string", "php-default", obj({{"body", str(long_text)}})},
      {"unicode", "php-default",
       obj({{"名前", str("日本語テキスト")}, {"emoji", str("✓ 🎉")}, {"accent", str("héllo wörld")}})},
      {"plain string", "", str("<p>Hello & \"goodbye\"</p>")},
      {"igbinary", "struct:igbinary",
       obj({{"kind", str("igbinary")},
            {"items", make_list({make_int(1), make_real(2.5), str("three"), make_bool(false)})}})},
      {"json", "struct:json", obj({{"kind", str("json")}, {"ok", make_bool(true)}, {"7", str("seven")}})},
      // Not UTF-8: JSON cannot hold it, so struct:json leaves it unstored (value_encode_errors).
      {"non-UTF-8 string", "php-default", obj({{"bin", str(std::string("\xff\xfe\x00raw", 6))}})},
  };
}
constexpr size_t kNonUtf8 = 11;  // its index among the good values

inline std::string rendered(const Value& tree) {
  std::string html;
  render_tree_html(tree, html);
  return html;
}

inline CorpusRecord record_of(const GoodValue& g, size_t i) {
  CorpusRecord r;
  r.key = "app:value:" + std::to_string(i);
  if (g.strategy.empty()) {  // php-memcached stores a string as it is, flags 0
    r.value = g.tree.s;
    return r;
  }
  auto st = parse_strategy(g.strategy, FlagScheme::php_memcached);
  EXPECT_TRUE(st.ok()) << g.strategy;
  std::string plain;
  EXPECT_TRUE(encode_tree(st->serializer, g.tree, plain).ok()) << g.what;
  EncodedValue ev = wrap_payload(*st, std::move(plain));
  r.value = std::move(ev.bytes);
  r.flags = ev.flags;
  return r;
}

// The corpus every test serves: the good values with two bad ones among them (left out, so the
// good ones after them are numbered without gaps).
inline std::string write_corpus(const std::string& path, const std::vector<GoodValue>& good) {
  auto w = CorpusWriter::create(path);
  EXPECT_TRUE(w.ok());
  for (size_t i = 0; i < good.size(); ++i) {
    if (i == 4) {  // serialize() text cut short, flagged as PHP serialized: parse_error
      EXPECT_TRUE(w->add(CorpusRecord{"app:corrupt", 4, 0, 0, "a:2:{i:0;s:3:\"abc"}).ok());
    }
    if (i == 9) {  // flags 1 = a PHP long, not an array nor a string: unknown_flags
      EXPECT_TRUE(w->add(CorpusRecord{"app:long", 1, 0, 0, "12345"}).ok());
    }
    EXPECT_TRUE(w->add(record_of(good[i], i)).ok());
  }
  Manifest m;
  m.source = "memcached:127.0.0.1:11211";
  m.nodes = {"127.0.0.1:11211"};
  EXPECT_TRUE(w->finish(m).ok());
  return path;
}

}  // namespace hitcost::testing::value_corpus
