#include "server/session.h"

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <charconv>

#include "server/worker.h"

namespace hitcost::server {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

Session::Session(asio::ip::tcp::socket socket, Worker& worker) : socket_(std::move(socket)), worker_(worker) {
  error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  if (!ec) peer_ = ep.address();
  // Small responses must not wait for delayed ACKs (40 ms stalls).
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  // Non-blocking so a response can be written synchronously when the socket buffer has
  // room (the common case): the write phase then times the syscall alone.
  socket_.non_blocking(true, ec);
  worker_.add(this);
  worker_.metrics().connections_opened.add();
}

Session::~Session() {
  worker_.sampler().abandon(this);
  worker_.remove(this);
  worker_.metrics().connections_closed.add();
}

void Session::start() { do_read(); }

void Session::do_read() {
  if (closed_) return;
  if (worker_.draining() && buffer_.size() == 0) return close();
  parser_.emplace();
  parser_->header_limit(worker_.opts().header_limit);
  parser_->body_limit(worker_.opts().body_limit);
  reading_ = true;
  timed_out_ = false;
  wait_started_ = clock::now();
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, size_t n) { self->on_read(ec, n); });
}

void Session::check_timeout(clock::time_point now, clock::duration limit) {
  if (reading_ && !closed_ && now - wait_started_ > limit) {
    timed_out_ = true;
    error_code ec;
    socket_.cancel(ec);  // on_read sees operation_aborted
  }
}

void Session::drain() {
  // Waiting for a request and nothing of it has arrived: nothing is in flight.
  if (reading_ && !closed_ && buffer_.size() == 0 && !(parser_ && parser_->got_some())) {
    error_code ec;
    socket_.cancel(ec);
  }
}

void Session::on_read(error_code ec, size_t bytes) {
  reading_ = false;
  ThreadMetrics& m = worker_.metrics();
  m.http_bytes_in.add(bytes);
  if (ec) {
    const bool partial = buffer_.size() > 0 || (parser_ && parser_->got_some());
    if (ec == asio::error::operation_aborted && timed_out_) {
      if (partial) return respond_error(408, "request timeout: the request did not arrive in time");
      return close();  // idle keep-alive connection: close silently
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
        ec == asio::error::operation_aborted)
      return close();
    if (ec == http::error::header_limit) return respond_error(431, "request header fields too large");
    if (ec == http::error::body_limit) return respond_error(413, "payload too large");
    // Any other parse error (bad request line, bad method token, bad header): 400.
    return respond_error(400, "bad request: " + ec.message());
  }
  m.requests.add();
  worker_.sampler().request_started(this);
  parsed_ = true;
  if (worker_.access_log()) handled_at_ = clock::now();
  const auto& req = parser_->get();
  res_ = Response{};
  worker_.router().handle(req, peer_, res_, body_);
  if (!req.keep_alive() || worker_.draining()) res_.close = true;  // draining may start meanwhile
  if (res_.status != 200) m.count_status(res_.status);
  write();
}

void Session::respond_error(int status, std::string_view reason) {
  // After a parse error the stream position is unknown: answer and close.
  worker_.metrics().requests.add();
  worker_.sampler().request_started(this);
  parsed_ = false;
  if (worker_.access_log()) handled_at_ = clock::now();
  worker_.metrics().count_status(status);
  res_ = Response{};
  res_.close = true;
  Router::error(res_, body_, status, reason);
  buffer_.clear();
  write();
}

void Session::write() {
  head_.clear();
  char num[24];
  head_ += "HTTP/1.1 ";
  head_.append(num, std::to_chars(num, num + sizeof num, res_.status).ptr);
  head_ += ' ';
  head_ += reason_phrase(res_.status);
  head_ += "\r\nServer: hitcost\r\nDate: ";
  head_ += worker_.date().now();
  head_ += "\r\nContent-Type: ";
  head_ += res_.content_type;
  head_ += "\r\nContent-Length: ";
  head_.append(num, std::to_chars(num, num + sizeof num, body_.size()).ptr);
  head_ += "\r\n";
  head_ += res_.extra_headers;
  if (res_.close) head_ += "Connection: close\r\n";
  head_ += "\r\n";

  CpuSampler& sampler = worker_.sampler();
  sampler.mark(CpuPart::other);  // handler and headers, up to the send
  write_started_ = clock::now();
  const size_t total = head_.size() + body_.size();
  std::array<asio::const_buffer, 2> bufs{asio::buffer(head_), asio::buffer(body_)};
  error_code ec;
  size_t n = socket_.write_some(bufs, ec);  // usually everything, at once
  if (worker_.opts().metrics) {
    // The write phase is the send syscall alone; waiting for a slow reader is not CPU.
    auto ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - write_started_).count());
    worker_.metrics().phases[static_cast<size_t>(Phase::write)].record(ns);
    sampler.mark(CpuPart::write, ns);
  }
  if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
    log_request();  // answered, if not delivered: the line says so (a request without one is lost)
    return close();
  }
  if (ec) n = 0;
  worker_.metrics().http_bytes_out.add(n);
  if (n == total) return on_write({});
  // The rest asynchronously (slow reader or a large body).
  worker_.metrics().partial_writes.add();
  std::array<asio::const_buffer, 2> rest;
  if (n < head_.size()) {
    rest = {asio::buffer(head_) + n, asio::buffer(body_)};
  } else {
    rest = {asio::const_buffer{}, asio::buffer(body_) + (n - head_.size())};
  }
  asio::async_write(socket_, rest, [self = shared_from_this()](error_code ec2, size_t m) {
    self->worker_.metrics().http_bytes_out.add(m);
    self->on_write(ec2);
  });
}

void Session::on_write(error_code ec) {
  log_request();
  worker_.request_done(parsed_ && parser_ ? std::string_view(parser_->get().target()) : std::string_view(), res_, body_.size());
  worker_.sampler().request_ended(this);  // the response is the kernel's now (or lost)
  if (ec) return close();
  after_write();
}

void Session::after_write() {
  if (res_.close) {
    error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
    return close();
  }
  do_read();
}

void Session::log_request() {
  AccessLogWriter* log = worker_.access_log();
  if (!log) return;
  const LogMode& mode = worker_.router().config().log;
  if (!mode.on()) return;
  const auto started = clock::now();
  LogLine line;
  line.peer = peer_;
  if (parsed_ && parser_) {
    const auto& req = parser_->get();
    line.method = req.method_string();
    line.target = req.target();
    line.version = req.version();
    if (auto it = req.find(http::field::referer); it != req.end()) line.referer = it->value();
    if (auto it = req.find(http::field::user_agent); it != req.end()) line.user_agent = it->value();
  }
  line.status = res_.status;
  line.body_bytes = body_.size();
  line.cache = res_.cache;
  if (!res_.strategy.empty()) line.strategy = res_.strategy;
  line.service_us =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(started - handled_at_).count());
  log->log(mode, line);
  if (worker_.opts().metrics) {
    auto ns =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - started).count());
    worker_.metrics().phases[static_cast<size_t>(Phase::log)].record(ns);
    worker_.sampler().mark(CpuPart::log, ns);
  }
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  worker_.sampler().abandon(this);
  error_code ec;
  socket_.close(ec);
}

}  // namespace hitcost::server
