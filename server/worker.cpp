#include "server/worker.h"

#include <pthread.h>
#include <sched.h>

#include <boost/asio/socket_base.hpp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/pin.h"
#include "server/session.h"
#include "server/slow_log.h"

namespace hitcost::server {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {
// SO_REUSEPORT (--reuse-port): other sockets, of this user, may bind the same port.
using reuse_port_option = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;
constexpr auto kSweepEvery = std::chrono::milliseconds(100);
}  // namespace

Worker::Worker(ServerContext& ctx, size_t index)
    : ctx_(ctx),
      index_(index),
      metrics_(ctx.metrics.thread(index)),
      trace_(ctx.slow_log != nullptr),
      sampler_(metrics_, ctx.opts.metrics, ctx.opts.cpu_sample_period),
      acceptor_(io_),
      sweeper_(io_),
      router_(ctx, metrics_, sampler_) {
  if (ctx.access_log) log_.emplace(*ctx.access_log, metrics_);
  sampler_.trace_with(&trace_);
}

void Worker::listen(const asio::ip::tcp::endpoint& endpoint, bool reuse_port, std::vector<Worker*> all) {
  acceptor_.open(endpoint.protocol());
  // SO_REUSEADDR: a restart binds while old connections sit in TIME_WAIT. On Linux it never
  // lets two sockets listen on one address and port; only SO_REUSEPORT does that.
  acceptor_.set_option(asio::socket_base::reuse_address(true));
  if (reuse_port) acceptor_.set_option(reuse_port_option(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  accept_for_ = std::move(all);
}

void Worker::run(int cpu) {
  const int pin_error = pin_this_thread(cpu);
  const std::string runs_on = record_affinity();
  // Said once per process (the first thread to fail), counted for every thread in /stats.
  if (pin_error != 0 && ctx_.pin_failures.fetch_add(1) == 0)
    std::fprintf(stderr,
                 "hitcost-server: io thread %zu cannot be pinned to CPU %d (%s); it runs on CPUs %s. "
                 "/stats pin_failures counts the threads left unpinned\n",
                 index_, cpu, std::strerror(pin_error), runs_on.c_str());
  sampler_.calibrate();  // on this thread, after pinning: the clock's cost where it will be read
  if (acceptor_.is_open()) do_accept();
  arm_sweeper();
  io_.run();
  // Stopped or drained: the lines this thread still buffers go out now, whatever the mode.
  if (log_) log_->flush(router_.config().log.sync);
}

std::string Worker::record_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &set)) continue;
      int end = c;
      while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
      if (!cpus.empty()) cpus += ',';
      cpus += std::to_string(c);
      if (end > c) cpus += "-" + std::to_string(end);
      c = end;
    }
  }
  if (cpus.empty()) cpus = "unknown";
  std::lock_guard lk(ctx_.placement_mu);
  if (ctx_.thread_cpus.size() <= index_) ctx_.thread_cpus.resize(index_ + 1);
  ctx_.thread_cpus[index_] = cpus;
  return cpus;
}

void Worker::do_accept() {
  // The socket is made in the io_context of the worker whose turn it is: it is that thread's
  // from the start, and only the accept itself runs here.
  Worker* to = accept_for_[next_];
  acceptor_.async_accept(to->io_, [this, to](error_code ec, asio::ip::tcp::socket socket) {
    if (ec) {
      if (!acceptor_.is_open() || draining_) return;
      // EMFILE and friends: keep accepting rather than dying.
      return do_accept();
    }
    next_ = (next_ + 1) % accept_for_.size();
    if (to == this)
      adopt(std::move(socket));
    else
      asio::post(to->io_, [to, s = std::move(socket)]() mutable { to->adopt(std::move(s)); });
    do_accept();
  });
}

void Worker::adopt(asio::ip::tcp::socket socket) {
  if (draining()) return;  // handed over while a drain began: closed unanswered, like a late connect
  std::make_shared<Session>(std::move(socket), *this)->start();
}

void Worker::arm_sweeper() {
  sweeper_.expires_after(kSweepEvery);
  sweeper_.async_wait([this](error_code ec) {
    if (ec) return;
    auto now = Session::clock::now();
    auto limit = std::chrono::milliseconds(ctx_.opts.idle_timeout_ms);
    std::vector<Session*> all(sessions_.begin(), sessions_.end());
    for (Session* s : all) {
      if (draining_) s->drain();
      s->check_timeout(now, limit);
    }
    if (log_) log_->flush_if_due(router_.config().log);  // buffered lines wait at most flush:MS
    if (draining_ && sessions_.empty()) return;          // nothing left: let run() return
    arm_sweeper();
  });
}

void Worker::begin_drain() {
  asio::post(io_, [this] {
    draining_ = true;
    error_code ec;
    acceptor_.close(ec);
    std::vector<Session*> all(sessions_.begin(), sessions_.end());
    for (Session* s : all) s->drain();
  });
}

void Worker::request_done(std::string_view target, const Response& res, size_t body_bytes) {
  if (!trace_.on()) return;
  trace_.ended();
  // Admin routes are long by design (a calibration, a warm) and are not what a run measures.
  if (target.starts_with("/admin/")) return;
  if (trace_.service_ns() <= ctx_.slow_log->threshold_ns()) return;
  SlowEntry e;
  e.unix_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  e.target.assign(target);
  e.key = res.key;
  e.cache = res.cache;
  e.strategy = res.strategy;
  e.status = res.status;
  e.body_bytes = body_bytes;
  e.service_ns = trace_.service_ns();
  e.major_faults = trace_.major_faults();
  e.cpu_ns = trace_.cpu_ns();
  e.wall_ns = trace_.wall_ns();
  e.waited_on = what_it_waited_on(e, router_.config().store_spec);
  metrics_.slow_requests.add();
  if (!ctx_.slow_log->record(std::move(e))) metrics_.slow_log_dropped.add();
}

}  // namespace hitcost::server
