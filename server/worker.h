#pragma once
// One io thread: its own io_context, router, metrics and sessions. Nothing here is shared
// between threads except through ServerContext (config holder, metrics registry), which lock
// or use atomics themselves, and the hand-off of accepted connections (below).
//
// Accepting: the process listens on ONE socket, held by worker 0, which accepts every
// connection into the io_context of the next worker in turn (round robin, itself included)
// and posts it there. Why not an acceptor per thread: that needs SO_REUSEPORT, and with it a
// second server on the same port (same user) starts too and every figure mixes two servers.
// Why not one socket dup()ed into every thread: each accept would go to whichever thread
// woke first (a busy thread accepts less), so the spread of connections would depend on
// timing; round robin spreads them evenly, as a benchmark wants. What it costs: worker 0
// makes the accept(2) calls, once per connection (connections are kept alive). With
// --reuse-port the one socket also carries SO_REUSEPORT, for several processes on one port.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <optional>
#include <unordered_set>
#include <vector>

#include "server/cpu_sampler.h"
#include "server/http_date.h"
#include "server/router.h"

namespace hitcost::server {

class Session;

class Worker {
 public:
  Worker(ServerContext& ctx, size_t index);

  // Worker 0, before run(): opens, binds and listens on `endpoint` (throws
  // boost::system::system_error), and will hand the connections to `all` in turn.
  void listen(const boost::asio::ip::tcp::endpoint& endpoint, bool reuse_port, std::vector<Worker*> all);
  boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }

  boost::asio::io_context& io() { return io_; }
  void run(int cpu);           // blocks until stopped or drained
  void begin_drain();          // thread-safe: posts to the worker
  void stop() { io_.stop(); }  // thread-safe

  // Used by sessions (same thread).
  Router& router() { return router_; }
  ThreadMetrics& metrics() { return metrics_; }
  CpuSampler& sampler() { return sampler_; }
  // With --slow-log: every request's parts (request_trace.h); a response handed to the kernel
  // closes it, and a slow one goes to the slow log (server/slow_log.h).
  void request_done(std::string_view target, const Response& res, size_t body_bytes);
  HttpDate& date() { return date_; }
  AccessLogWriter* access_log() { return log_ ? &*log_ : nullptr; }  // null without --access-log
  const ServerOptions& opts() const { return ctx_.opts; }
  bool draining() const { return draining_ || ctx_.draining.load(std::memory_order_relaxed); }
  void add(Session* s) { sessions_.insert(s); }
  void remove(Session* s) { sessions_.erase(s); }

 private:
  void do_accept();                                 // worker 0 only
  void adopt(boost::asio::ip::tcp::socket socket);  // on this thread: a new session
  std::string record_affinity();                    // stores this thread's CPUs in ctx_.thread_cpus and returns them
  void arm_sweeper();

  ServerContext& ctx_;
  size_t index_;
  ThreadMetrics& metrics_;
  RequestTrace trace_;                       // before sampler_, which tells it every part's end
  CpuSampler sampler_;                       // before router_, which holds a reference to it
  boost::asio::io_context io_{1};            // concurrency hint 1: single-threaded, fewer locks
  boost::asio::ip::tcp::acceptor acceptor_;  // open on worker 0 only
  std::vector<Worker*> accept_for_;          // worker 0: every worker, in hand-out order
  size_t next_ = 0;                          // worker 0: who gets the next connection
  boost::asio::steady_timer sweeper_;
  Router router_;
  HttpDate date_;
  std::optional<AccessLogWriter> log_;
  std::unordered_set<Session*> sessions_;
  bool draining_ = false;
};

}  // namespace hitcost::server
