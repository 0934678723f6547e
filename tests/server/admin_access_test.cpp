// Admin routes answer only loopback peers unless started with --admin-remote and a
// token. The peer address is handed to the router directly: no traffic leaves loopback.
#include <gtest/gtest.h>

#include <boost/asio/ip/address.hpp>

#include "server/router.h"

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
    Response res;
    std::string body;
    router.handle(req, boost::asio::ip::make_address(peer), res, body);
    return res.status;
  }
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
}

TEST(AdminAccess, RemotePeersNeedTheExactTokenWhenAllowed) {
  ServerOptions o;
  o.admin_remote = true;
  o.admin_token = "s3cret";
  Fixture f(o);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer wrong"), 403);
  EXPECT_EQ(f.post("/admin/reset", "10.1.2.3", "Bearer s3cret"), 200);
  EXPECT_EQ(f.post("/admin/config", "10.1.2.3", "Bearer s3cret"), 400);  // allowed; empty body is bad config
}
