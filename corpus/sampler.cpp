#include "corpus/sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "corpus/memcached_text.h"
#include "corpus/redact_record.h"

namespace hitcost::corpus {
namespace {

// A dump's `size` is the whole item: value + key + "\r\n" + a header of ~50 bytes (48 plus the
// cas). An item larger than the value limit by more than this surely holds a too-large value;
// the rest are fetched and checked by their real length.
constexpr uint64_t kItemOverheadSlack = 128;
// A key-file key is not tied to a node: it is asked of every node.
constexpr uint32_t kAnyNode = std::numeric_limits<uint32_t>::max();

struct Candidate {
  std::string key;
  uint32_t node = 0;  // kAnyNode for key-file keys
  int64_t last_access_unix_s = 0;
};

// Uniform in [0, bound): rejection of the top partial range (unbiased, platform-independent,
// unlike std::uniform_int_distribution whose algorithm the standard leaves open).
uint64_t bounded(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % bound;
  for (;;) {
    const uint64_t x = rng();
    if (x < limit) return x % bound;
  }
}

// Uniform in the open interval (0, 1): 53 random bits, offset by half a step.
double open_unit(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53; }

Result<std::vector<std::string>> read_key_file(const std::string& path, uint64_t& duplicates) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{Errc::io_error, path + ": cannot open the key file"};
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (!seen.insert(line).second) {
      ++duplicates;
      continue;
    }
    keys.push_back(line);
  }
  if (in.bad()) return Error{Errc::io_error, path + ": read error in the key file"};
  return keys;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

const char* to_string(Weighting w) noexcept { return w == Weighting::recency ? "recency" : "uniform"; }

Result<Weighting> parse_weighting(std::string_view text) {
  if (text == "uniform") return Weighting::uniform;
  if (text == "recency") return Weighting::recency;
  return Error{Errc::invalid_argument, "weighting \"" + std::string(text) + "\": want uniform or recency"};
}

std::vector<size_t> sample_order(const std::vector<int64_t>& last_access_unix_s, Weighting weighting, uint64_t seed,
                                 int64_t now_unix_s) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(last_access_unix_s.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (weighting == Weighting::uniform) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[bounded(rng, i)]);
    return order;
  }
  // Rank by u^(1/w) = u^(1 + age); compared as its log, (1 + age) * ln(u) (< 0, larger wins),
  // which does not underflow to 0 for old keys the way the power does.
  std::vector<double> rank(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const double age = static_cast<double>(std::max<int64_t>(0, now_unix_s - last_access_unix_s[i]));
    rank[i] = (1.0 + age) * std::log(open_unit(rng));
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] > rank[b]; });
  return order;
}

