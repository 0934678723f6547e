// HTTP request handling on arbitrary bytes, in-process: the bytes go through Beast's
// request_parser with the server's limits (as Session sets them), and every request that
// parses is handed to the real Router over a memory store, pipelined requests included.
// Every outcome must be a response with a known status, or a parse error (the session
// answers 400/413/431 and closes).
// Input: [peer byte: bit 0 = loopback][HTTP bytes...].
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <memory>
#include <string>

#include "fuzz/fuzz_common.h"
#include "server/router.h"

using namespace hitcost;
using namespace hitcost::server;
namespace http = boost::beast::http;

namespace {

// A fresh server state per input, so an /admin/config switch does not leak into the next
// input (the fuzzer's findings stay reproducible from one file).
struct Server {
  explicit Server(const ServerOptions& o)
      : metrics(1),
        config(make_initial_config(o), /*log_file=*/false),
        ctx(o, config, metrics, 1),
        sampler(metrics.thread(0), true, 1),  // every request sampled: the sampler's paths are fuzzed too
        router(ctx, metrics.thread(0), sampler) {}
  MetricsRegistry metrics;
  ConfigHolder config;
  ServerContext ctx;
  CpuSampler sampler;
  Router router;
};

const ServerOptions& options() {
  static const ServerOptions o = [] {
    ServerOptions x;
    x.max_rows = 64;  // keeps each input fast; the limit logic is what is fuzzed
    x.rows = 3;
    x.max_id = 1'000'000;
    return x;
  }();
  return o;
}

// Admin requests that could reach outside the process (a store switch opens files or
// memcached connections; warm loops over up to 10M pages) are sent from a remote peer,
// so they exercise the refusal instead.
bool safe_for_admin(const HttpRequest& req) {
  const std::string_view t(req.target().data(), req.target().size());
  if (t.find("warm") != std::string_view::npos) return false;
  const std::string& b = req.body();
  return b.find("store") == std::string::npos && b.find('\\') == std::string::npos;
}

bool known_status(int s) {
  return s == 200 || s == 400 || s == 401 || s == 403 || s == 404 || s == 405 || s == 408 || s == 409 || s == 413 || s == 431 ||
         s == 500 || s == 503;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in{{reinterpret_cast<const char*>(data), size}};
  const bool loopback = in.byte() & 1;
  std::string bytes(in.rest);
  std::string_view rest(bytes);
  const auto local = boost::asio::ip::make_address("127.0.0.1");
  const auto remote = boost::asio::ip::make_address("192.0.2.7");

  Server server(options());
  for (int n = 0; n < 8 && !rest.empty(); ++n) {  // keep-alive: several requests per input
    http::request_parser<http::string_body> parser;
    parser.header_limit(options().header_limit);
    parser.body_limit(options().body_limit);
    parser.eager(true);
    boost::system::error_code ec;
    while (!parser.is_done()) {
      size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
      rest.remove_prefix(used);
      if (ec == http::error::need_more) ec = {};
      if (ec) break;
      if (used == 0) {  // no progress: nothing more will arrive, the peer closed
        parser.put_eof(ec);
        break;
      }
    }
    if (ec || !parser.is_done()) return 0;  // the session answers 400/413/431 or closes
    const HttpRequest& req = parser.get();
    Response res;
    std::string body;
    const bool admin_ok = loopback && safe_for_admin(req);
    server.sampler.request_started(&server);
    server.router.handle(req, admin_ok ? local : remote, res, body);
    server.sampler.request_ended(&server);
    if (!known_status(res.status)) fuzz::violated("the router answered an unexpected status");
    // A read's 200 carries what was read; a write's (PUT/DELETE /page) is 200 with no body.
    const bool write = req.method() == http::verb::put || req.method() == http::verb::delete_;
    if (res.status == 200 && body.empty() && !write) fuzz::violated("a 200 to a read with an empty body");
    if (res.status == 200 && !body.empty() && write) fuzz::violated("a 200 to a write with a body");
    if (!req.keep_alive()) break;
  }
  return 0;
}
