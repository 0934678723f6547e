#pragma once
// Maps a parsed request to a handler and fills the response. One Router per io thread.
#include <atomic>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/access_log.h"
#include "server/metrics.h"
#include "server/page_service.h"
#include "server/response.h"
#include "server/runtime_config.h"
#include "server/server_options.h"
#include "server/value_origin.h"
#include "server/value_service.h"

namespace hitcost::server {

class SlowLog;

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;

// Shared by every thread; read-only after start except through its own locks.
struct ServerContext {
  ServerContext(const ServerOptions& o, ConfigHolder& c, MetricsRegistry& m, size_t n)
      : opts(o), config(c), metrics(m), started(std::chrono::steady_clock::now()), threads(n) {}
  const ServerOptions& opts;
  ConfigHolder& config;
  MetricsRegistry& metrics;
  std::chrono::steady_clock::time_point started;
  size_t threads;
  std::atomic<bool> draining{false};  // SIGTERM seen: answer with Connection: close
  // Where each io thread may run (its affinity after pinning), e.g. "0" or "0-1".
  mutable std::mutex placement_mu;
  std::vector<std::string> thread_cpus;
  // io threads whose pinning to their --cpus CPU failed (they run where thread_cpus says).
  // --cpus is checked at start (proc::cpus_not_online_error), so this is a CPU taken
  // offline or a cpuset narrowed in between.
  std::atomic<uint32_t> pin_failures{0};
  AccessLogFile* access_log = nullptr;  // null without --access-log
  SlowLog* slow_log = nullptr;          // null without --slow-log
  // The user's values for GET /value/{n} (--corpus), loaded before the workers start and never
  // changed: every thread reads it without a lock. Null without --corpus.
  std::shared_ptr<const ValueOrigin> values;
};

class Router {
 public:
  Router(ServerContext& ctx, ThreadMetrics& metrics, CpuSampler& sampler);

  // Fills `res` and `body` (cleared first).
  void handle(const HttpRequest& req, const boost::asio::ip::address& peer, Response& res, std::string& body);

  // The configuration in force on this thread (re-read when a switch published a new one).
  const RuntimeConfig& config() { return view_.get(); }

  // For errors detected before routing (parse errors, limits, timeouts).
  static void error(Response& res, std::string& body, int status, std::string_view reason);

 private:
  void page(std::string_view id_text, std::string_view query, Response& res, std::string& body);
  void page_write(bool remove, std::string_view id_text, std::string_view query, Response& res, std::string& body);
  void data(std::string_view id_text, std::string_view query, Response& res, std::string& body);
  void value(std::string_view n_text, std::string_view query, Response& res, std::string& body);
  void value_write(bool remove, std::string_view n_text, Response& res, std::string& body);
  // A client's DELETE of `key` (page or value): 200 when gone (absent already included).
  void remove_key(const RuntimeConfig& cfg, const std::string& key, Response& res, std::string& body);
  // A /value/{n}'s corpus, with n parsed: nullptr, with the 400/404/409 in `res`, when there is
  // no corpus, n is not a value number, or the store holds objects.
  const ValueOrigin* value_target(std::string_view n_text, uint64_t& n, Response& res, std::string& body);
  void warm_values(std::string_view query, Response& res, std::string& body);
  void calibrate(std::string_view query, Response& res, std::string& body);
  void admin(const HttpRequest& req, std::string_view path, std::string_view query, Response& res, std::string& body);
  // Who may use the admin routes: every loopback peer (a process on this host, or in this pod);
  // a remote one only on a server started with --admin-remote, and with its token.
  enum class AdminAccess { allowed, remote_refused, no_token, wrong_token };
  AdminAccess admin_access(const HttpRequest& req, const boost::asio::ip::address& peer) const;
  bool parse_rows(std::string_view query, uint32_t& rows, Response& res, std::string& body);
  // A /page/{id}'s id: false, with the 400 or 404 in `res`, when it is not one.
  bool parse_page_id(std::string_view id_text, int64_t& id, Response& res, std::string& body);
  const Strategy* strategy_override(std::string_view text, Response& res, std::string& body);

  ServerContext& ctx_;
  ThreadMetrics& m_;
  ConfigView view_;
  PageService pages_;
  ValueService values_;
  // ?strategy= overrides parsed once per (text, config generation) on this thread.
  std::unordered_map<std::string, Strategy> override_cache_;
  uint64_t override_generation_ = 0;
};

}  // namespace hitcost::server
