#include "client/options.h"

#include <gtest/gtest.h>

#include "client/load_runner.h"
#include "client/net.h"

using namespace hitcost::client;

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
  std::string err;
  auto ep = parse_url("http://127.0.0.1:8080", &err);
  ASSERT_TRUE(ep) << err;
  EXPECT_EQ(ep->port, 8080);
  EXPECT_EQ(ep->host_header, "127.0.0.1:8080");
  EXPECT_TRUE(parse_url("http://localhost:1/", &err));
  auto v6 = parse_url("http://[::1]:9000", &err);
  ASSERT_TRUE(v6) << err;
  EXPECT_EQ(v6->host_header, "[::1]:9000");
  EXPECT_EQ(parse_url("http://10.0.0.1", &err)->port, 80);
  EXPECT_FALSE(parse_url("https://127.0.0.1:1", &err));
  EXPECT_FALSE(parse_url("http://example.com:80", &err));
  EXPECT_FALSE(parse_url("http://127.0.0.1:0", &err));
  EXPECT_FALSE(parse_url("http://127.0.0.1:99999", &err));
}

TEST(Options, RequestTemplateEncodesStrategyAndRows) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080";
  std::string err;
  auto plan = build_plan(o, "1s", 0, std::nullopt, 50, "struct:json+zlib", &err);
  ASSERT_TRUE(plan) << err;
  const auto t = make_request_template(*plan);
  EXPECT_EQ(t.prefix, "GET /page/");
  EXPECT_EQ(t.suffix, "?rows=50&strategy=struct%3Ajson%2Bzlib HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  EXPECT_EQ(plan->expect_strategy, "struct:json+zlib");
}

TEST(Options, BadValuesAreRejectedWithAReason) {
  RunOptions o;
  std::string err;
  EXPECT_FALSE(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err));  // no url
  o.url = "http://127.0.0.1:8080";
  o.key_dist = "zipf:x";
  EXPECT_FALSE(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err));
  EXPECT_NE(err.find("key-dist"), std::string::npos);
  o.key_dist = "uniform";
  o.connections = 1;
  o.threads = 2;
  EXPECT_FALSE(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err));
  o.threads = 1;
  EXPECT_FALSE(build_plan(o, "soon", 0, std::nullopt, std::nullopt, "", &err));
}

TEST(Options, SpinUsBecomesThePlansSpinNs) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080";
  std::string err;
  auto plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err);
  ASSERT_TRUE(plan) << err;
  EXPECT_TRUE(plan->spin_adaptive);  // the default: "auto", starting from 30 µs
  EXPECT_EQ(plan->spin_ns, 30'000u);
  o.spin_us = "2.5";
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err);
  ASSERT_TRUE(plan) << err;
  EXPECT_FALSE(plan->spin_adaptive);
  EXPECT_EQ(plan->spin_ns, 2'500u);
  o.spin_us = "0";  // always sleep
  EXPECT_EQ(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err)->spin_ns, 0u);
  for (const char* bad : {"-1", "fast", "5us", "2000000"}) {
    o.spin_us = bad;
    EXPECT_FALSE(build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", &err)) << bad;
    EXPECT_NE(err.find("spin-us"), std::string::npos) << bad;
  }
}

TEST(Options, DefaultMissStartIsFarAboveTheWarmedSet) {
  const uint64_t s = default_miss_start(1000);
  EXPECT_GE(s, 1000u + 10'000'000u);
  EXPECT_LT(s, 1'000'000'000'000ULL - 10'000'000'000ULL);  // room below the server's default --max-id
}
