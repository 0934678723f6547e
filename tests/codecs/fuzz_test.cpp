// Random and mutated values with random flags through the whole read path. Every result
// must be a page or a typed error; a page that survived corruption must still render.
// Deterministic: a fixed seed, so a failure reproduces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codecs/flag_scheme.h"
#include "codecs/page_generator.h"
#include "codecs/prng.h"
#include "codecs/renderer.h"
#include "codecs/value_codec.h"

namespace hitcost {
namespace {

struct Sample {
  FlagScheme scheme;
  Strategy strategy;
  EncodedValue value;
};

std::vector<Sample> real_values() {
  std::vector<Sample> out;
  Page small = generate_page({1, 3, 5, 1.0});
  Page mid = generate_page({2, 30, 5, 0.7});
  for (FlagScheme s : kFlagSchemes) {
    std::vector<std::string> reps = {"html"}, comps = {""};
    for (const SerializerCodec& c : kSerializerCodecs) reps.push_back(std::string("struct:") + c.name);
    for (const CompressorCodec& c : kCompressorCodecs) comps.push_back(std::string("+") + c.name);
    for (const std::string& rep : reps) {
      for (const std::string& comp : comps) {
        auto st = parse_strategy(rep + comp, s);
        if (!st) continue;
        st->rule.threshold_bytes = 0;
        for (const Page* p : {&small, &mid}) out.push_back({s, *st, encode_value(*st, *p, render_page(*p))});
      }
    }
  }
  return out;
}

void mutate(std::string& b, SplitMix64& rng) {
  switch (rng.below(6)) {
    case 0:  // bit flips
      for (uint64_t n = rng.between(1, 4); n && !b.empty(); --n)
        b[rng.below(b.size())] ^= static_cast<char>(1u << rng.below(8));
      break;
    case 1:  // truncate
      b.resize(rng.below(b.size() + 1));
      break;
    case 2:  // insert random bytes
      b.insert(rng.below(b.size() + 1), std::string(rng.between(1, 8), static_cast<char>(rng.next())));
      break;
    case 3:  // overwrite a byte with an interesting value
      if (!b.empty()) {
        const char v[] = {'\0', '\xff', '\x7f', '\x80', ':', ';', '{', '}', '"', '9'};
        b[rng.below(b.size())] = v[rng.below(sizeof v)];
      }
      break;
    case 4:  // delete a range
      if (!b.empty()) {
        size_t at = rng.below(b.size());
        b.erase(at, rng.between(1, 16));
      }
      break;
    default:  // duplicate a range
      if (!b.empty()) {
        size_t at = rng.below(b.size());
        b.insert(at, b.substr(at, rng.between(1, 32)));
      }
  }
}

uint32_t random_flags(SplitMix64& rng, uint32_t real) {
  switch (rng.below(4)) {
    case 0: return real;
    case 1: return real ^ (1u << rng.below(32));
    case 2: return static_cast<uint32_t>(rng.below(0x100));  // the PHP schemes' low bits
    default: return static_cast<uint32_t>(rng.next());
  }
}

// Counts a page (per decoder that reads one) or a typed error; anything else fails the test.
void read_all_ways(std::string_view bytes, uint32_t flags, FlagScheme scheme, std::string& scratch, size_t& pages,
                   size_t& errors) {
  auto u = unwrap_value(bytes, flags, scheme, scratch);
  if (!u) {
    ++errors;
    EXPECT_FALSE(u.error().message.empty());
    return;
  }
  if (u->rep == Representation::html) {
    ++pages;
    return;
  }
  ASSERT_NE(u->serializer, SerializerId::none);
  for (const PageDecoder& dec : page_decoders()) {
    if (dec.serializer != u->serializer) continue;
    auto p = decode_page(dec.serializer, u->payload, dec.decoders);
    if (!p) {
      ++errors;
      EXPECT_EQ(p.error().code, Errc::parse_error) << p.error().message;
      continue;
    }
    ++pages;
    std::string html = render_page(*p);
    EXPECT_FALSE(html.empty());
  }
}

TEST(Fuzz, MutatedRealValuesGiveAPageOrATypedError) {
  SplitMix64 rng(20240601);
  auto values = real_values();
  ASSERT_GT(values.size(), 60u);
  std::string scratch;
  size_t pages = 0, errors = 0;
  for (int i = 0; i < 30000; ++i) {
    const Sample& s = values[rng.below(values.size())];
    std::string b = s.value.bytes;
    for (uint64_t m = rng.between(1, 3); m; --m) mutate(b, rng);
    uint32_t flags = random_flags(rng, s.value.flags);
    FlagScheme scheme = rng.below(4) ? s.scheme : kFlagSchemes[rng.below(std::size(kFlagSchemes))];
    read_all_ways(b, flags, scheme, scratch, pages, errors);
    if (::testing::Test::HasFailure()) FAIL() << "iteration " << i;
  }
  EXPECT_GT(errors, 1000u);
  EXPECT_GT(pages, 100u);  // some mutations (e.g. in text) still decode
}

TEST(Fuzz, RandomBytesUnderEveryDecoder) {
  SplitMix64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string b(rng.below(64), '\0');
    for (char& c : b) c = static_cast<char>(rng.next());
    // Structured-looking prefixes reach deeper into the parsers.
    const char* heads[] = {"", "a:3:{", "{\"id\":", "\x83\xa2id",
                           "a:3:{s:2:\"id\";i:1;s:5:\"title\";s:1:\"t\";s:4:\"rows\";a:"};
    b.insert(0, heads[rng.below(5)]);
    for (SerializerId s : kSerializers) {
      auto p = decode_page(s, b);
      if (!p)
        EXPECT_EQ(p.error().code, Errc::parse_error);
      else
        render_page(*p);
    }
    std::string scratch;
    for (FlagScheme sc : kFlagSchemes) {
      auto u = unwrap_value(b, static_cast<uint32_t>(rng.next()), sc, scratch);
      if (u) {
        EXPECT_TRUE(u->payload.size() <= (size_t{64} << 20));
      }
    }
    if (::testing::Test::HasFailure()) FAIL() << "iteration " << i;
  }
}

}  // namespace
}  // namespace hitcost
