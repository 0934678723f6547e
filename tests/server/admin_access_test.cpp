// Admin routes answer only loopback peers unless started with --admin-remote and a
// token. The peer address is handed to the router directly: no traffic leaves loopback.
#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server/router.h"
#include "server/start_checks.h"

using namespace hitcost::server;
namespace http = boost::beast::http;

namespace {

struct Fixture {
  explicit Fixture(ServerOptions o)
      : opts(std::move(o)),
        metrics(1),
        config(make_initial_config(opts), /*log_file=*/false),
        ctx(opts, config, metrics, 1),
        sampler(metrics.thread(0), false, 0),
        router(ctx, metrics.thread(0), sampler) {}
  int post(const std::string& target, const std::string& peer, const std::string& auth = "") {
    HttpRequest req{http::verb::post, target, 11};
    if (!auth.empty()) req.set(http::field::authorization, auth);
    last = Response{};
    std::string body;
    router.handle(req, boost::asio::ip::make_address(peer), last, body);
    return last.status;
  }
  // /stats' admin_refused, by reason (asked from loopback).
  nlohmann::json refused() {
    HttpRequest req{http::verb::get, "/stats", 11};
    Response res;
    std::string body;
    router.handle(req, boost::asio::ip::make_address("127.0.0.1"), res, body);
    return nlohmann::json::parse(body).at("admin_refused");
  }
  Response last;
  ServerOptions opts;
  MetricsRegistry metrics;
  ConfigHolder config;
  ServerContext ctx;
  CpuSampler sampler;
  Router router;
};

}  // namespace

TEST(AdminAccess, LoopbackPeersMayUseAdminRoutes) {
  Fixture f({});
  EXPECT_EQ(f.post("/admin/reset", "127.0.0.1"), 200);
  EXPECT_EQ(f.post("/admin/reset", "::1"), 200);
}

TEST(AdminAccess, RemotePeersAreRefusedByDefaultEvenWithAToken) {
  Fixture f({});
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer anything"), 403);
  const auto refused = f.refused();
  EXPECT_EQ(refused.at("remote"), 2);
  EXPECT_EQ(refused.at("no_token").get<int>() + refused.at("wrong_token").get<int>(), 0);
}

// With --admin-remote and a token: none is 401 (with WWW-Authenticate), a wrong one 403, each
// counted by reason in /stats; a token that only starts like the right one, or runs past it, is
// wrong.
TEST(AdminAccess, RemotePeersNeedTheExactTokenWhenAllowed) {
  ServerOptions o;
  o.admin_remote = true;
  o.admin_token = "s3cret";
  Fixture f(o);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3"), 401);
  EXPECT_NE(f.last.extra_headers.find("WWW-Authenticate: Bearer realm=\"hitcost admin\"\r\n"), std::string::npos)
      << f.last.extra_headers;
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer wrong"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer s3cre"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer s3crets"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "s3cret"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer s3cret"), 200);
  EXPECT_EQ(f.post("/admin/config", "10.1.2.3", "Bearer s3cret"), 400);  // allowed; empty body is bad config
  const auto refused = f.refused();  // /admin/reset zeroed the counters: the refusals after it
  EXPECT_EQ(refused.at("no_token"), 0);
  EXPECT_EQ(refused.at("wrong_token"), 0);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer nope"), 403);
  EXPECT_EQ(f.post("/admin/warm", "10.1.2.3"), 401);
  const auto after = f.refused();
  EXPECT_EQ(after.at("no_token"), 1);
  EXPECT_EQ(after.at("wrong_token"), 1);
  EXPECT_EQ(after.at("remote"), 0);
}

TEST(AdminAccess, TheTokenFileGivesItsFirstLineTrimmed) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name, std::ios::binary) << text;
    return dir + name;
  };
  EXPECT_EQ(*read_admin_token_file(write("t1", "s3cret\n")), "s3cret");
  EXPECT_EQ(*read_admin_token_file(write("t2", "  s3cret \r\nsecond line\n")), "s3cret");
  auto empty = read_admin_token_file(write("t3", "\n"));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, hitcost::Errc::invalid_argument);
  auto missing = read_admin_token_file(dir + "no-such-token");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, hitcost::Errc::io_error);
  EXPECT_NE(missing.error().message.find("no-such-token"), std::string::npos);
}

TEST(AdminAccess, BeyondLoopbackIsEveryAddressButLoopbackAndLocalhost) {
  for (const char* loopback : {"127.0.0.1", "127.1.2.3", "::1", "localhost"})
    EXPECT_FALSE(listens_beyond_loopback(loopback)) << loopback;
  for (const char* beyond : {"0.0.0.0", "::", "10.0.0.5", "192.0.2.7"})
    EXPECT_TRUE(listens_beyond_loopback(beyond)) << beyond;
}
