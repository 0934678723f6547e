#include "client/options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "load/load_runner.h"
#include "load/net.h"
#include "measure/run_output.h"  // MeasureOptions

using namespace hitcost::client;
using hitcost::parse_duration_ns;

TEST(Options, DurationsAcceptCommonUnits) {
  EXPECT_EQ(parse_duration_ns("500ms"), 500'000'000u);
  EXPECT_EQ(parse_duration_ns("10s"), 10'000'000'000u);
  EXPECT_EQ(parse_duration_ns("2m"), 120'000'000'000u);
  EXPECT_EQ(parse_duration_ns("1h"), 3'600'000'000'000u);
  EXPECT_EQ(parse_duration_ns("250us"), 250'000u);
  EXPECT_EQ(parse_duration_ns("1.5s"), 1'500'000'000u);
  EXPECT_EQ(parse_duration_ns("3"), 3'000'000'000u);  // bare number = seconds
  EXPECT_FALSE(parse_duration_ns(""));
  EXPECT_FALSE(parse_duration_ns("s"));
  EXPECT_FALSE(parse_duration_ns("10x"));
  EXPECT_FALSE(parse_duration_ns("-1s"));
  EXPECT_FALSE(parse_duration_ns("1.2.3s"));
}

TEST(Options, CpuListsAndRanges) {
  EXPECT_EQ(*parse_cpu_list("0,1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(*parse_cpu_list("2-4,7"), (std::vector<int>{2, 3, 4, 7}));
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("a"));
  EXPECT_FALSE(parse_cpu_list("3-1"));
}

TEST(Options, UrlsMustBeNumericOrLocalhost) {
  auto ep = parse_url("http://127.0.0.1:8080");
  ASSERT_TRUE(ep) << ep.error().message;
  EXPECT_EQ(ep->port, 8080);
  EXPECT_EQ(ep->host_header, "127.0.0.1:8080");
  EXPECT_TRUE(parse_url("http://localhost:1/"));
  auto v6 = parse_url("http://[::1]:9000");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ(v6->host_header, "[::1]:9000");
  EXPECT_EQ(parse_url("http://10.0.0.1")->port, 80);
  EXPECT_FALSE(parse_url("https://127.0.0.1:1"));
  EXPECT_FALSE(parse_url("http://example.com:80"));
  EXPECT_FALSE(parse_url("http://127.0.0.1:0"));
  EXPECT_FALSE(parse_url("http://127.0.0.1:99999"));
}

// A bad URL is the user's mistake (invalid_argument, exit 2), and the message says which part.
TEST(Options, BadUrlIsInvalidArgumentSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"https://127.0.0.1:1", "URL must start with http:// (https is not supported)"},
      {"http://[::1:80", "unterminated [ in URL"},
      {"http://[::1]x", "junk after ] in URL"},
      {"http://:80", "URL has no host"},
      {"http://127.0.0.1:0", "bad port in URL: '0' (want 1..65535)"},
      {"http://127.0.0.1:70000", "bad port in URL: '70000' (want 1..65535)"},
      {"http://127.0.0.1:-1", "bad port in URL: '-1' (want 1..65535)"},
      {"http://example.com:80", "host must be a numeric IP address or localhost: example.com"},
  };
  size_t checked = 0;
  for (const auto& [url, message] : cases) {
    const auto ep = parse_url(url);
    ASSERT_FALSE(ep) << url;
    EXPECT_EQ(ep.error().code, hitcost::Errc::invalid_argument) << url;
    EXPECT_EQ(ep.error().message, message) << url;
    ++checked;
  }
  EXPECT_EQ(checked, 8u);
}

// The issue this guards: --url http://host:port/value/{id} was taken as http://host:port and the
// load asked /page/{id}, a silent wrong figure. A path is refused, and the message says where it
// goes; "/" alone is the base and passes.
TEST(Options, UrlWithAPathIsRefusedWithTheFlagItBelongsTo) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://127.0.0.1:8080/page",
       "the URL is the server's base, http://HOST:PORT: its path '/page' would be ignored; request paths go in "
       "--path-template (default /page/{id}), e.g. --url http://127.0.0.1:8080 --path-template '/page'"},
      {"http://127.0.0.1:8080/value/{id}?strategy=html",
       "the URL is the server's base, http://HOST:PORT: its path '/value/{id}?strategy=html' would be ignored; request "
       "paths go in --path-template (default /page/{id}), e.g. --url http://127.0.0.1:8080 --path-template "
       "'/value/{id}'"},
      {"http://[::1]:9000/x", nullptr},
      {"http://localhost:8080?rows=5", nullptr},
  };
  size_t checked = 0;
  for (const auto& [url, message] : cases) {
    const auto ep = parse_url(url);
    ASSERT_FALSE(ep) << url;
    EXPECT_EQ(ep.error().code, hitcost::Errc::invalid_argument) << url;
    EXPECT_NE(ep.error().message.find("--path-template"), std::string::npos) << ep.error().message;
    if (message) {
      EXPECT_EQ(ep.error().message, message);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4u);
  ASSERT_TRUE(parse_url("http://127.0.0.1:8080/"));
  EXPECT_EQ(parse_url("http://127.0.0.1:8080/")->host_header, "127.0.0.1:8080");
}

TEST(Options, RequestTemplateEncodesStrategyAndRows) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080";
  auto plan = build_plan(o, "1s", 0, std::nullopt, 50, "struct:json+zlib");
  ASSERT_TRUE(plan) << plan.error().message;
  const auto t = make_request_template(*plan);
  EXPECT_EQ(t.prefix, "GET /page/");
  EXPECT_EQ(t.suffix, "?rows=50&strategy=struct%3Ajson%2Bzlib HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  EXPECT_EQ(plan->expect_strategy, "struct:json+zlib");
}

TEST(Options, BadValuesAreRejectedWithAReason) {
  RunOptions o;
  auto plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(plan.error().message, "--url is required");
  o.url = "http://127.0.0.1:8080";
  o.key_dist = "zipf:x";
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("key-dist"), std::string::npos);
  o.key_dist = "uniform";
  o.connections = 1;
  o.threads = 2;
  EXPECT_FALSE(build_plan(o, "1s", 0, std::nullopt, std::nullopt, ""));
  o.threads = 1;
  plan = build_plan(o, "soon", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message, "bad --duration: soon");
  // parse_url's reason comes through as it is.
  o.url = "http://example.com:80";
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(plan.error().message, "host must be a numeric IP address or localhost: example.com");
}

TEST(Options, SpinUsBecomesThePlansSpinNs) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080";
  auto plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->spin_adaptive);  // the default: "auto", starting from 30 µs
  EXPECT_EQ(plan->spin_ns, 30'000u);
  o.spin_us = "2.5";
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_FALSE(plan->spin_adaptive);
  EXPECT_EQ(plan->spin_ns, 2'500u);
  o.spin_us = "0";  // always sleep
  EXPECT_EQ(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "")->spin_ns, 0u);
  for (const char* bad : {"-1", "fast", "5us", "2000000"}) {
    o.spin_us = bad;
    plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
    ASSERT_FALSE(plan) << bad;
    EXPECT_NE(plan.error().message.find("spin-us"), std::string::npos) << bad;
  }
}

