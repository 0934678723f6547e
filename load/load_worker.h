#pragma once
// Internal to the load engine (load_runner.cpp): one load thread's connections and epoll
// loop. Split out of load_runner.cpp only to keep files short; not a public interface.
#include <sys/epoll.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "figures/series.h"
#include "load/http_parser.h"
#include "load/key_chooser.h"
#include "load/load_runner.h"

namespace hitcost::client::detail {

constexpr uint64_t kConnectRetryNs = 10'000'000;  // back off after a failed connect
constexpr uint64_t kErrorRetryNs = 1'000'000;     // reconnect after a dropped connection
constexpr int kMaxEvents = 256;
constexpr size_t kReadBuf = 256 * 1024;  // one per thread, shared by its connections
// Open loop: how long after the window the requests due in it are still followed (load_runner.h).
// 100 ms is thousands of service times here, and short next to a run.
constexpr uint64_t kDrainNs = 100'000'000;

struct Conn {
  enum class State : uint8_t { closed, connecting, idle, writing, reading };
  int fd = -1;
  State state = State::closed;
  bool want_out = false;     // EPOLLOUT currently registered
  bool in_idle = false;      // sits in the open-loop idle stack
  bool measured = false;     // the request in flight counts
  bool forced_miss = false;  // the request in flight asks for a never-seen id
  bool ever_opened = false;
  uint16_t tmpl = 0;                   // which request template (rows_mix entry) the request used
  ReplayKind kind = ReplayKind::read;  // a replay's request: read, write or remove
  uint32_t replay_id = UINT32_MAX;     // and its page id (one request per key in flight)
  uint32_t gen = 0;                    // epoll tag generation: stale events after a reconnect are ignored
  uint32_t req_len = 0, req_off = 0;
  uint64_t intended_ns = 0, sent_ns = 0, deadline_ns = 0, retry_ns = 0;
  char* req = nullptr;  // this connection's slice of the thread's request arena
  ResponseParser parser;
};

// One load thread's state: its share of the connections, its epoll loop and its counts.
// run_load starts run() on a std::thread of its own and reads result() after the join.
class LoadThread {
 public:
  LoadThread(const LoadPlan& plan, const std::vector<RequestTemplate>& tmpls, int index, int conns, double rate,
             uint64_t requests_quota, uint64_t t0, uint64_t measure_start, uint64_t measure_end,
             const std::atomic<bool>* stop)
      : plan_(plan),
        tmpls_(tmpls),
        index_(index),
        rate_(rate),
        quota_(requests_quota),
        t0_(t0),
        measure_start_(measure_start),
        measure_end_(measure_end),
        stop_(stop),
        chooser_(plan.keys, plan.seed * 0x9e3779b97f4a7c15ULL + uint64_t(index) + 1, uint64_t(index),
                 uint64_t(plan.threads)),
        mix_rng_(plan.seed * 0xbf58476d1ce4e5b9ULL + uint64_t(index) + 7),
        conns_(size_t(conns)) {
    size_t slot = 0;
    for (const auto& t : tmpls_) slot = std::max(slot, t.prefix.size() + 20 + t.suffix.size());
    if (plan.replay) set_up_replay(slot);
    double total = 0;
    for (const auto& share : plan.rows_mix) total += share.weight;
    for (const auto& share : plan.rows_mix)
      mix_cdf_.push_back((mix_cdf_.empty() ? 0.0 : mix_cdf_.back()) + share.weight / total);
    r_.rows_requests.assign(plan.rows_mix.size(), 0);
    arena_.resize(slot * conns_.size());
    for (size_t i = 0; i < conns_.size(); ++i) conns_[i].req = arena_.data() + i * slot;
    idle_.reserve(conns_.size());
    if (rate_ > 0) interval_ns_ = 1e9 / rate_;
  }

  void run();
  LoadResult& result() { return r_; }
  const LiveProgress& progress() const { return live_; }
  uint64_t last_done_ns() const noexcept { return last_done_ns_; }
  uint64_t stopped_ns() const noexcept { return stopped_ns_; }  // when it saw `stop`; 0 = it did not

 private:
  bool duration_mode() const noexcept { return quota_ == 0; }
  bool quota_done() const noexcept { return quota_ && quota_sent_ >= quota_; }
  // Open loop after the window: a measured request still in flight, or one due in it not yet sent.
  bool due_in_window() const noexcept;
  uint64_t intended(uint64_t k) const noexcept {
    if (replay_) return replay_due(k);
    return open_loop_due_ns(t0_, k, interval_ns_, index_, plan_.threads);
  }
  // A replay (LoadPlan::replay): this thread's prewarm PUTs spread over the first half of the
  // warm-up, then its lane of the trace from the window's start; UINT64_MAX past the end.
  void set_up_replay(size_t& slot);
  uint64_t replay_due(uint64_t k) const noexcept {
    if (k < prewarm_.size()) return prewarm_due_[k];
    k -= prewarm_.size();
    return k < replay_->size() ? measure_start_ + (*replay_)[k].due_ns : UINT64_MAX;
  }
  const ReplayRequest& replay_request(uint64_t k) const noexcept {
    return k < prewarm_.size() ? prewarm_[k] : (*replay_)[k - prewarm_.size()];
  }
  // Open loop: when the next request may go out (dispatch_open_loop's rules), UINT64_MAX if none will.
  uint64_t next_due() const noexcept {
    const uint64_t due = intended(next_k_);
    if (duration_mode() && due >= measure_end_) return UINT64_MAX;
    if (quota_done() && due >= measure_start_) return UINT64_MAX;
    return due;
  }

