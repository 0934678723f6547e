#include "server/http_server.h"

#include <chrono>
#include <stdexcept>

namespace hitcost::server {

namespace asio = boost::asio;

HttpServer::HttpServer(const ServerOptions& opts, std::shared_ptr<const ValueOrigin> values) : opts_(opts) {
  if (opts_.threads < 1) throw std::runtime_error("--threads must be at least 1");
  metrics_ = std::make_unique<MetricsRegistry>(static_cast<size_t>(opts_.threads));
  metrics_->reset();  // baseline = start-up (CPU spent loading counts as before)
  config_ = std::make_unique<ConfigHolder>(make_initial_config(opts_), !opts_.access_log.empty());
  if (!opts_.access_log.empty())
    access_log_ = std::make_unique<AccessLogFile>(opts_.access_log, [cfg = config_.get()] {
      const auto c = cfg->current();
      return c->log.on() ? c->log.sync : SyncPolicy{};
    });
  ctx_ = std::make_unique<ServerContext>(opts_, *config_, *metrics_, static_cast<size_t>(opts_.threads));
  ctx_->access_log = access_log_.get();
  ctx_->values = std::move(values);  // before the workers: their routers read it from the start
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(opts_.host, ec);
  if (ec) throw std::runtime_error("--host: not an IP address: " + opts_.host);
  asio::ip::tcp::endpoint ep(addr, static_cast<uint16_t>(opts_.port));
  try {
    workers_.push_back(std::make_unique<Worker>(*ctx_, 0, ep));
    ep.port(workers_[0]->local_endpoint().port());  // --port 0: the others join the port picked
    for (int i = 1; i < opts_.threads; ++i) workers_.push_back(std::make_unique<Worker>(*ctx_, i, ep));
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot listen on " + opts_.host + ":" + std::to_string(opts_.port) + ": " +
                             e.code().message());
  }
  port_ = ep.port();
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
