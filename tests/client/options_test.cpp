#include "client/options.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/clock.h"
#include "load/load_runner.h"
#include "load/net.h"
#include "measure/run_output.h"  // MeasureOptions
#include "tests/support/tcp_listener.h"

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

TEST(Options, UrlsAreAddressesOrHostNames) {
  auto ep = parse_url("http://127.0.0.1:8080");
  ASSERT_TRUE(ep) << ep.error().message;
  EXPECT_EQ(ep->port, 8080);
  EXPECT_EQ(ep->host_header, "127.0.0.1:8080");
  EXPECT_EQ(address_text(*ep), "127.0.0.1:8080");
  auto local = parse_url("http://localhost:1/");
  ASSERT_TRUE(local) << local.error().message;
  EXPECT_EQ(local->host_header, "localhost:1");
  EXPECT_EQ(address_text(*local), "127.0.0.1:1");
  auto v6 = parse_url("http://[::1]:9000");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ(v6->host_header, "[::1]:9000");
  EXPECT_EQ(address_text(*v6), "[::1]:9000");
  EXPECT_EQ(parse_url("http://10.0.0.1")->port, 80);
  EXPECT_EQ(address_text(*parse_url("http://10.0.0.1")), "10.0.0.1:80");
  EXPECT_FALSE(parse_url("https://127.0.0.1:1"));
  EXPECT_FALSE(parse_url("http://127.0.0.1:0"));
  EXPECT_FALSE(parse_url("http://127.0.0.1:99999"));
}

namespace {

// What this machine's resolver says of `name`, asked here and not through parse_url: the first
// IPv4 address as text, "" when it has none; `rc` getaddrinfo's answer.
std::string first_ipv4_of(const std::string& name, int& rc) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &found);
  if (rc != 0) return "";
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
  ::freeaddrinfo(found);
  return text;
}

std::string this_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace

