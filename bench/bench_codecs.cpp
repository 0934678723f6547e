// Microbenchmarks of every step of the hit path, per serializer x compressor x page size.
// Names (read as a table):
//   copy_html/N                  baseline: copy the pre-rendered HTML into a reused string
//   render/N                     Page -> HTML
//   encode/<ser>/N, decode/<ser>/N           serializer alone; JSON once per decoder library,
//                                decode/json:<decoder>/N (codecs/decoders.h: simdjson, hitcost, nlohmann)
//   deflate/<comp>/<payload>/N, inflate/<comp>/<payload>/N   compressor alone, payload
//                                = html | json | msgpack | php | igbinary (inflate: exact-size path);
//                                zlib once per library, inflate/zlib:<library>/<payload>/N
//                                (codecs/inflate.h: zlib, libdeflate, isal)
//   unwrap/<strategy>/N          flags + inflate into a reused scratch (the fetch side)
//   hit/<strategy>/N             unwrap -> inflate -> decode -> render (html: unwrap + copy)
//   store/<strategy>/N           encode_value (the miss side)
// Strategies use the native scheme with compression forced (threshold 0) so each compressor
// is measured; memcache:<strategy> rows use php-memcache's zlib without a length prefix.
// Every benchmark checks its round trip once before timing and skips with an error if
// it fails. counters["bytes"] = bytes of the value the step reads (stored or plain).
#include <benchmark/benchmark.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/compressor.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"

