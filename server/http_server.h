#pragma once
// hitcost-server as an object: N workers (one io_context + thread each) on one port.
#include <memory>
#include <thread>
#include <vector>

#include "server/access_log.h"
#include "server/metrics.h"
#include "server/runtime_config.h"
#include "server/server_options.h"
#include "server/slow_log.h"
#include "server/value_origin.h"
#include "server/worker.h"

namespace hitcost::server {

class HttpServer {
 public:
  // Opens the store, binds the port; throws std::runtime_error with a reason. `values`: the
  // corpus GET /value/{n} serves (ValueOrigin::load), null without --corpus.
  explicit HttpServer(const ServerOptions& opts, std::shared_ptr<const ValueOrigin> values = nullptr);
  ~HttpServer();

  int port() const { return port_; }
  std::shared_ptr<const RuntimeConfig> config() const { return config_->current(); }
  void start();           // spawns the worker threads
  void drain_and_wait();  // SIGTERM: stop accepting, finish in-flight, join (bounded)
  void stop_and_wait();   // immediate
  void wait();            // joins (returns when all workers ended)
  // SIGHUP: the access log file is opened anew (0, or the errno of the failed open).
  int reopen_access_log();

 private:
  ServerOptions opts_;
  std::unique_ptr<MetricsRegistry> metrics_;
  std::unique_ptr<ConfigHolder> config_;
  std::unique_ptr<AccessLogFile> access_log_;  // null without --access-log; outlives the workers
  std::unique_ptr<SlowLog> slow_log_;          // null without --slow-log; outlives the workers
  std::unique_ptr<ServerContext> ctx_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  int port_ = 0;
};

}  // namespace hitcost::server