  // run()'s steps.
  bool set_up();
  void note_cpu() noexcept;
  bool loop_over(uint64_t now) noexcept;
  uint64_t wait_ns(uint64_t now, uint64_t next_check) const noexcept;
  int wait_for_events(uint64_t now, uint64_t wait, epoll_event* events);
  void wind_down();

  void open(Conn& c, uint64_t now);
  void on_connected(Conn& c, uint64_t now);
  void drop(Conn& c, uint64_t now, uint64_t retry_after);
  void handle(Conn& c, uint32_t events);
  void on_readable(Conn& c);
  bool consume(Conn& c, const char* data, size_t n, uint64_t t);  // false: c was dropped
  void on_response(Conn& c, uint64_t t);
  void became_idle(Conn& c, uint64_t now);
  void send(Conn& c, uint64_t intended_ns, uint64_t k = 0);  // k: the open-loop request's number
  void start_request(Conn& c, uint64_t intended_ns);         // the request is in c.req: time it, send it
  void flush(Conn& c);
  void set_out(Conn& c, bool on);
  void dispatch_open_loop(uint64_t now);
  bool key_in_flight(uint32_t id) const noexcept;  // a replay's request of page `id` is in flight
  void check_timers(uint64_t now);
  // false: outside the window, not counted. The first error of each kind keeps its detail
  // (the OS's or the server's reason) for the report.
  // Errors in the window count, and in an open loop's drain after it (the requests due in the
  // window are still followed then), outside the per-second series.
  bool count_error(uint64_t& counter, uint64_t now, std::string_view kind, std::string_view detail) {
    if (now < measure_start_ || now > measure_end_ + (rate_ > 0 ? kDrainNs : 0)) return false;
    ++counter;
    if (now <= measure_end_) ++r_.series.at(measure_start_, now).errors;
    if (plan_.live_progress) LiveProgress::bump(live_.errors);
    keep_first_error(r_.error_samples, kind, detail);
    return true;
  }
  void on_timeout(const Conn& c, uint64_t now);
  void account_cut_off(uint64_t end);
  uint64_t tag(size_t i) const noexcept { return (uint64_t(conns_[i].gen) << 32) | i; }

  const LoadPlan& plan_;
  const std::vector<RequestTemplate>& tmpls_;
  const std::vector<ReplayRequest>* replay_ = nullptr;  // this thread's lane of a replay
  std::vector<ReplayRequest> prewarm_;                  // this thread's share of the prewarm PUTs
  std::vector<uint64_t> prewarm_due_;                   // their due times, CLOCK_MONOTONIC ns
  std::array<std::string, kReplayKinds> replay_prefix_, replay_suffix_;
  int index_;
  double rate_;
  double interval_ns_ = 0;
  uint64_t quota_;
  uint64_t t0_, measure_start_, measure_end_;
  const std::atomic<bool>* stop_;
  KeyChooser chooser_;
  Rng mix_rng_;  // rows_mix choice; separate so the key sequence stays the same
  std::vector<double> mix_cdf_;
  LiveProgress live_;
  std::vector<Conn> conns_;
  std::vector<char> arena_;
  std::vector<uint32_t> idle_;  // open loop: connections ready to send
  std::vector<char> rbuf_ = std::vector<char>(kReadBuf);
  int epfd_ = -1;
  uint64_t next_k_ = 0;  // open loop: index of the next request to send
  uint64_t quota_sent_ = 0;
  uint64_t in_flight_ = 0;
  uint64_t last_done_ns_ = 0;
  uint64_t stopped_ns_ = 0;
  uint64_t cpu_seen_[16] = {};  // bitmap of CPUs this thread ran on (first 1024)
  bool have_pwait2_ = true;     // false once epoll_pwait2 said ENOSYS (kernel < 5.11)
  // Open loop: how long before a due send to stop sleeping, and how late the last timed
  // waits ended (load_runner.h: punctuality).
  uint64_t spin_ns_ = 0;
  std::array<uint64_t, 32> wake_late_ns_{};
  size_t wake_late_count_ = 0;
  void learn_wake_delay(uint64_t late_ns) noexcept;
  LoadResult r_;
};

}  // namespace hitcost::client::detail
