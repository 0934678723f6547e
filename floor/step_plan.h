#pragma once
// The steps a calibration times, and the one place each kind of step is built: the hit's floor
// (hit_floor.h) and the host's table (host_calibration.h) both add their steps here, so a step
// is timed the same way wherever it appears. A Plan owns everything its steps' operations use
// (buffers, values, pages, loopback peers) at stable addresses until it is run.
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codecs/decoders.h"
#include "codecs/page.h"
#include "codecs/strategy.h"
#include "codecs/value_codec.h"
#include "core/result.h"
#include "floor/cpu_timing.h"
#include "floor/loopback.h"

namespace hitcost::floor {

struct Step {
  std::string part;      // what it is the floor of: a CPU part of a hit, or a group of the host's table
  std::string name;      // "decompress", "decode", "send", ...
  std::string library;   // "libdeflate", "json:simdjson", "kernel", "beast", "hitcost", "libc"
  std::string bytes_of;  // what its bytes are: "html", "json", "zlib of json", ... ("" in a hit)
  size_t bytes_in = 0, bytes_out = 0;
  bool in_force = false;  // the library the server uses now (true for a step with no alternative)
  bool fastest = false;   // the lowest of the alternatives for the same bytes (true with none)
  Timing timing;
  std::string error;  // non-empty: it failed its check and was not timed
  // MB/s over the larger of bytes_in and bytes_out, at the median (0 when not timed).
  double mb_per_s() const noexcept;
};

class Plan {
 public:
  explicit Plan(int peer_cpu) : peer_cpu_(peer_cpu) {}

  // receive: `request_bytes` of a GET off a loopback socket, then Beast's parse of them.
  Status add_receive(const std::string& part, size_t request_bytes);
  // A send of `bytes` on loopback to a peer that reads them.
  Status add_send(const std::string& part, size_t bytes);
  // A round trip: `request` bytes out, `reply` bytes back (the peer pays for sending them).
  Status add_round_trip(const std::string& part, size_t request, size_t reply);
  // A copy of `bytes` into a reused buffer (a store's get from memory, an html value into the body).
  // `copies` > 1: the source rotates over that many copies of the value, as a store's get reads
  // one of many values (a working set larger than the caches is copied from memory, not from L1).
  void add_memcpy(const std::string& part, const std::string& bytes, std::string bytes_of = "", size_t copies = 1);
  // A pread(2) of `bytes` from the page cache (a memfd). Errors: io_error.
  Status add_pread(const std::string& part, const std::string& bytes, std::string bytes_of = "");
  // unwrap_value of `stored` under `scheme` with every library of its compressor's format (zlib:
  // codecs/inflate.h's rows); each checked to give `payload`. `in_force`: the reader's libraries.
  void add_unwrap(const std::string& part, const EncodedValue& stored, FlagScheme scheme, const std::string& payload,
                  const Decoders& in_force, std::string bytes_of = "");
  // decode_page of `payload` (serializer `s`) with every library of its format, each checked to
  // give `page`.
  void add_decode(const std::string& part, SerializerId s, const std::string& payload, const Page& page,
                  const Decoders& in_force, std::string bytes_of = "");
  // encode_page of `page` under `s` (the miss side, and the build half of JSON).
  void add_encode(const std::string& part, SerializerId s, const Page& page);
  // render_page of `page`, checked to give `html`.
  void add_render(const std::string& part, const Page& page, const std::string& html);

  // A step of the caller's own: `op` one call, `check` (optional) whether the first was right.
  void add_op(Step s, std::function<bool()> op, std::function<bool()> check = {}) {
    add(std::move(s), std::move(op), std::move(check));
  }
  // A loopback peer kept for the plan's life (loopback.h), for an op of the caller's own.
  Result<LoopbackPeer*> open_peer(LoopbackPeer::Role role, size_t request_bytes, size_t reply_bytes);

  // Times every step (cpu_timing.h: interleaved repeats) and returns them, the fastest of each
  // group of alternatives marked (same part, name and bytes_of).
  std::vector<Step> run(const TimingPlan& timing);

 private:
  struct Entry {
    Step step;
    TimedOp op;
  };
  void add(Step s, std::function<bool()> op, std::function<bool()> check = {});
  std::string& buffer(size_t n = 0) { return buffers_.emplace_back(n, 'x'); }
  const std::string& keep(const std::string& s) { return buffers_.emplace_back(s); }
  const Page& keep(const Page& p) { return pages_.emplace_back(p); }

  int peer_cpu_;
  std::deque<Entry> entries_;
  std::vector<std::unique_ptr<LoopbackPeer>> links_;
  std::deque<std::string> buffers_;
  std::deque<Page> pages_;
  std::deque<EncodedValue> values_;
  std::vector<std::shared_ptr<void>> held_;  // file descriptors closed when the plan goes
};

}  // namespace hitcost::floor
