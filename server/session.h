#pragma once
// One HTTP/1.1 connection. Reads top-down: do_read -> on_read -> respond -> write ->
// after_write -> do_read. Requests are handled one at a time in arrival order, so
// pipelined requests (already in the buffer) are answered in order.
//
// Timeouts: no timer per request. The session records when it started waiting for a
// request; its worker's sweeper (every 100 ms) cancels sessions that waited longer
// than --idle-timeout-ms: 408 if part of a request had arrived, a silent close if not.
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "server/response.h"

namespace hitcost::server {

class Worker;

class Session : public std::enable_shared_from_this<Session> {
 public:
  using clock = std::chrono::steady_clock;
  Session(boost::asio::ip::tcp::socket socket, Worker& worker);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start();
  // Called by the worker's sweeper on the session's own thread.
  void check_timeout(clock::time_point now, clock::duration limit);
  // SIGTERM: close now if waiting for a request with nothing received, else after the
  // response in progress.
  void drain();

 private:
  void do_read();
  void on_read(boost::system::error_code ec, size_t bytes);
  void respond_error(int status, std::string_view reason);
  void write();
  void on_write(boost::system::error_code ec);
  void after_write();
  void close();
  // The request's access log line (when the log is on), timed as the `log` phase.
  void log_request();

  boost::asio::ip::tcp::socket socket_;
  Worker& worker_;
  boost::asio::ip::address peer_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  Response res_;
  std::string head_;  // status line + headers of the response being written
  std::string body_;  // reused across requests: no allocation per hit in steady state
  clock::time_point wait_started_{};
  clock::time_point write_started_{};  // for the write phase (send syscall)
  clock::time_point handled_at_{};     // request parsed (the access log's service time)
  bool parsed_ = false;                // the request line was parsed (else the log says "-")
  bool reading_ = false;
  bool timed_out_ = false;
  bool closed_ = false;
};

}  // namespace hitcost::server
