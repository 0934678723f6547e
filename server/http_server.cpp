#include "server/http_server.h"

#include <chrono>
#include <stdexcept>

#include "core/duration.h"
#include "server/port_holder.h"

namespace hitcost::server {

namespace asio = boost::asio;

HttpServer::HttpServer(const ServerOptions& opts, std::shared_ptr<const ValueOrigin> values) : opts_(opts) {
  // Every value first: nothing is opened or made (a store file, the log) for a start that a
  // bad value stops anyway.
  check_start_values(opts_);
  const auto addr = asio::ip::make_address(opts_.host);
  metrics_ = std::make_unique<MetricsRegistry>(static_cast<size_t>(opts_.threads));
  metrics_->reset();  // baseline = start-up (CPU spent loading counts as before)
  config_ = std::make_unique<ConfigHolder>(make_initial_config(opts_), !opts_.access_log.empty(),
                                           OpenStoreOptions{.create_files = opts_.store_create});
  if (!opts_.access_log.empty())
    access_log_ = std::make_unique<AccessLogFile>(opts_.access_log, [cfg = config_.get()] {
      const auto c = cfg->current();
      return c->log.on() ? c->log.sync : SyncPolicy{};
    });
  ctx_ = std::make_unique<ServerContext>(opts_, *config_, *metrics_, static_cast<size_t>(opts_.threads));
  if (!opts_.slow_log.empty()) {
    auto slow = SlowLog::open(*parse_duration_ns(opts_.slow_log), opts_.slow_log_file, opts_.slow_log_rate);  // checked
    if (!slow) throw std::runtime_error(slow.error().message);
    slow_log_ = std::move(*slow);
  }
  ctx_->access_log = access_log_.get();
  ctx_->slow_log = slow_log_.get();
  ctx_->values = std::move(values);  // before the workers: their routers read it from the start
  const asio::ip::tcp::endpoint ep(addr, static_cast<uint16_t>(opts_.port));
  std::vector<Worker*> all;
  for (int i = 0; i < opts_.threads; ++i)
    all.push_back(workers_.emplace_back(std::make_unique<Worker>(*ctx_, i)).get());
  try {
    workers_[0]->listen(ep, opts_.reuse_port, all);  // one socket: see worker.h
  } catch (const boost::system::system_error& e) {
    const std::string where = format_endpoint(addr, opts_.port);
    if (e.code() == boost::asio::error::address_in_use)
      throw std::runtime_error(where + " is taken (" + describe_listener(addr, static_cast<uint16_t>(opts_.port)) +
                               ")");
    throw std::runtime_error("cannot listen on " + where + ": " + e.code().message());
  }
  port_ = workers_[0]->local_endpoint().port();
}

HttpServer::~HttpServer() { stop_and_wait(); }

int HttpServer::reopen_access_log() { return access_log_ ? access_log_->reopen() : 0; }

void HttpServer::start() {
  for (size_t i = 0; i < workers_.size(); ++i) {
    int cpu = opts_.cpus.empty() ? -1 : opts_.cpus[i % opts_.cpus.size()];
    threads_.emplace_back([w = workers_[i].get(), cpu] { w->run(cpu); });
  }
}

void HttpServer::drain_and_wait() {
  ctx_->draining.store(true);
  for (auto& w : workers_) w->begin_drain();
  // Workers return from run() when their last session is gone; a client that never
  // finishes its request is cut off after the drain timeout.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts_.drain_timeout_ms);
  for (auto& w : workers_) {
    while (!w->io().stopped() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop_and_wait();
}

void HttpServer::stop_and_wait() {
  for (auto& w : workers_) w->stop();
  wait();
}

void HttpServer::wait() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

}  // namespace hitcost::server