namespace hitcost {
namespace {

struct Fixture {
  uint32_t rows;
  Page page;
  std::string html;
};

const Fixture& fixture(uint32_t rows) {
  static std::vector<Fixture*> all;
  for (Fixture* f : all) {
    if (f->rows == rows) return *f;
  }
  auto* f = new Fixture{rows, generate_page({1000 + rows, rows, 42, 1.0}), {}};
  f->html = render_page(f->page);
  all.push_back(f);  // lives for the program
  return *f;
}

std::vector<SerializerId> byte_formats() { return {kSerializers.begin(), kSerializers.end()}; }

std::string payload_of(const Fixture& f, SerializerId s) {
  return s == SerializerId::none ? f.html : encode_page(s, f.page);
}

void bytes_counter(benchmark::State& state, size_t n) {
  state.counters["bytes"] = benchmark::Counter(static_cast<double>(n));
}

void bm_copy_html(benchmark::State& state, uint32_t rows) {
  const Fixture& f = fixture(rows);
  std::string out;
  for (auto _ : state) {
    out.assign(f.html);
    benchmark::DoNotOptimize(out.data());
  }
  bytes_counter(state, f.html.size());
}

void bm_render(benchmark::State& state, uint32_t rows) {
  const Fixture& f = fixture(rows);
  std::string out;
  for (auto _ : state) {
    out.clear();
    render_page(f.page, out);
    benchmark::DoNotOptimize(out.data());
  }
  bytes_counter(state, out.size());
}

void bm_encode(benchmark::State& state, SerializerId s, uint32_t rows) {
  const Fixture& f = fixture(rows);
  std::string out;
  encode_page_into(s, f.page, out);  // the call the loop times, checked once
  auto back = decode_page(s, out);
  if (!back || *back != f.page) return state.SkipWithError("round trip failed");
  for (auto _ : state) {
    out.clear();
    encode_page_into(s, f.page, out);
    benchmark::DoNotOptimize(out.data());
  }
  bytes_counter(state, out.size());
}

void bm_decode(benchmark::State& state, SerializerId s, Decoders d, uint32_t rows) {
  const Fixture& f = fixture(rows);
  std::string bytes = encode_page(s, f.page);
  auto check = decode_page(s, bytes, d);
  if (!check || *check != f.page) return state.SkipWithError("round trip failed");
  Page into;  // reused, as the server's thread reuses its page (decode_page_into)
  for (auto _ : state) {
    if (!decode_page_into(s, bytes, into, d)) return state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(into.rows.data());
  }
  bytes_counter(state, bytes.size());
}

void bm_deflate(benchmark::State& state, CompressorId c, SerializerId payload, uint32_t rows) {
  std::string plain = payload_of(fixture(rows), payload), packed, back;
  if (!compress(c, 0, plain, packed).ok() || !decompress_exact(c, packed, plain.size(), back).ok() || back != plain) {
    return state.SkipWithError("round trip failed");
  }
  for (auto _ : state) {
    packed.clear();
    benchmark::DoNotOptimize(compress(c, 0, plain, packed));
  }
  bytes_counter(state, plain.size());
}

void bm_inflate(benchmark::State& state, CompressorId c, InflateLibrary lib, SerializerId payload, uint32_t rows) {
  std::string plain = payload_of(fixture(rows), payload), packed, out;
  if (!compress(c, 0, plain, packed).ok() || !decompress_exact(c, packed, plain.size(), out, lib).ok() ||
      out != plain) {
    return state.SkipWithError("round trip failed");
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(decompress_exact(c, packed, plain.size(), out, lib));
    benchmark::DoNotOptimize(out.data());
  }
  bytes_counter(state, packed.size());
}

struct Prepared {
  Strategy st;
  EncodedValue v;
};

bool prepare(const std::string& text, FlagScheme scheme, const Fixture& f, Prepared& p, benchmark::State& state) {
  auto st = parse_strategy(text, scheme);
  if (!st) {
    state.SkipWithError(st.error().message.c_str());
    return false;
  }
  if (!find_preset(text)) st->rule.threshold_bytes = 0;  // a preset keeps its rule: it is what PHP writes
  p.st = *st;
  p.v = encode_value(p.st, f.page, f.html);
  return true;
}

// One hit: what the server does with a fetched value. Returns false on any error.
bool serve(const Prepared& p, std::string& scratch, std::string& out) {
  auto u = unwrap_value(p.v.bytes, p.v.flags, p.st.scheme, scratch);
  if (!u) return false;
  out.clear();
  if (u->rep == Representation::html) {
    out.append(u->payload);
    return true;
  }
  auto page = decode_page(u->serializer, u->payload);
  if (!page) return false;
  render_page(*page, out);
  return true;
}

void bm_hit(benchmark::State& state, std::string text, FlagScheme scheme, uint32_t rows) {
  const Fixture& f = fixture(rows);
  Prepared p;
  if (!prepare(text, scheme, f, p, state)) return;
  std::string scratch, out;
  if (!serve(p, scratch, out) || out != f.html) return state.SkipWithError("hit path round trip failed");
  for (auto _ : state) {
    if (!serve(p, scratch, out)) return state.SkipWithError("hit failed");
    benchmark::DoNotOptimize(out.data());
  }
  bytes_counter(state, p.v.bytes.size());
}

void bm_unwrap(benchmark::State& state, std::string text, FlagScheme scheme, uint32_t rows) {
  const Fixture& f = fixture(rows);
  Prepared p;
  if (!prepare(text, scheme, f, p, state)) return;
  std::string scratch;
  auto u = unwrap_value(p.v.bytes, p.v.flags, scheme, scratch);
  std::string plain = p.st.rep == Representation::html ? f.html : encode_page(p.st.serializer, f.page);
  if (!u || u->payload != plain) return state.SkipWithError("unwrap round trip failed");
  for (auto _ : state) {
    auto r = unwrap_value(p.v.bytes, p.v.flags, scheme, scratch);
    if (!r) return state.SkipWithError("unwrap failed");
    benchmark::DoNotOptimize(r);
  }
  bytes_counter(state, p.v.bytes.size());
}

void bm_store(benchmark::State& state, std::string text, FlagScheme scheme, uint32_t rows) {
  const Fixture& f = fixture(rows);
  Prepared p;
  if (!prepare(text, scheme, f, p, state)) return;
  std::string scratch, out;
  if (!serve(p, scratch, out) || out != f.html) return state.SkipWithError("store round trip failed");
  for (auto _ : state) {
    auto v = encode_value(p.st, f.page, f.html);
    benchmark::DoNotOptimize(v.bytes.data());
  }
  bytes_counter(state, p.v.bytes.size());
}

// Names are built by appending: GCC 12 -O3 warns falsely (-Wrestrict, bug 105329) on
// chains of std::string operator+.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s.append(p);
  return s;
}

int register_all() {
  using benchmark::RegisterBenchmark;
  for (uint32_t rows : {5u, 50u, 500u}) {
    const std::string n = cat({"/", std::to_string(rows)});
    RegisterBenchmark(cat({"copy_html", n}).c_str(), bm_copy_html, rows);
    RegisterBenchmark(cat({"render", n}).c_str(), bm_render, rows);
    for (SerializerId s : byte_formats()) {
      RegisterBenchmark(cat({"encode/", to_string(s), n}).c_str(), bm_encode, s, rows);
    }
    for (const PageDecoder& d : page_decoders()) {
      RegisterBenchmark(cat({"decode/", d.name, n}).c_str(), bm_decode, d.serializer, d.decoders, rows);
    }
    for (const CompressorCodec& c : kCompressorCodecs) {
      std::vector<SerializerId> payloads = byte_formats();
      payloads.insert(payloads.begin(), SerializerId::none);
      for (SerializerId payload : payloads) {
        const std::string what = cat({c.name, "/", payload == SerializerId::none ? "html" : to_string(payload)});
        RegisterBenchmark(cat({"deflate/", what, n}).c_str(), bm_deflate, c.id, payload, rows);
        if (c.id != CompressorId::zlib) {
          RegisterBenchmark(cat({"inflate/", what, n}).c_str(), bm_inflate, c.id, kDefaultInflate, payload, rows);
          continue;
        }
        for (const InflateRow& lib : kInflateLibraries) {
          const std::string with = cat({"zlib:", lib.name, "/", payload == SerializerId::none ? "html" : to_string(payload)});
          RegisterBenchmark(cat({"inflate/", with, n}).c_str(), bm_inflate, c.id, lib.id, payload, rows);
        }
      }
    }
    std::vector<std::string> reps = {"html"};
    for (const SerializerCodec& s : kSerializerCodecs) reps.push_back(cat({"struct:", s.name}));
    std::vector<std::string> comps = {""};
    for (const CompressorCodec& c : kCompressorCodecs) comps.push_back(cat({"+", c.name}));
    for (const std::string& rep : reps) {
      for (const std::string& comp : comps) {
        const std::string st = cat({rep, comp});
        RegisterBenchmark(cat({"unwrap/", st, n}).c_str(), bm_unwrap, st, FlagScheme::native, rows);
        RegisterBenchmark(cat({"hit/", st, n}).c_str(), bm_hit, st, FlagScheme::native, rows);
        RegisterBenchmark(cat({"store/", st, n}).c_str(), bm_store, st, FlagScheme::native, rows);
      }
    }
    // php-memcache's zlib has no length prefix: the reader inflates into a growing buffer.
    for (std::string st : {"html+zlib", "struct:php+zlib"}) {
      RegisterBenchmark(cat({"unwrap/memcache:", st, n}).c_str(), bm_unwrap, st, FlagScheme::php_memcache, rows);
      RegisterBenchmark(cat({"hit/memcache:", st, n}).c_str(), bm_hit, st, FlagScheme::php_memcache, rows);
    }
    // What a stock Debian PHP install writes (php-memcached's defaults: serialize + FastLZ).
    RegisterBenchmark(cat({"hit/php-default", n}).c_str(), bm_hit, std::string("php-default"),
                      FlagScheme::php_memcached, rows);
  }
  return 0;
}

const int registered = register_all();

}  // namespace
}  // namespace hitcost
