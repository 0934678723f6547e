#pragma once
// One io thread: its own io_context, acceptor (SO_REUSEPORT, the kernel spreads
// connections), router, metrics and sessions. Nothing here is shared between threads
// except through ServerContext (config holder, metrics registry), which lock or use
// atomics themselves.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <optional>
#include <unordered_set>

#include "server/cpu_sampler.h"
#include "server/http_date.h"
#include "server/router.h"

namespace hitcost::server {

class Session;

class Worker {
 public:
  Worker(ServerContext& ctx, size_t index, const boost::asio::ip::tcp::endpoint& endpoint);

  boost::asio::io_context& io() { return io_; }
  const boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
  void run(int cpu);           // blocks until stopped or drained
  void begin_drain();          // thread-safe: posts to the worker
  void stop() { io_.stop(); }  // thread-safe

  // Used by sessions (same thread).
  Router& router() { return router_; }
  ThreadMetrics& metrics() { return metrics_; }
  CpuSampler& sampler() { return sampler_; }
  HttpDate& date() { return date_; }
  AccessLogWriter* access_log() { return log_ ? &*log_ : nullptr; }  // null without --access-log
  const ServerOptions& opts() const { return ctx_.opts; }
  bool draining() const { return draining_ || ctx_.draining.load(std::memory_order_relaxed); }
  void add(Session* s) { sessions_.insert(s); }
  void remove(Session* s) { sessions_.erase(s); }

 private:
  void do_accept();
  std::string record_affinity();  // stores this thread's CPUs in ctx_.thread_cpus and returns them
  void arm_sweeper();

  ServerContext& ctx_;
  size_t index_;
  ThreadMetrics& metrics_;
  CpuSampler sampler_;             // before router_, which holds a reference to it
  boost::asio::io_context io_{1};  // concurrency hint 1: single-threaded, fewer locks
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer sweeper_;
  Router router_;
  HttpDate date_;
  std::optional<AccessLogWriter> log_;
  std::unordered_set<Session*> sessions_;
  bool draining_ = false;
};

}  // namespace hitcost::server
