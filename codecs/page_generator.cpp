#include "codecs/page_generator.h"

#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/prng.h"

// Text comes from a fixed vocabulary: common English words, a few words that need HTML
// or JSON escaping (& < > " '), a few non-ASCII UTF-8 words, and pseudo-words built from
// syllables so the vocabulary is large enough for zlib ratios of real pages (3-5x).
// With compressibility < 1 some words are replaced by random printable ASCII, which
// carries ~6.6 bits per byte, so compressibility 0 gives a zlib ratio near 1.2x.
namespace hitcost {
namespace {

constexpr std::string_view kWords[] = {
    "the",       "of",         "and",         "to",         "in",       "is",       "for",       "on",
    "with",      "as",         "by",          "at",         "from",     "this",     "that",      "it",
    "new",       "price",      "review",      "guide",      "best",     "how",      "why",       "what",
    "market",    "design",     "garden",      "kitchen",    "travel",   "music",    "city",      "river",
    "mountain",  "coffee",     "bread",       "winter",     "summer",   "light",    "house",     "window",
    "street",    "village",    "library",     "engine",     "server",   "cache",    "memory",    "network",
    "latency",   "storage",    "performance", "history",    "science",  "family",   "weekend",   "recipe",
    "update",    "report",     "season",      "national",   "local",    "morning",  "evening",   "simple",
    "quick",     "classic",    "modern",      "small",      "large",    "green",    "blue",      "yellow",
    "quiet",     "bright",     "open",        "public",     "private",  "answer",   "question",  "story",
    "review",    "collection", "edition",     "release",    "version",  "project",  "community", "support",
    "service",   "customer",   "delivery",    "shipping",   "offer",    "discount", "quality",   "material",
    "cotton",    "steel",      "wooden",      "handmade",   "original", "limited",  "special",   "popular",
    "favourite", "R&D",        "<b>bold</b>", "\"quoted\"", "it's",     "AT&T",     "x<y",       "a>b",
    "O'Neil",    "café",       "naïve",       "über",       "façade",   "日本語",   "€100",      "smörgåsbord",
    "Ελληνικά",  "crème",      "brûlée",      "piñata",     "Zürich",   "Kraków",   "—",         "…",
    "São"};

constexpr std::string_view kFirst[] = {"Alice",  "Bob",  "Chloé",     "David", "Emma", "François", "Grace", "Hiro",
                                       "Ingrid", "José", "Katarzyna", "Liam",  "Mei",  "Noah",     "Olga",  "Pedro",
                                       "Quinn",  "Rosa", "Søren",     "Tomás", "Uma",  "Victor",   "Wen",   "Zoë"};
constexpr std::string_view kLast[] = {"Smith", "O'Brien",   "Müller", "García", "Nakamura", "Kowalski", "Dubois",
                                      "Rossi", "Andersson", "Nguyen", "Silva",  "Khan",     "Ivanova",  "Brown",
                                      "López", "Jensen",    "Haddad", "Taylor", "Novák",    "Wilson"};

constexpr std::string_view kSyllables[] = {"ka",  "lo",  "mi",  "ren", "sta", "vo", "tur", "bel",
                                           "qui", "dra", "nes", "pol", "fen", "ar", "si",  "to"};

// the fixed words + pseudo-words up to 320; built once, read-only afterwards (thread-safe).
const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> vocab = [] {
    std::vector<std::string> v(std::begin(kWords), std::end(kWords));
    SplitMix64 rng(0x5eed5eedULL);
    while (v.size() < 320) {
      std::string w;
      auto n = rng.between(2, 4);
      for (uint64_t i = 0; i < n; ++i) w += kSyllables[rng.below(std::size(kSyllables))];
      v.push_back(std::move(w));
    }
    return v;
  }();
  return vocab;
}

// Stock phrases (3-6 vocabulary words): real pages repeat phrases, not only words, and
// that repetition is what brings zlib from ~3x (independent words) to ~4x.
const std::vector<std::string>& phrases() {
  static const std::vector<std::string> list = [] {
    const auto& v = vocabulary();
    std::vector<std::string> out;
    SplitMix64 rng(0xf00dULL);
    for (int i = 0; i < 96; ++i) {
      std::string p;
      auto n = rng.between(3, 6);
      for (uint64_t k = 0; k < n; ++k) {
        if (k) p += ' ';
        p += v[rng.below(v.size())];
      }
      out.push_back(std::move(p));
    }
    return out;
  }();
  return list;
}

class TextMaker {
 public:
  TextMaker(uint64_t seed, double compressibility)
      : rng_(seed), vocab_(vocabulary()), phrases_(phrases()), c_(compressibility) {}