// A host name is resolved once, by parse_url, to the first IPv4 address the resolver has: the
// machine's own name (and "localhost") connect to a socket listening here, the Host header
// keeps the name, and address_text says where it went.
TEST(Options, AHostNameResolvesToAnAddressThatConnects) {
  const std::string self = this_host_name();
  ASSERT_FALSE(self.empty());
  int rc = 0;
  const std::string expected = first_ipv4_of(self, rc);
  ASSERT_EQ(rc, 0) << "this machine's own name must resolve: " << self << ": " << ::gai_strerror(rc);
  hitcost::testing::TcpListener listener(INADDR_ANY);  // the machine's own name may resolve to any of its addresses
  ASSERT_GT(listener.port, 0);
  const std::string port = std::to_string(listener.port);
  size_t connected = 0;
  for (const std::string& host : {self, std::string("localhost")}) {
    auto ep = parse_url("http://" + host + ":" + port);
    ASSERT_TRUE(ep) << host << ": " << ep.error().message;
    EXPECT_EQ(ep->host, host);
    EXPECT_EQ(ep->host_header, host + ":" + port);
    EXPECT_EQ(address_text(*ep), (host == self ? expected : "127.0.0.1") + ":" + port);
    hitcost::UniqueFd fd = connect_blocking(*ep, 2000);
    ASSERT_TRUE(fd) << host << ": " << std::strerror(errno);
    bool accepted = false;
    for (int i = 0; i < 100 && !accepted; ++i) {
      accepted = listener.connections() > 0;
      if (!accepted) ::usleep(10'000);
    }
    EXPECT_TRUE(accepted) << host;
    ++connected;
  }
  EXPECT_EQ(connected, 2u);
  // The Host header of every request is the name, as written.
  RunOptions o;
  o.url = "http://" + self + ":" + port;
  auto plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(address_text(plan->endpoint), expected + ":" + port);
  EXPECT_EQ(make_request_template(*plan).suffix, " HTTP/1.1\r\nHost: " + self + ":" + port + "\r\n\r\n");
}

// A well-formed name the resolver does not know is the network's failure (connection, exit 1),
// with the resolver's own reason; with Lookup::no it is accepted unresolved, and nothing is
// asked: the machine's own name, which would resolve, stays without an address too.
TEST(Options, AnUnresolvableNameIsAConnectionErrorAndLookupNoNeverResolves) {
  int rc = 0;
  EXPECT_EQ(first_ipv4_of("no-such-host.invalid", rc), "");
  ASSERT_NE(rc, 0);
  const std::string reason = "cannot resolve host no-such-host.invalid: " + std::string(::gai_strerror(rc));
  const auto ep = parse_url("http://no-such-host.invalid:8080");
  ASSERT_FALSE(ep);
  EXPECT_EQ(ep.error().code, hitcost::Errc::connection);
  EXPECT_EQ(ep.error().message, reason);

  size_t unresolved = 0;
  for (const std::string& host :
       {std::string("no-such-host.invalid"), this_host_name(), std::string("hitcost-server")}) {
    auto named = parse_url("http://" + host + ":8080", Lookup::no);
    ASSERT_TRUE(named) << host << ": " << named.error().message;
    EXPECT_EQ(named->host_header, host + ":8080");
    EXPECT_EQ(named->addr_len, 0u) << host;
    EXPECT_EQ(address_text(*named), "") << host;
    ++unresolved;
  }
  EXPECT_EQ(unresolved, 3u);
  // Resolved later, as a run does once its line is checked: the same error.
  auto later = parse_url("http://no-such-host.invalid:8080", Lookup::no);
  ASSERT_TRUE(later);
  const hitcost::Status resolved = resolve_host(*later);
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code, hitcost::Errc::connection);
  EXPECT_EQ(resolved.error().message, reason);
  // An address needs no resolver either way.
  auto numeric = parse_url("http://10.1.2.3:8080", Lookup::no);
  ASSERT_TRUE(numeric);
  EXPECT_EQ(address_text(*numeric), "10.1.2.3:8080");

  // build_plan: the same, and with Lookup::no neither the name nor this machine's CPUs.
  RunOptions o;
  o.url = "http://no-such-host.invalid:8080";
  o.cpus = "1023";
  auto plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "", Lookup::no);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->endpoint.addr_len, 0u);
  EXPECT_EQ(plan->cpus, std::vector<int>{1023});
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, hitcost::Errc::invalid_argument);  // the line's mistake is told first
  EXPECT_EQ(plan.error().message.rfind("--cpus 1023: CPU 1023 is not online", 0), 0u) << plan.error().message;
  o.cpus.clear();
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, hitcost::Errc::connection);
  EXPECT_EQ(plan.error().message, reason);
}

// A host that cannot be a host name (RFC 1123) is the line's mistake, whether names are looked
// up or not; the limits themselves pass.
TEST(Options, AHostThatIsNeitherAnAddressNorANameIsInvalidArgument) {
  const std::string l63(63, 'a'), l64(64, 'a');
  const std::string n253 = l63 + "." + l63 + "." + l63 + "." + std::string(61, 'b');
  const std::string n254 = n253 + "b";
  ASSERT_EQ(n253.size(), 253u);
  const std::vector<std::string> bad = {
      "bad_host",  "-lead.example", "trail-.example", "a..b",      ".a", "ho st",    "exa%6dple",
      "999.1.1.1", "10.0.0.256",    "1.2.3",          l64 + ".io", n254, "[not-v6]", "[hitcost-server]",
  };
  size_t refused = 0;
  for (const std::string& host : bad) {
    for (Lookup lookup : {Lookup::no, Lookup::yes}) {
      const auto ep = parse_url("http://" + host + ":8080", lookup);
      ASSERT_FALSE(ep) << host;
      EXPECT_EQ(ep.error().code, hitcost::Errc::invalid_argument) << host;
      EXPECT_EQ(ep.error().message, "host is neither an IP address nor a host name: " + host) << host;
    }
    ++refused;
  }
  EXPECT_EQ(refused, 14u);
  const std::vector<std::string> good = {l63 + ".io",
                                         n253,
                                         n253 + ".",
                                         "hitcost-server",
                                         "1password.example",
                                         "memcached-0.memcached.default.svc.cluster.local",
                                         "A-b.C"};
  size_t taken = 0;
  for (const std::string& host : good) {
    const auto ep = parse_url("http://" + host + ":8080", Lookup::no);
    EXPECT_TRUE(ep) << host << ": " << (ep ? "" : ep.error().message);
    ++taken;
  }
  EXPECT_EQ(taken, 7u);
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
      {"http://exa_mple.com:80", "host is neither an IP address nor a host name: exa_mple.com"},
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
  o.url = "http://example.com.:80:80";
  plan = build_plan(o, "1s", 0, std::nullopt, std::nullopt, "");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, hitcost::Errc::invalid_argument);
  EXPECT_EQ(plan.error().message, "bad port in URL: '80:80' (want 1..65535)");
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

