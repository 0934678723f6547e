#include "load/load_worker.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/pin.h"

namespace hitcost::client::detail {

void LoadThread::set_out(Conn& c, bool on) {
  if (c.want_out == on) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
  ev.data.u64 = tag(size_t(&c - conns_.data()));
  epoll_ctl(epfd_, EPOLL_CTL_MOD, c.fd, &ev);
  c.want_out = on;
}

void LoadThread::open(Conn& c, uint64_t now) {
  if (c.ever_opened) ++r_.reconnects;
  c.ever_opened = true;
  bool pending = false;
  c.fd = start_connect(plan_.endpoint, &pending);
  if (c.fd < 0) {
    count_error(r_.errors.connect, now, "connect", std::strerror(errno));
    c.state = Conn::State::closed;
    c.retry_ns = now + kConnectRetryNs;
    return;
  }
  ++c.gen;
  epoll_event ev{};
  ev.events = EPOLLIN | (pending ? EPOLLOUT : 0u);
  ev.data.u64 = tag(size_t(&c - conns_.data()));
  epoll_ctl(epfd_, EPOLL_CTL_ADD, c.fd, &ev);
  c.want_out = pending;
  c.parser.reset();
  if (pending) {
    c.state = Conn::State::connecting;
    c.deadline_ns = now + plan_.timeout_ns;
  } else {
    on_connected(c, now);
  }
}

void LoadThread::on_connected(Conn& c, uint64_t now) {
  set_out(c, false);
  c.state = Conn::State::idle;
  became_idle(c, now);
}

// Closing the fd also removes it from the epoll set (we never dup these fds).
void LoadThread::drop(Conn& c, uint64_t now, uint64_t retry_after) {
  if (c.state == Conn::State::writing || c.state == Conn::State::reading) --in_flight_;
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
  c.state = Conn::State::closed;
  c.want_out = false;
  c.retry_ns = now + retry_after;
}

void LoadThread::became_idle(Conn& c, uint64_t now) {
  if (rate_ > 0) {
    if (!c.in_idle) {
      c.in_idle = true;
      idle_.push_back(uint32_t(&c - conns_.data()));
    }
    return;
  }
  if (quota_done()) return;
  if (duration_mode() && now >= measure_end_) return;
  send(c, 0);
}

void LoadThread::set_up_replay(size_t& slot) {
  replay_ = &plan_.replay->per_thread[size_t(index_)];
  const uint64_t warmup = measure_start_ - t0_;
  for (const ReplayRequest& r : plan_.replay->prewarm)
    if (r.id % uint32_t(plan_.threads) == uint32_t(index_)) prewarm_.push_back(r);
  for (size_t i = 0; i < prewarm_.size(); ++i)
    prewarm_due_.push_back(t0_ + warmup / 2 * i / std::max<size_t>(1, prewarm_.size()));
  const char* methods[kReplayKinds] = {"GET", "PUT", "DELETE"};
  // Pages: /page/{id}?rows=R[&query]; values: /value/{n}[?query].
  const bool values = plan_.replay->values;
  const std::string query = plan_.query.empty() ? "" : (values ? "?" : "&") + plan_.query;
  const std::string rest = query + " HTTP/1.1\r\nHost: " + plan_.endpoint.host_header + "\r\n";
  for (int k = 0; k < kReplayKinds; ++k) {
    replay_prefix_[k] = std::string(methods[k]) + (values ? " /value/" : " /page/");
    replay_suffix_[k] = rest + (k == 0 ? "" : "Content-Length: 0\r\n") + "\r\n";
    slot = std::max(slot, replay_prefix_[k].size() + 10 + 6 + 10 + replay_suffix_[k].size());
  }
}

void LoadThread::send(Conn& c, uint64_t intended_ns, uint64_t k) {
  if (replay_) {
    // /page/{id}?rows=R or /value/{n}, by kind.
    const ReplayRequest& r = replay_request(k);
    const auto kind = static_cast<size_t>(r.kind);
    char* p = c.req;
    std::memcpy(p, replay_prefix_[kind].data(), replay_prefix_[kind].size());
    p += replay_prefix_[kind].size();
    p = std::to_chars(p, p + 10, r.id).ptr;
    if (!plan_.replay->values) {
      std::memcpy(p, "?rows=", 6);
      p = std::to_chars(p + 6, p + 16, r.rows).ptr;
    }
    std::memcpy(p, replay_suffix_[kind].data(), replay_suffix_[kind].size());
    p += replay_suffix_[kind].size();
    c.req_len = uint32_t(p - c.req);
    c.kind = r.kind;
    c.replay_id = r.id;
    c.tmpl = 0;
    c.forced_miss = false;
    start_request(c, intended_ns);
    return;
  }
  const KeyChooser::Pick pick = chooser_.next();
  c.tmpl = 0;
  if (mix_cdf_.size() > 1) {
    const double u = mix_rng_.uniform();
    while (c.tmpl + 1u < mix_cdf_.size() && u >= mix_cdf_[c.tmpl]) ++c.tmpl;
  }
  const RequestTemplate& t = tmpls_[c.tmpl];
  char* p = c.req;
  std::memcpy(p, t.prefix.data(), t.prefix.size());
  p += t.prefix.size();
  if (t.has_id) p = std::to_chars(p, p + 20, pick.id).ptr;
  std::memcpy(p, t.suffix.data(), t.suffix.size());
  p += t.suffix.size();
  c.req_len = uint32_t(p - c.req);
  c.forced_miss = pick.forced_miss;
  start_request(c, intended_ns);
}

void LoadThread::start_request(Conn& c, uint64_t intended_ns) {
  c.req_off = 0;
  c.sent_ns = now_ns();
  c.intended_ns = rate_ > 0 ? intended_ns : c.sent_ns;
  c.deadline_ns = c.sent_ns + plan_.timeout_ns;
  c.measured = c.intended_ns >= measure_start_ && c.intended_ns < measure_end_ && (quota_ == 0 || quota_sent_ < quota_);
  if (c.measured && quota_) ++quota_sent_;
  if (c.measured && rate_ > 0) r_.send_lateness.record(c.sent_ns - c.intended_ns);  // due <= now: >= 0
  c.state = Conn::State::writing;
  ++in_flight_;
  flush(c);
}

void LoadThread::flush(Conn& c) {
  while (c.req_off < c.req_len) {
    const ssize_t n = ::send(c.fd, c.req + c.req_off, c.req_len - c.req_off, MSG_NOSIGNAL);
    if (n > 0) {
      c.req_off += uint32_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      set_out(c, true);  // rare: the socket buffer is full; finish on EPOLLOUT
      return;
    }
    const uint64_t now = now_ns();
    count_error(r_.errors.write, now, "write", std::strerror(errno));
    drop(c, now, kErrorRetryNs);
    return;
  }
  set_out(c, false);
  c.state = Conn::State::reading;
}

void LoadThread::handle(Conn& c, uint32_t events) {
  if (c.state == Conn::State::connecting) {
    const uint64_t now = now_ns();
    if (const int err = connect_result(c.fd); err != 0) {
      count_error(r_.errors.connect, now, "connect", std::strerror(err));
      drop(c, now, kConnectRetryNs);
    } else if (events & (EPOLLOUT | EPOLLIN)) {
      on_connected(c, now);
    }
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    on_readable(c);
    if (c.fd < 0) return;
  }
  if ((events & EPOLLOUT) && c.state == Conn::State::writing) flush(c);
}

void LoadThread::on_readable(Conn& c) {
  for (;;) {
    const ssize_t n = ::recv(c.fd, rbuf_.data(), rbuf_.size(), 0);
    if (n > 0) {
      const uint64_t t = now_ns();  // the time the last byte so far was seen
      if (!consume(c, rbuf_.data(), size_t(n), t)) return;
      if (size_t(n) < rbuf_.size()) return;  // drained; skip the EAGAIN round trip
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    const uint64_t now = now_ns();
    // EOF or error. An idle keep-alive connection closed by the server is not an error;
    // losing a request in flight (or half a response) is.
    const bool lost = c.state == Conn::State::writing || c.state == Conn::State::reading || !c.parser.idle();
    if (lost || n < 0)
      count_error(r_.errors.read, now, "read",
                  n < 0 ? std::string_view(std::strerror(errno)) : "the server closed the connection mid-request");
    drop(c, now, lost || n < 0 ? kErrorRetryNs : 0);
    if (c.retry_ns <= now) open(c, now);
    return;
  }
}

bool LoadThread::consume(Conn& c, const char* data, size_t n, uint64_t t) {
  while (n > 0) {
    if (c.state != Conn::State::reading) {  // bytes nobody asked for
      count_error(r_.errors.parse, t, "parse", "bytes arrived while no request was in flight");
      drop(c, t, kErrorRetryNs);
      return false;
    }
    size_t used = 0;
    const ResponseParser::Result res = c.parser.feed(data, n, &used);
    data += used;
    n -= used;
    if (res == ResponseParser::Result::need_more) return true;
    if (res == ResponseParser::Result::error) {
      count_error(r_.errors.parse, t, "parse", c.parser.error());
      drop(c, t, kErrorRetryNs);
      return false;
    }
    on_response(c, t);
    const bool close = c.parser.info().close;
    c.parser.reset();
    --in_flight_;
    c.state = Conn::State::idle;
    if (close || n > 0) {
      if (n > 0)
        count_error(r_.errors.parse, t, "parse", "bytes after the response that nobody asked for");  // pipelined
      drop(c, t, 0);
      open(c, t);
      return false;
    }
    became_idle(c, t);
    return true;
  }
  return true;
}

void LoadThread::on_response(Conn& c, uint64_t t) {
  if (!c.measured) return;
  // After the window: closed loop, merely cut off; open loop, a request due in the window
  // answered in the drain (see the header), counted like any but outside the per-second series.
  const bool drained = duration_mode() && t > measure_end_;
  if (drained && rate_ <= 0) return;
  const ResponseInfo& info = c.parser.info();
  const uint64_t latency = t - c.intended_ns;
  ++r_.requests;
  r_.latency.record(latency);
  r_.service.record(t - c.sent_ns);
  r_.bytes_read += info.header_bytes + info.content_length;
  r_.body_bytes += info.content_length;
  if (!r_.rows_requests.empty()) ++r_.rows_requests[c.tmpl];
  if (replay_) ++r_.replay_answered[size_t(c.kind)];
  if (!drained) last_done_ns_ = t;
  SeriesPoint scratch;  // a drained answer's second: not in the window's series
  SeriesPoint& second = drained ? scratch : r_.series.at(measure_start_, t);
  ++second.requests;
  second.latency.record(latency);
  if (plan_.live_progress) live_.record(latency);
  if (info.status < 200 || info.status > 299) {
    ++r_.errors.status;
    ++second.errors;
    if (plan_.live_progress) LiveProgress::bump(live_.errors);
    char kind[16];
    std::snprintf(kind, sizeof kind, "status %d", info.status);
    keep_first_error(r_.error_samples, kind, c.parser.error_body());
    return;
  }
  ++r_.ok;
  ++second.ok;
  if (c.kind != ReplayKind::read) return;  // a replay's write or remove: no page, no X-Cache
  if (info.cache == CacheTag::hit) {
    r_.hit.record(latency);
    ++second.hits;
  } else if (info.cache == CacheTag::miss) {
    r_.miss.record(latency);
    ++second.misses;
  }
  const bool wrong_cache =
      (c.forced_miss && info.cache == CacheTag::hit) || (plan_.expect_cache_header && info.cache == CacheTag::unknown);
  const bool wrong_strategy =
      !plan_.expect_strategy.empty() && info.strategy[0] != '\0' && plan_.expect_strategy != info.strategy;
  if (wrong_cache || wrong_strategy) {
    ++r_.errors.validation;
    // The detail is built only for the first one: a run can be nothing but validation errors.
    const bool first = std::none_of(r_.error_samples.begin(), r_.error_samples.end(),
                                    [](const ErrorSample& e) { return e.kind == "validation"; });
    // hitcost-server names in X-Strategy the form of the value it decoded when that is not one
    // the strategy asked for writes (keys do not name the strategy): say so in a user's words,
    // within the sample's 240 bytes.
    if (first && wrong_strategy)
      keep_first_error(r_.error_samples, "validation",
                       "the server decoded a value stored as " + std::string(info.strategy) + ", not " +
                           plan_.expect_strategy +
                           " (X-Strategy): the namespace holds values of another strategy; warm under this "
                           "strategy or give it a namespace of its own");
    else if (first)
      keep_first_error(
          r_.error_samples, "validation",
          info.cache == CacheTag::hit ? "a never-seen id answered X-Cache: hit" : "a 2xx response without X-Cache");
  }
}

bool LoadThread::due_in_window() const noexcept {
  for (const Conn& c : conns_)
    if ((c.state == Conn::State::writing || c.state == Conn::State::reading) && c.measured) return true;
  return intended(next_k_) < measure_end_;
}

void LoadThread::dispatch_open_loop(uint64_t now) {
  while (!idle_.empty()) {
    const uint64_t due = intended(next_k_);
    if (due > now) return;
    if (duration_mode() && due >= measure_end_) return;
    if (quota_done() && due >= measure_start_) return;
    // A replay keeps each key's order at the server: a request waits while one of its key is in
    // flight (late, from its intended time, like any).
    if (replay_ && key_in_flight(replay_request(next_k_).id)) return;
    Conn& c = conns_[idle_.back()];
    idle_.pop_back();
    c.in_idle = false;
    if (c.state != Conn::State::idle) continue;  // dropped while idle; re-queued on reconnect
    send(c, due, next_k_++);
  }
}

bool LoadThread::key_in_flight(uint32_t id) const noexcept {
  for (const Conn& c : conns_)
    if ((c.state == Conn::State::writing || c.state == Conn::State::reading) && c.replay_id == id) return true;
  return false;
}

void LoadThread::check_timers(uint64_t now) {
  for (Conn& c : conns_) {
    switch (c.state) {
      case Conn::State::closed:
        if (now >= c.retry_ns) open(c, now);
        break;
      case Conn::State::connecting:
        if (now > c.deadline_ns) {
          count_error(r_.errors.connect, now, "connect", "no connection within the timeout");
          drop(c, now, 0);
          open(c, now);
        }
        break;
      case Conn::State::writing:
      case Conn::State::reading:
        if (now > c.deadline_ns) {
          on_timeout(c, now);
          drop(c, now, 0);  // closed: a late answer cannot arrive and be counted again
          open(c, now);
        }
        break;
      case Conn::State::idle: break;
    }
  }
}

// A measured request that timed out weighs in the latency at what it has waited so far
// (see the header), in both loop modes; only when it is also counted as a timeout error.
void LoadThread::on_timeout(const Conn& c, uint64_t now) {
  if (!c.measured || !count_error(r_.errors.timeout, now, "timeout", "no complete response within the timeout")) return;
  r_.latency.record(now - c.intended_ns);
  r_.service.record(now - c.sent_ns);
}

// Open loop, duration mode: what was due in the window but never answered is a symptom of
// overload and must weigh in the latency (see the header). Closed loop always ends with C
// requests cut off in flight: not a symptom, not counted.
void LoadThread::account_cut_off(uint64_t end) {
  if (rate_ <= 0 || !duration_mode()) return;
  for (Conn& c : conns_) {
    if ((c.state != Conn::State::writing && c.state != Conn::State::reading) || !c.measured) continue;
    ++r_.unfinished;
    r_.latency.record(end > c.intended_ns ? end - c.intended_ns : 0);
  }
  for (uint64_t k = next_k_;; ++k) {
    const uint64_t due = intended(k);
    if (due >= measure_end_ || due >= end) break;
    if (due < measure_start_) continue;
    ++r_.unsent;
    r_.latency.record(end - due);
  }
}

// Pins the thread, sets its timer slack and makes its epoll instance; false, with
// r_.setup_error, when the loop cannot run.
bool LoadThread::set_up() {
  // The CPUs were checked online before the run (proc::cpus_not_online_error), so a failure
  // here is not expected; the per-run record of where threads ran is cpu_accounting's.
  if (!plan_.cpus.empty()) pin_this_thread(plan_.cpus[size_t(index_) % plan_.cpus.size()]);
  // Sleeps end when asked, not up to 50 µs later (the default slack): see the header. 0 would
  // mean "back to the default", so 1 ns.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) {  // run_load turns this into its set-up failure
    r_.setup_error = std::string("epoll_create1: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void LoadThread::note_cpu() noexcept {
  const int cpu = sched_getcpu();
  if (cpu >= 0 && cpu < 1024) cpu_seen_[cpu / 64] |= uint64_t{1} << (cpu % 64);
}

// Whether the loop is over: `stop` seen, the window (and in open loop its drain) passed, or
// the quota sent and answered.
bool LoadThread::loop_over(uint64_t now) noexcept {
  if (stop_ && stop_->load(std::memory_order_relaxed)) {
    stopped_ns_ = now;  // nothing is read after this: the interrupted window ends here
    return true;
  }
  if (duration_mode() && now >= measure_end_ && (rate_ <= 0 || now >= measure_end_ + kDrainNs || !due_in_window()))
    return true;
  return quota_done() && in_flight_ == 0;
}

// How long epoll may wait (ns): until the next timer check, the window's (or the drain's)
// end, or in open loop the next due send less the spin.
uint64_t LoadThread::wait_ns(uint64_t now, uint64_t next_check) const noexcept {
  const uint64_t due = rate_ > 0 && !idle_.empty() ? next_due() : UINT64_MAX;
  uint64_t wake = std::min(next_check, due);
  if (duration_mode()) wake = std::min(wake, now < measure_end_ || rate_ <= 0 ? measure_end_ : measure_end_ + kDrainNs);
  uint64_t wait = wake > now ? wake - now : 0;
  // Open loop: sleep only until spin_ns before the due send, then poll (zero timeout) so
  // that it leaves on time while answers are still read.
  if (due != UINT64_MAX && spin_ns_) wait = due > now + spin_ns_ ? std::min(wait, due - now - spin_ns_) : 0;
  return wait;
}

// One epoll wait of `wait` ns from `now`: the number of events, < 0 for none (interrupted, or
// epoll_pwait2 missing: from then on epoll_wait, to the ms).
int LoadThread::wait_for_events(uint64_t now, uint64_t wait, epoll_event* events) {
  if (!have_pwait2_) return epoll_wait(epfd_, events, kMaxEvents, int((wait + 999'999) / 1'000'000));
  timespec ts{time_t(wait / 1'000'000'000), long(wait % 1'000'000'000)};
  const int n = epoll_pwait2(epfd_, events, kMaxEvents, &ts, nullptr);
  if (n < 0 && errno == ENOSYS) {  // kernel < 5.11: fall back to ms resolution
    have_pwait2_ = false;
    return n;
  }
  // A timed wait that ran out: how late it ended is how early the spin must start.
  if (n == 0 && wait > 0 && rate_ > 0 && plan_.spin_adaptive) {
    const uint64_t woke = now_ns();
    learn_wake_delay(woke > now + wait ? woke - now - wait : 0);
  }
  return n;
}

// After the loop: the open loop's cut-off requests counted, the connections closed, and the
// thread's figures (next miss id, CPUs seen, spin) into r_.
void LoadThread::wind_down() {
  // Open loop: what the drain did not see through waited at least until now; closed loop: nothing.
  account_cut_off(rate_ > 0 ? std::max(now_ns(), measure_end_) : measure_end_);
  for (Conn& c : conns_) {
    if (c.fd >= 0) ::close(c.fd);
    c.fd = -1;
  }
  ::close(epfd_);
  r_.miss_end = chooser_.miss_end();
  std::vector<int> cpus;
  for (int cpu = 0; cpu < 1024; ++cpu)
    if (cpu_seen_[cpu / 64] & (uint64_t{1} << (cpu % 64))) cpus.push_back(cpu);
  r_.thread_cpus.push_back(std::move(cpus));
  r_.spin_ns = rate_ > 0 ? spin_ns_ : 0;
}

void LoadThread::run() {
  if (!set_up()) return;
  // Nothing is sent before t0 so that all threads start together.
  while (now_ns() < t0_) std::this_thread::sleep_for(std::chrono::microseconds(200));
  uint64_t now = now_ns();
  for (Conn& c : conns_) open(c, now);
  epoll_event events[kMaxEvents];
  uint64_t next_check = now;
  spin_ns_ = plan_.spin_ns;
  for (uint64_t loops = 0;; ++loops) {
    now = now_ns();
    if ((loops & 255) == 0) note_cpu();
    if (loop_over(now)) break;
    if (now >= next_check) {
      check_timers(now);
      next_check = now + 2'000'000;  // 2 ms: fine next to a 2 s timeout
    }
    if (rate_ > 0) dispatch_open_loop(now);
    const int n = wait_for_events(now, wait_ns(now, next_check), events);
    for (int i = 0; i < n; ++i) {
      const size_t idx = size_t(events[i].data.u64 & 0xffffffffu);
      Conn& c = conns_[idx];
      if (c.fd < 0 || c.gen != uint32_t(events[i].data.u64 >> 32)) continue;
      handle(c, events[i].events);
    }
  }
  wind_down();
}

void LoadThread::learn_wake_delay(uint64_t late_ns) noexcept {
  wake_late_ns_[wake_late_count_++] = late_ns;
  if (wake_late_count_ < wake_late_ns_.size()) return;
  wake_late_count_ = 0;
  auto sorted = wake_late_ns_;
  const size_t p90 = sorted.size() * 9 / 10;
  std::nth_element(sorted.begin(), sorted.begin() + long(p90), sorted.end());
  spin_ns_ = std::clamp<uint64_t>(sorted[p90] + 5'000, 5'000, 1'000'000);
}

}  // namespace hitcost::client::detail
