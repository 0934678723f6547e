#include "load/replay_schedule.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <unordered_map>

#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"
#include "trace/trace_file.h"

namespace hitcost::client {
namespace {

using trace::Op;
using trace::Outcome;
using trace::TraceEvent;

struct KeyState {
  uint32_t id = 0;       // the key's order of first appearance; its page id
  uint32_t size = 0;     // the largest value size the trace gives it
  uint64_t events = 0;   // the trace's events of the key (its lane's share)
  bool seen = false;     // read or written before in the trace
  bool present = false;  // in the replay's cache now
};

// Power-of-two size classes: [2^(c-1), 2^c).
unsigned size_class(uint32_t bytes) noexcept { return static_cast<unsigned>(std::bit_width(bytes)); }

// Each key (by order of first appearance) its /value/{n}: a corpus value of its size class, dealt
// round-robin among the class's values; the nearest size's class when its own holds none.
Result<std::vector<uint32_t>> value_ids(const std::vector<uint32_t>& key_sizes, const std::vector<uint32_t>& values,
                                        ReplayCounts& counts) {
  const size_t n = values.size();
  std::vector<uint32_t> by_size(n);
  for (size_t i = 0; i < n; ++i) by_size[i] = static_cast<uint32_t>(i);
  std::sort(by_size.begin(), by_size.end(),
            [&](uint32_t a, uint32_t b) { return values[a] != values[b] ? values[a] < values[b] : a < b; });
  std::map<unsigned, std::vector<uint32_t>> classes;
  for (uint32_t i : by_size) classes[size_class(values[i])].push_back(i);
  std::map<unsigned, size_t> dealt;  // per class: keys given a value so far
  std::vector<uint64_t> uses(n, 0);  // per value: keys given it so far
  std::vector<uint32_t> ids(key_sizes.size());
  for (size_t k = 0; k < key_sizes.size(); ++k) {
    unsigned c = size_class(key_sizes[k]);
    if (classes.count(c)) {
      ++counts.keys_in_class;
    } else {
      ++counts.keys_nearest;
      auto above = std::lower_bound(by_size.begin(), by_size.end(), key_sizes[k],
                                    [&](uint32_t i, uint32_t size) { return values[i] < size; });
      uint32_t nearest = above == by_size.end() ? by_size.back() : *above;
      if (above != by_size.begin() && above != by_size.end() &&
          key_sizes[k] - values[*(above - 1)] <= values[*above] - key_sizes[k])
        nearest = *(above - 1);
      c = size_class(values[nearest]);
    }
    const std::vector<uint32_t>& in_class = classes[c];
    const uint32_t value = in_class[dealt[c]++ % in_class.size()];
    const uint64_t id = value + n * uses[value]++;
    if (id > UINT32_MAX)
      return Error{Errc::invalid_argument, "--values: " + std::to_string(key_sizes.size()) + " keys over " +
                                               std::to_string(n) + " values need ids past 2^32"};
    ids[k] = static_cast<uint32_t>(id);
  }
  return ids;
}

}  // namespace

Result<std::vector<uint32_t>> served_value_sizes(const std::string& path, uint64_t& records) {
  auto file = corpus::read_corpus(path);
  if (!file) return file.error();
  auto scheme = corpus::manifest_flag_scheme(file->manifest, path);
  if (!scheme) return scheme.error();
  records = file->records.size();
  std::vector<uint32_t> sizes;
  std::string scratch;
  for (const corpus::CorpusRecord& rec : file->records)
    if (corpus::decode_stored(rec.value, rec.flags, *scheme, scratch))
      sizes.push_back(static_cast<uint32_t>(std::min<size_t>(rec.value.size(), UINT32_MAX)));
  if (sizes.empty()) return Error{Errc::invalid_argument, path + ": no value of the corpus decodes"};
  return sizes;
}

uint32_t rows_for(const PageSizing& sizing, uint32_t value_bytes) noexcept {
  const double per_row = sizing.bytes_per_row > 0 ? sizing.bytes_per_row : 1;
  const double rows = std::round((static_cast<double>(value_bytes) - sizing.base_bytes) / per_row);
  return static_cast<uint32_t>(std::clamp<double>(rows, 1, sizing.max_rows));
}

Result<std::shared_ptr<const ReplaySchedule>> build_replay_schedule(const std::string& trace_path, double speed,
                                                                    int threads, const ReplayTarget& target,
                                                                    double rate) {
  if (!(speed > 0)) return Error{Errc::invalid_argument, "--speed: want a number above 0"};
  if (threads < 1) return Error{Errc::invalid_argument, "threads: want at least 1"};
  auto reader = trace::TraceReader::open(trace_path);
  if (!reader) return reader.error();
  const auto events = reader->events();
  const bool whole_seconds = reader->header().time_resolution_us >= 1'000'000;
  if (rate > 0) {
    // The trace's mean rate at speed 1: its events over its span (a whole-seconds trace's last
    // second is spread over a second too).
    const double span_s = double(reader->header().duration_us) / 1e6 + (whole_seconds && !events.empty() ? 1.0 : 0.0);
    if (!(span_s > 0)) return Error{Errc::invalid_argument, "--rate: the trace has one instant: no pace to scale"};
    speed = rate / (double(events.size()) / span_s);
  }

  auto s = std::make_shared<ReplaySchedule>();
  s->trace_path = trace_path;
  s->trace_crc = reader->header().events_crc;
  s->speed = speed;
  s->per_thread.resize(static_cast<size_t>(threads));
  s->counts.events = events.size();

  // Pass 1: ids in order of first appearance, each key's size (the largest it is given) and events.
  std::unordered_map<uint64_t, KeyState> keys;
  keys.reserve(events.size() / 4 + 16);
  for (const TraceEvent& e : events) {
    auto [it, added] = keys.try_emplace(e.key);
    if (added) it->second.id = static_cast<uint32_t>(keys.size() - 1);
    it->second.size = std::max(it->second.size, e.value_size);
    ++it->second.events;
  }
  s->counts.keys = keys.size();
  s->values = target.values();
  s->corpus_path = target.corpus_path;
  std::vector<uint32_t> ids;  // by order of first appearance: the key's request id
  if (s->values) {
    std::vector<uint32_t> key_sizes(keys.size());
    for (const auto& [hash, k] : keys) key_sizes[k.id] = k.size;
    auto got = value_ids(key_sizes, target.value_sizes, s->counts);
    if (!got) return got.error();
    ids = std::move(*got);
  }

  // Each lane's room, made before it fills: its events and a quarter more for the inferred
  // writes and deletes. Grown by push_back, a 10M-event schedule spent a third of its time
  // copying lanes and faulting their pages in again.
  {
    std::vector<uint64_t> per_lane(s->per_thread.size(), 0);
    for (const auto& [hash, k] : keys)
      per_lane[(s->values ? ids[k.id] : k.id) % static_cast<uint32_t>(threads)] += k.events;
    for (size_t t = 0; t < per_lane.size(); ++t) s->per_thread[t].reserve(per_lane[t] + per_lane[t] / 4);
  }

  // Pass 2: due times and kinds.
  size_t run_start = 0;  // whole seconds: the first event of the current second, and its length
  size_t run_length = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    uint64_t due_ns = static_cast<uint64_t>(static_cast<double>(e.time_us) * 1000.0 / speed);
    if (whole_seconds) {
      if (i == 0 || e.time_us != events[i - 1].time_us) {
        run_start = i;
        run_length = 1;
        while (i + run_length < events.size() && events[i + run_length].time_us == e.time_us) ++run_length;
      }
      const double second_ns = 1e9 / speed;
      due_ns += static_cast<uint64_t>(second_ns * static_cast<double>(i - run_start) / static_cast<double>(run_length));
    }
    KeyState& k = keys[e.key];
    const auto op = static_cast<Op>(e.op);
    const auto outcome = static_cast<Outcome>(e.outcome);
    const uint32_t id = s->values ? ids[k.id] : k.id;
    const uint32_t rows = s->values ? 0 : rows_for(target.pages, k.size);
    auto& lane = s->per_thread[id % static_cast<uint32_t>(threads)];
    auto push = [&](ReplayKind kind) { lane.push_back({due_ns, id, rows, kind}); };
    if (trace::is_read(op)) {
      if (outcome == Outcome::found || outcome == Outcome::not_found) {
        const size_t second = static_cast<size_t>(due_ns / 1'000'000'000);
        if (s->recorded_found_per_s.size() <= second) {
          s->recorded_found_per_s.resize(second + 1);
          s->recorded_not_found_per_s.resize(second + 1);
        }
        ++(outcome == Outcome::found ? s->recorded_found_per_s : s->recorded_not_found_per_s)[second];
      }
      if (outcome == Outcome::found) {
        ++s->counts.recorded_found;
        if (!k.seen) {
          s->prewarm.push_back({0, id, rows, ReplayKind::write});
        } else if (!k.present) {
          // Found although the trace removed it: a write the trace did not show (a sampled
          // trace, a write to another node) put it back. It goes out just before the read.
          push(ReplayKind::write);
          ++s->counts.inferred_writes;
        }
        k.present = true;
      } else if (outcome == Outcome::not_found) {
        ++s->counts.recorded_not_found;
        // Not in the trace's cache when it began: removed in the warm-up, whatever an earlier
        // run (a sweep's previous round) left there.
        if (!k.seen) s->prewarm.push_back({0, id, rows, ReplayKind::remove});
        if (k.present) {
          push(ReplayKind::remove);
          ++s->counts.inferred_removes;
        }
      }
      push(ReplayKind::read);
      ++s->counts.reads;
      k.present = true;  // a miss is filled by the server
    } else if (trace::is_write(op)) {
      if (outcome == Outcome::not_stored || outcome == Outcome::exists || outcome == Outcome::not_found) {
        ++s->counts.not_replayed;
      } else {
        push(ReplayKind::write);
        ++s->counts.writes;
        k.present = true;
      }
    } else if (op == Op::del) {
      push(ReplayKind::remove);
      ++s->counts.removes;
      k.present = false;
    } else {
      ++s->counts.not_replayed;
    }
    k.seen = true;
    s->span_ns = std::max(s->span_ns, due_ns);
  }
  s->counts.prewarmed = s->prewarm.size();
  return std::shared_ptr<const ReplaySchedule>(std::move(s));
}

}  // namespace hitcost::client