// --check-args: a pid list is checked for its form only (the pods' processes are not this
// machine's); the form's mistakes are still refused.
TEST(Options, LookupNoLooksForNoProcess) {
  const auto absent = parse_pid_list("999999999,12", Lookup::no);
  ASSERT_TRUE(absent) << absent.error().message;
  EXPECT_EQ(*absent, (std::vector<int64_t>{999999999, 12}));
  const auto bad = parse_pid_list("12x", Lookup::no);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "'12x' is not a pid");
  RunOptions o;
  o.server_pids = "999999999";
  const auto checked = measure_options(o, Lookup::no);
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(checked->server_processes.pids, (std::vector<int64_t>{999999999}));
  const auto looked = measure_options(o);
  ASSERT_FALSE(looked);
  EXPECT_EQ(looked.error().message,
            "--server-pids: no process 999999999 visible here (the server must run on this machine)");
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

// --start-at: Unix ms into the measuring options; refused with retries (a retry would run
// alone) and, when the clock is read, an hour or more away (seconds or µs given for ms).
TEST(Options, StartAtIsUnixMillisecondsNearThisClockAndNotWithRetries) {
  RunOptions o;
  auto mo = measure_options(o);
  ASSERT_TRUE(mo);
  ASSERT_TRUE(apply_start_at(o, *mo));
  EXPECT_FALSE(mo->start_at_unix_ns) << "no --start-at: the load starts when ready";

  const uint64_t now_ms = hitcost::unix_now_ns() / 1'000'000;
  o.start_at_ms = now_ms + 2500;
  ASSERT_TRUE(apply_start_at(o, *mo));
  EXPECT_EQ(mo->start_at_unix_ns, (now_ms + 2500) * 1'000'000);

  size_t refused = 0;
  for (const uint64_t wrong : {now_ms / 1000, now_ms * 1000, now_ms + 3'700'000, now_ms - 3'700'000}) {
    o.start_at_ms = wrong;
    MeasureOptions fresh;
    const hitcost::Status st = apply_start_at(o, fresh);
    ASSERT_FALSE(st) << wrong;
    EXPECT_EQ(st.error().code, hitcost::Errc::invalid_argument);
    EXPECT_NE(st.error().message.find("Unix milliseconds wanted"), std::string::npos) << st.error().message;
    EXPECT_FALSE(fresh.start_at_unix_ns);
    // --check-args reads no clock: the form alone is checked.
    EXPECT_TRUE(apply_start_at(o, fresh, Lookup::no)) << wrong;
    ++refused;
  }
  EXPECT_EQ(refused, 4u);

  o.start_at_ms = now_ms + 1000;
  o.retry_contaminated = 1;
  const hitcost::Status st = apply_start_at(o, *mo, Lookup::no);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("--retry-contaminated"), std::string::npos) << st.error().message;
}

TEST(Options, DefaultMissStartIsFarAboveTheWarmedSet) {
  const uint64_t s = default_miss_start(1000);
  EXPECT_GE(s, 1000u + 10'000'000u);
  EXPECT_LT(s, 1'000'000'000'000ULL - 10'000'000'000ULL);  // room below the server's default --max-id
}
