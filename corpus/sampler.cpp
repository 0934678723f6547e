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
#include <span>
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

Status check_options(const SampleOptions& o) {
  if (o.nodes.empty()) return Error{Errc::invalid_argument, "no memcached node to sample"};
  if (o.output_path.empty()) return Error{Errc::invalid_argument, "no output path for the corpus"};
  if (o.count == 0) return Error{Errc::invalid_argument, "count must be at least 1"};
  if (o.max_value_bytes == 0) return Error{Errc::invalid_argument, "max_value_bytes must be at least 1"};
  if (!o.keys.empty() && !o.key_file.empty())
    return Error{Errc::invalid_argument, "keys given twice: a key file and a list of keys"};
  if (o.weighting == Weighting::recency && (!o.key_file.empty() || !o.keys.empty()))
    return Error{Errc::invalid_argument,
                 "recency weighting needs last access times, which a key file does not give: use uniform"};
  return ok_status();
}

Result<std::vector<MemcachedTextClient>> connect_nodes(const SampleOptions& o) {
  std::vector<MemcachedTextClient> clients;
  for (const std::string& node : o.nodes) {
    auto c = MemcachedTextClient::connect(node, o.connect_timeout_ms, o.io_timeout_ms);
    if (!c) return c.error();
    clients.push_back(std::move(*c));
  }
  return clients;
}

// The progress figures and their throttle: `fn` (may be empty) at most once a second,
// unless forced.
struct ProgressReport {
  explicit ProgressReport(const SampleProgressFn& f) : fn(f) {}

  const SampleProgressFn& fn;
  SampleProgress figures;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();

  void operator()(bool force) {
    if (!fn) return;
    const auto t = std::chrono::steady_clock::now();
    if (!force && t - last < std::chrono::seconds(1)) return;
    last = t;
    fn(figures);
  }
};

Manifest start_manifest(const SampleOptions& o, int64_t now) {
  Manifest m;
  m.source = "memcached:" + join(o.nodes, ",");
  m.nodes = o.nodes;
  m.sampled_at_unix_s = static_cast<uint64_t>(now);
  m.scheme = o.scheme;
  m.sampling = to_string(o.weighting);
  m.seed = o.seed;
  m.requested_count = o.count;
  m.byte_budget = o.byte_budget;
  return m;
}

// Every node's metadump; items surely over max_value_bytes are counted too_large, not listed.
Result<std::vector<Candidate>> list_dumps(std::vector<MemcachedTextClient>& clients, const SampleOptions& o,
                                          Manifest& m, ProgressReport& report) {
  std::vector<Candidate> listed;
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
    report.figures.keys_listed = m.keys_seen;
    report.figures.too_large = m.too_large;
    report(false);
  }
  return listed;
}

Result<std::vector<Candidate>> list_key_file(const SampleOptions& o, Manifest& m) {
  uint64_t duplicates = 0;
  auto keys = read_key_file(o.key_file, duplicates);
  if (!keys) return keys.error();
  std::vector<Candidate> listed;
  for (std::string& k : *keys) listed.push_back(Candidate{std::move(k), kAnyNode, 0});
  m.keys_seen = listed.size();
  m.notes.push_back("keys from the key file " + o.key_file + " (last access unknown)");
  if (duplicates > 0) m.notes.push_back(std::to_string(duplicates) + " duplicate lines in the key file ignored");
  return listed;
}

std::vector<Candidate> list_given_keys(const SampleOptions& o, Manifest& m) {
  std::vector<Candidate> listed;
  std::unordered_set<std::string_view> seen;
  for (const std::string& k : o.keys)
    if (seen.insert(k).second) listed.push_back(Candidate{k, kAnyNode, 0});
  m.keys_seen = listed.size();
  m.notes.push_back((o.keys_note.empty() ? "keys given by the caller" : o.keys_note) + " (last access unknown)");
  return listed;
}

// Keys the text protocol cannot ask for (written through the binary protocol or meta
// commands) are left out, and said so. The rest come back sorted by node and key.
std::vector<Candidate> keep_fetchable(std::vector<Candidate> listed, Manifest& m) {
  std::vector<Candidate> eligible;
  eligible.reserve(listed.size());
  uint64_t unfetchable = 0;
  std::string first_reason;
  for (Candidate& c : listed) {
    if (Status key_ok = check_text_protocol_key(c.key); !key_ok) {
      if (unfetchable++ == 0) first_reason = key_ok.error().message;
      continue;
    }
    eligible.push_back(std::move(c));
  }
  if (unfetchable > 0)
    m.notes.push_back(std::to_string(unfetchable) +
                      " keys skipped: not fetchable with the text protocol (first: " + first_reason + ")");
  m.keys_eligible = eligible.size();
  // The dump lists items in LRU order, which moves with every read: sort, so that the same
  // seed over the same keys gives the same sample.
  std::sort(eligible.begin(), eligible.end(),
            [](const Candidate& x, const Candidate& y) { return x.node != y.node ? x.node < y.node : x.key < y.key; });
  return eligible;
}