Result<SampleResult> sample(const SampleOptions& o, const SampleProgressFn& progress) {
  if (o.nodes.empty()) return Error{Errc::invalid_argument, "no memcached node to sample"};
  if (o.output_path.empty()) return Error{Errc::invalid_argument, "no output path for the corpus"};
  if (o.count == 0) return Error{Errc::invalid_argument, "count must be at least 1"};
  if (o.max_value_bytes == 0) return Error{Errc::invalid_argument, "max_value_bytes must be at least 1"};
  if (o.weighting == Weighting::recency && !o.key_file.empty())
    return Error{Errc::invalid_argument,
                 "recency weighting needs last access times, which a key file does not give: use uniform"};
  const int64_t now = o.now_unix_s != 0 ? o.now_unix_s : static_cast<int64_t>(std::time(nullptr));

  std::vector<MemcachedTextClient> clients;
  for (const std::string& node : o.nodes) {
    auto c = MemcachedTextClient::connect(node, o.connect_timeout_ms, o.io_timeout_ms);
    if (!c) return c.error();
    clients.push_back(std::move(*c));
  }

  SampleProgress prog;
  auto last_report = std::chrono::steady_clock::now();
  auto report = [&](bool force) {
    if (!progress) return;
    const auto t = std::chrono::steady_clock::now();
    if (!force && t - last_report < std::chrono::seconds(1)) return;
    last_report = t;
    progress(prog);
  };

  Manifest m;
  m.source = "memcached:" + join(o.nodes, ",");
  m.nodes = o.nodes;
  m.sampled_at_unix_s = static_cast<uint64_t>(now);
  m.scheme = o.scheme;
  m.sampling = to_string(o.weighting);
  m.seed = o.seed;
  m.requested_count = o.count;
  m.byte_budget = o.byte_budget;

  // ---- list ----
  std::vector<Candidate> listed;
  if (o.key_file.empty()) {
    for (uint32_t n = 0; n < clients.size(); ++n) {
      auto dump = clients[n].metadump_all();
      if (!dump) return dump.error();
      for (DumpEntry& e : *dump) {
        // Too large for sure (see kItemOverheadSlack): counted now, never fetched.
        if (e.size > o.max_value_bytes + e.key.size() + kItemOverheadSlack) {
          ++m.too_large;
          ++m.keys_seen;
          continue;
        }
        listed.push_back(Candidate{std::move(e.key), n, e.last_access_unix_s});
        ++m.keys_seen;
      }
      prog.keys_listed = m.keys_seen;
      prog.too_large = m.too_large;
      report(false);
    }
  } else {
    uint64_t duplicates = 0;
    auto keys = read_key_file(o.key_file, duplicates);
    if (!keys) return keys.error();
    for (std::string& k : *keys) listed.push_back(Candidate{std::move(k), kAnyNode, 0});
    m.keys_seen = listed.size();
    m.notes.push_back("keys from the key file " + o.key_file + " (last access unknown)");
    if (duplicates > 0) m.notes.push_back(std::to_string(duplicates) + " duplicate lines in the key file ignored");
    prog.keys_listed = m.keys_seen;
  }

  // Keys the text protocol cannot ask for (written through the binary protocol or meta
  // commands) are left out, and said so.
  std::vector<Candidate> eligible;
  eligible.reserve(listed.size());
  uint64_t unfetchable = 0;
  std::string first_reason;
  for (Candidate& c : listed) {
    std::string why;
    if (!is_text_protocol_key(c.key, &why)) {
      if (unfetchable++ == 0) first_reason = why;
      continue;
    }
    eligible.push_back(std::move(c));
  }
  listed.clear();
  if (unfetchable > 0)
    m.notes.push_back(std::to_string(unfetchable) +
                      " keys skipped: not fetchable with the text protocol (first: " + first_reason + ")");
  m.keys_eligible = eligible.size();
  // The dump lists items in LRU order, which moves with every read: sort, so that the same
  // seed over the same keys gives the same sample.
  std::sort(eligible.begin(), eligible.end(),
            [](const Candidate& x, const Candidate& y) { return x.node != y.node ? x.node < y.node : x.key < y.key; });

  std::vector<int64_t> access(eligible.size());
  for (size_t i = 0; i < eligible.size(); ++i) access[i] = eligible[i].last_access_unix_s;
  const std::vector<size_t> order = sample_order(access, o.weighting, o.seed, now);
  access.clear();

  if (o.after_listing) o.after_listing();

  // ---- fetch and write ----
  auto writer = CorpusWriter::create(o.output_path);
  if (!writer) return writer.error();
  bool budget_reached = false;
  std::map<std::string, uint64_t> unredactable;  // --redact: values left out, by error kind
  size_t pos = 0;
  while (pos < order.size() && prog.values_fetched < o.count && !budget_reached) {
    // No more at a time than still wanted (gone keys make another round), at most a get line.
    const size_t wanted = static_cast<size_t>(std::min<uint64_t>(o.count - prog.values_fetched, kGetBatchKeys));
    const size_t end = std::min(order.size(), pos + wanted);

    // (candidate index) -> what was found and where.
    std::unordered_map<size_t, std::pair<uint32_t, FetchedValue>> found;
    std::vector<std::vector<size_t>> per_node(clients.size());
    for (size_t i = pos; i < end; ++i) {
      const Candidate& c = eligible[order[i]];
      per_node[c.node == kAnyNode ? 0 : c.node].push_back(order[i]);
    }
    for (uint32_t n = 0; n < clients.size(); ++n) {
      if (per_node[n].empty()) continue;
      std::vector<std::string> keys;
      std::unordered_map<std::string, size_t> index_of;
      for (size_t ci : per_node[n]) {
        keys.push_back(eligible[ci].key);
        index_of.emplace(eligible[ci].key, ci);
      }
      auto got = clients[n].get_many(keys);
      if (!got) return got.error();
      for (FetchedValue& v : *got) {
        const auto it = index_of.find(v.key);
        if (it != index_of.end()) found.emplace(it->second, std::make_pair(n, std::move(v)));
      }
      // Key-file keys not on this node: ask the next one.
      if (n + 1 < clients.size()) {
        for (size_t ci : per_node[n])
          if (eligible[ci].node == kAnyNode && found.count(ci) == 0) per_node[n + 1].push_back(ci);
      }
    }

    // In sample order, so that where count and budget cut is the same for the same seed.
    for (size_t i = pos; i < end && !budget_reached && prog.values_fetched < o.count; ++i) {
      const size_t ci = order[i];
      const auto it = found.find(ci);
      if (it == found.end()) {
        ++m.gone;
        continue;
      }
      const FetchedValue& v = it->second.second;
      if (v.value.size() > o.max_value_bytes) {
        ++m.too_large;
        continue;
      }
      if (prog.value_bytes + v.value.size() > o.byte_budget) {
        budget_reached = true;
        break;
      }
      CorpusRecord r;
      r.key = v.key;
      r.flags = v.flags;
      r.last_access_unix_s = static_cast<uint64_t>(std::max<int64_t>(0, eligible[ci].last_access_unix_s));
      r.node = it->second.first;
      r.value = v.value;
      if (o.redact) {
        auto red = o.redact(r);
        if (!red) {
          ++unredactable[to_string(red.error().code)];
          continue;
        }
        r = std::move(*red);
      }
      if (auto s = writer->add(r); !s) return s.error();
      ++prog.values_fetched;
      prog.value_bytes += r.value.size();
    }
    pos = end;
    prog.gone = m.gone;
    prog.too_large = m.too_large;
    report(false);
  }
  if (o.redact) {
    std::string note = "strings and keys replaced at sampling (same lengths and character classes)";
    for (const auto& [kind, n] : unredactable)
      note += "; " + std::to_string(n) + " values left out, not decodable (" + kind + ")";
    redact_manifest(m, std::move(note));
  }
  if (budget_reached) m.notes.push_back("stopped at the byte budget of " + std::to_string(o.byte_budget) + " bytes");
  if (prog.values_fetched < o.count && !budget_reached)
    m.notes.push_back("fewer values than requested: only " + std::to_string(prog.values_fetched) + " could be fetched");

  if (auto s = writer->finish(m); !s) return s.error();
  m.values = writer->records();
  m.value_bytes = writer->value_bytes();
  prog.done = true;
  report(true);
  return SampleResult{std::move(m), o.output_path};
}

}  // namespace hitcost::corpus