  SplitMix64& rng() { return rng_; }

  // A vocabulary word (skewed towards the first words, like natural text) or, with
  // probability 1 - compressibility, a random printable-ASCII word.
  void word(std::string& out) {
    if (c_ >= 1.0 || rng_.unit() < c_) {
      // min of three uniforms: a cheap skew so common words are common
      uint64_t a = rng_.below(vocab_.size()), b = rng_.below(vocab_.size()), c = rng_.below(vocab_.size());
      uint64_t m = a < b ? a : b;
      out += vocab_[m < c ? m : c];
    } else {
      auto n = rng_.between(3, 9);
      for (uint64_t i = 0; i < n; ++i) out += static_cast<char>(rng_.between(0x21, 0x7e));
    }
  }

  // About lo..hi words; half of the vocabulary text comes as stock phrases.
  std::string words(uint64_t lo, uint64_t hi, bool capitalise) {
    std::string s;
    auto n = rng_.between(lo, hi);
    for (uint64_t i = 0; i < n; ++i) {
      if (i) s += ' ';
      if (n - i >= 4 && rng_.unit() < 0.45 && (c_ >= 1.0 || rng_.unit() < c_)) {
        s += phrases_[rng_.below(phrases_.size())];
        i += 3;  // a phrase counts as about four words
      } else {
        word(s);
      }
    }
    if (capitalise && !s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 32);
    return s;
  }

  std::string name() {
    if (c_ < 1.0 && rng_.unit() >= c_) return words(2, 2, false);
    std::string s(kFirst[rng_.below(std::size(kFirst))]);
    s += ' ';
    s += kLast[rng_.below(std::size(kLast))];
    return s;
  }

 private:
  SplitMix64 rng_;
  const std::vector<std::string>& vocab_;
  const std::vector<std::string>& phrases_;
  double c_;
};

// URL path segment: ASCII letters and digits of the title, other bytes become '-'.
std::string slug(std::string_view title) {
  std::string s;
  for (unsigned char ch : title) {
    bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (ch >= 'A' && ch <= 'Z') {
      ch = static_cast<unsigned char>(ch + 32);
      keep = true;
    }
    if (keep) {
      s += static_cast<char>(ch);
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
    if (s.size() >= 48) break;
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

}  // namespace

Page generate_page(const PageSpec& spec) {
  double c = spec.compressibility < 0 ? 0 : (spec.compressibility > 1 ? 1 : spec.compressibility);
  Page page;
  page.id = spec.id;
  {
    TextMaker t(mix_seed(spec.seed, static_cast<uint64_t>(spec.id), ~0ULL), c);
    page.title = "Catalogue " + std::to_string(spec.id) + ": " + t.words(3, 6, false);
  }
  page.rows.reserve(spec.rows);
  for (uint32_t i = 0; i < spec.rows; ++i) {
    // Each row has its own seed: row i is the same whatever the page's row count.
    TextMaker t(mix_seed(spec.seed, static_cast<uint64_t>(spec.id), i), c);
    Row r;
    // Unsigned arithmetic: wraps instead of overflowing for absurd page ids.
    r.id = static_cast<int64_t>(static_cast<uint64_t>(spec.id) * 100000u + i + 1);
    r.title = t.words(3, 8, true);
    r.author = t.name();
    auto ntags = t.rng().between(1, 5);
    for (uint64_t k = 0; k < ntags; ++k) {
      std::string tag;
      t.word(tag);
      r.tags.push_back(std::move(tag));
    }
    // Cents / 100.0 is the double nearest the 2-decimal price, so its shortest text
    // form is exactly that price (12.34 prints "12.34") in every serializer.
    r.price = static_cast<double>(t.rng().between(99, 99999)) / 100.0;
    r.created = static_cast<int64_t>(1'450'000'000 + t.rng().below(300'000'000));  // 2015..2024
    r.excerpt = t.words(22, 36, true);
    r.excerpt += '.';
    r.url = "https://shop.example.com/items/" + std::to_string(r.id) + "/" + slug(r.title);
    page.rows.push_back(std::move(r));
  }
  return page;
}

}  // namespace hitcost