std::vector<size_t> order_of(const std::vector<Candidate>& eligible, const SampleOptions& o, int64_t now) {
  std::vector<int64_t> access(eligible.size());
  for (size_t i = 0; i < eligible.size(); ++i) access[i] = eligible[i].last_access_unix_s;
  return sample_order(access, o.weighting, o.seed, now);
}

// (candidate index) -> the node it was found on and what it held.
using Found = std::unordered_map<size_t, std::pair<uint32_t, FetchedValue>>;

// One `get` per node for the batch (candidate indices); key-file keys missing on a node are
// asked of the next one.
Result<Found> fetch_batch(std::vector<MemcachedTextClient>& clients, const std::vector<Candidate>& eligible,
                          std::span<const size_t> batch) {
  Found found;
  std::vector<std::vector<size_t>> per_node(clients.size());
  for (size_t ci : batch) per_node[eligible[ci].node == kAnyNode ? 0 : eligible[ci].node].push_back(ci);
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
  return found;
}

// What writing keeps across batches besides the progress figures.
struct WriteTally {
  bool budget_reached = false;
  std::map<std::string, uint64_t> unredactable;  // --redact: values left out, by error kind
};

// Writes the batch's values in sample order, so that where count and budget cut is the same
// for the same seed; gone and too large values are counted in `m`.
Status write_batch(const SampleOptions& o, const std::vector<Candidate>& eligible, std::span<const size_t> batch,
                   const Found& found, CorpusWriter& writer, Manifest& m, SampleProgress& prog, WriteTally& tally) {
  for (size_t ci : batch) {
    if (tally.budget_reached || prog.values_fetched >= o.count) break;
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
      tally.budget_reached = true;
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
        ++tally.unredactable[to_string(red.error().code)];
        continue;
      }
      r = std::move(*red);
    }
    if (auto s = writer.add(r); !s) return s.error();
    ++prog.values_fetched;
    prog.value_bytes += r.value.size();
  }
  return ok_status();
}

void add_closing_notes(const SampleOptions& o, const SampleProgress& prog, const WriteTally& tally, Manifest& m) {
  if (o.redact) {
    std::string note = "strings and keys replaced at sampling (same lengths and character classes)";
    for (const auto& [kind, n] : tally.unredactable)
      note += "; " + std::to_string(n) + " values left out, not decodable (" + kind + ")";
    redact_manifest(m, std::move(note));
  }
  if (tally.budget_reached)
    m.notes.push_back("stopped at the byte budget of " + std::to_string(o.byte_budget) + " bytes");
  if (prog.values_fetched < o.count && !tally.budget_reached)
    m.notes.push_back("fewer values than requested: only " + std::to_string(prog.values_fetched) + " could be fetched");
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
  if (Status s = check_options(o); !s) return s.error();
  const int64_t now = o.now_unix_s != 0 ? o.now_unix_s : static_cast<int64_t>(std::time(nullptr));
  auto clients = connect_nodes(o);
  if (!clients) return clients.error();
  ProgressReport report(progress);
  Manifest m = start_manifest(o, now);

  auto listed = !o.keys.empty()      ? Result<std::vector<Candidate>>(list_given_keys(o, m))
                : o.key_file.empty() ? list_dumps(*clients, o, m, report)
                                     : list_key_file(o, m);
  if (!listed) return listed.error();
  report.figures.keys_listed = m.keys_seen;
  const std::vector<Candidate> eligible = keep_fetchable(std::move(*listed), m);
  const std::vector<size_t> order = order_of(eligible, o, now);
  if (o.after_listing) o.after_listing();

  auto writer = CorpusWriter::create(o.output_path);
  if (!writer) return writer.error();
  SampleProgress& prog = report.figures;
  WriteTally tally;
  size_t pos = 0;
  while (pos < order.size() && prog.values_fetched < o.count && !tally.budget_reached) {
    // No more at a time than still wanted (gone keys make another round), at most a get line.
    const size_t wanted = static_cast<size_t>(std::min<uint64_t>(o.count - prog.values_fetched, kGetBatchKeys));
    const std::span<const size_t> batch(order.data() + pos, std::min(order.size(), pos + wanted) - pos);
    auto found = fetch_batch(*clients, eligible, batch);
    if (!found) return found.error();
    if (Status s = write_batch(o, eligible, batch, *found, *writer, m, prog, tally); !s) return s.error();
    pos += batch.size();
    prog.gone = m.gone;
    prog.too_large = m.too_large;
    report(false);
  }
  add_closing_notes(o, prog, tally, m);

  if (auto s = writer->finish(m); !s) return s.error();
  m.values = writer->records();
  m.value_bytes = writer->value_bytes();
  prog.done = true;
  report(true);
  return SampleResult{std::move(m), o.output_path};
}

}  // namespace hitcost::corpus