TEST(Options, PidListsNameTheBadItem) {
  const auto self = parse_pid_list(" " + std::to_string(::getpid()) + ",,");  // empty items dropped
  ASSERT_TRUE(self) << self.error().message;
  EXPECT_EQ(*self, (std::vector<int64_t>{int64_t(::getpid())}));
  const std::pair<std::string, std::string> cases[] = {
      {"12x", "'12x' is not a pid"},
      {"0", "'0' is not a pid"},
      {"", "no pid given"},
      {" , ", "no pid given"},
      // Above any pid_max (4194304), so never a live process.
      {"999999999", "no process 999999999 visible here (the server must run on this machine)"},
  };
  size_t checked = 0;
  for (const auto& [text, message] : cases) {
    const auto pids = parse_pid_list(text);
    ASSERT_FALSE(pids) << text;
    EXPECT_EQ(pids.error().code, hitcost::Errc::invalid_argument) << text;
    EXPECT_EQ(pids.error().message, message) << text;
    ++checked;
  }
  EXPECT_EQ(checked, 5u);
}

TEST(Options, MeasureOptionsSayWhichFlagIsBad) {
  RunOptions o;
  auto mo = measure_options(o);
  ASSERT_TRUE(mo) << mo.error().message;
  EXPECT_EQ(mo->idle_ns, 1'000'000'000u);
  EXPECT_TRUE(mo->server_processes.empty());

  o.server_tree = std::to_string(::getpid());
  o.idle = "250ms";
  o.attribution = "receiver";
  mo = measure_options(o);
  ASSERT_TRUE(mo) << mo.error().message;
  EXPECT_EQ(mo->server_processes.trees, (std::vector<int64_t>{int64_t(::getpid())}));
  EXPECT_EQ(mo->idle_ns, 250'000'000u);
  EXPECT_EQ(mo->attribution, Attribution::receiver_pays);

  o.cache_pids = "memcached";
  mo = measure_options(o);
  ASSERT_FALSE(mo);
  EXPECT_EQ(mo.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(mo.error().message, "--cache-pids: 'memcached' is not a pid");

  o.cache_pids = std::to_string(::getpid());
  o.server_tree.clear();
  mo = measure_options(o);
  ASSERT_FALSE(mo);
  EXPECT_EQ(mo.error().message, "--cache-pids/--cache-tree need --server-pids or --server-tree");

  o.idle = "soon";
  mo = measure_options(o);
  ASSERT_FALSE(mo);
  EXPECT_EQ(mo.error().message, "bad --idle: soon");
}

TEST(Options, DefaultMissStartIsFarAboveTheWarmedSet) {
  const uint64_t s = default_miss_start(1000);
  EXPECT_GE(s, 1000u + 10'000'000u);
  EXPECT_LT(s, 1'000'000'000'000ULL - 10'000'000'000ULL);  // room below the server's default --max-id
}
