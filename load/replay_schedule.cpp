#include "load/replay_schedule.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "trace/trace_file.h"

namespace hitcost::client {
namespace {

using trace::Op;
using trace::Outcome;
using trace::TraceEvent;

struct KeyState {
  uint32_t id = 0;
  uint32_t size = 0;
  bool seen = false;     // read or written before in the trace
  bool present = false;  // in the replay's cache now
};

}  // namespace

uint32_t rows_for(const PageSizing& sizing, uint32_t value_bytes) noexcept {
  const double per_row = sizing.bytes_per_row > 0 ? sizing.bytes_per_row : 1;
  const double rows = std::round((static_cast<double>(value_bytes) - sizing.base_bytes) / per_row);
  return static_cast<uint32_t>(std::clamp<double>(rows, 1, sizing.max_rows));
}

Result<std::shared_ptr<const ReplaySchedule>> build_replay_schedule(const std::string& trace_path, double speed,
                                                                    int threads, const PageSizing& sizing,
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

  // Pass 1: ids in order of first appearance, and each key's size (the largest it is given).
  std::unordered_map<uint64_t, KeyState> keys;
  keys.reserve(events.size() / 4 + 16);
  for (const TraceEvent& e : events) {
    auto [it, added] = keys.try_emplace(e.key);
    if (added) it->second.id = static_cast<uint32_t>(keys.size() - 1);
    it->second.size = std::max(it->second.size, e.value_size);
  }
  s->counts.keys = keys.size();

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
    const uint32_t rows = rows_for(sizing, k.size);
    auto& lane = s->per_thread[k.id % static_cast<uint32_t>(threads)];
    auto push = [&](ReplayKind kind) { lane.push_back({due_ns, k.id, rows, kind}); };
    if (trace::is_read(op)) {
      if (outcome == Outcome::found) {
        ++s->counts.recorded_found;
        if (!k.seen) {
          s->prewarm.push_back({0, k.id, rows, ReplayKind::write});
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
        if (!k.seen) s->prewarm.push_back({0, k.id, rows, ReplayKind::remove});
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
