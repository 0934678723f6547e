// memcached misbehaving under a running server: killed, frozen, holding corrupt values.
// The server must keep answering every page correctly (from the origin when the cache
// fails), count the failures by kind, and use the cache again once it is back.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/faults/load_driver.h"
#include "tests/support/http_client.h"
#include "tests/support/memcached_process.h"
#include "tests/support/server_process.h"

using namespace hitcost::testing;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr uint32_t kRows = 5;

json stats(int port) { return json::parse(http_get(port, "/stats").body); }

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void expect_every_answer_right(const LoadDriver& load) {
  auto c = load.count(Clock::time_point::min(), Clock::time_point::max());
  EXPECT_EQ(c[Sample::wrong_body], 0u);
  EXPECT_EQ(c[Sample::bad_status], 0u);
  EXPECT_EQ(c[Sample::io_error], 0u);
  std::printf("outcomes: hit=%lu miss=%lu\n", c[Sample::ok_hit], c[Sample::ok_miss]);
}

// A value as memcached holds it (raw `get`), to corrupt it realistically.
struct RawValue {
  uint32_t flags = 0;
  std::string data;
};

RawValue raw_get(int port, const std::string& key) {
  std::string r = memcached_raw(port, "get " + key + "\r\n", "END\r\n");
  RawValue v;
  unsigned len = 0;
  char name[300];
  if (std::sscanf(r.c_str(), "VALUE %299s %u %u", name, &v.flags, &len) != 3) return v;
  v.data = r.substr(r.find("\r\n") + 2, len);
  return v;
}

void raw_set(int port, const std::string& key, const RawValue& v) {
  std::string cmd =
      "set " + key + " " + std::to_string(v.flags) + " 0 " + std::to_string(v.data.size()) + "\r\n" + v.data + "\r\n";
  ASSERT_EQ(memcached_raw(port, cmd, "\r\n"), "STORED\r\n");
}

}  // namespace

// libmemcached retries a failed node on whole-second boundaries (1-2 s with
// retry_timeout_s=1, up to 1 s even with 0); retry_timeout_ms gives the thread a fresh
// handle after 200 ms, so hits resume well within 1 s of memcached answering again.
TEST(Faults, MemcachedKilledAndRestartedPagesKeepComingAndHitsResume) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address() + "?timeout_ms=200&retry_timeout_ms=200", "--threads",
                        "2", "--rows", std::to_string(kRows), "--strategy", "struct:json+zlib"});
  LoadDriver load(server.port(), 3, 40, kRows);
  load.start();
  std::this_thread::sleep_for(1500ms);
  const auto killed = Clock::now();
  mc.kill_now();
  std::this_thread::sleep_for(2s);
  const auto restart = Clock::now();
  mc.start_again();  // returns once memcached answers
  const auto back = Clock::now();
  std::this_thread::sleep_for(3s);
  load.stop();

  EXPECT_TRUE(server.alive());
  expect_every_answer_right(load);
  EXPECT_GT(load.count(Clock::time_point::min(), killed)[Sample::ok_hit], 0u) << "no hits before the kill";
  // While memcached is down, pages keep coming: from the origin (misses), each within a bound
  // of the store's timeout_ms (200) and never a pause in the answers as long as the outage (a
  // store that blocked until the node returned would hold every thread the whole 2 s).
  auto outage = load.count(killed, restart);
  EXPECT_GT(outage[Sample::ok_miss], 20u) << "pages stopped coming while memcached was down";
  const double bound_ms = 1000;  // 5x timeout_ms: room for a loaded 2-core machine and ASan
  EXPECT_LT(load.max_micros(killed, restart) / 1e3, bound_ms) << "a page waited for the node";
  Clock::time_point prev = killed;
  Clock::duration longest_gap{};
  for (const Sample& x : load.samples()) {
    if (x.start < killed || x.start >= restart) continue;
    longest_gap = std::max(longest_gap, x.start - prev);
    prev = x.start;
  }
  longest_gap = std::max(longest_gap, restart - prev);
  std::printf("outage: %lu misses, slowest %.1f ms, longest gap between requests %.3f s\n", outage[Sample::ok_miss],
              load.max_micros(killed, restart) / 1e3, seconds(longest_gap));
  EXPECT_LT(seconds(longest_gap) * 1e3, bound_ms) << "no request started for that long while memcached was down";
  const auto first_hit = load.first_hit_after(back);
  ASSERT_NE(first_hit, Clock::time_point::max()) << "hits never resumed";
  std::printf("restart took %.3f s; first hit %.3f s after memcached answered again\n", seconds(back - restart),
              seconds(first_hit - back));
  EXPECT_LT(first_hit - back, 1s);
  json s = stats(server.port());
  std::printf("store_errors_by_kind: %s\n", s["store_errors_by_kind"].dump().c_str());
  EXPECT_GT(s["store_errors"].get<uint64_t>(), 0u);
  EXPECT_GT(s["store_errors_by_kind"].value("connection", 0u) + s["store_errors_by_kind"].value("timeout", 0u) +
                s["store_errors_by_kind"].value("server_error", 0u),
            0u);
}

TEST(Faults, MemcachedFrozenFailsFastAndOtherConnectionsAreAnswered) {
  MemcachedProcess mc;
  ServerProcess server({"--store", "memcached:" + mc.address() + "?timeout_ms=200&retry_timeout_s=1", "--threads", "2",
                        "--rows", std::to_string(kRows), "--strategy", "html"});
  LoadDriver load(server.port(), 3, 40, kRows);
  load.start();
  std::this_thread::sleep_for(1s);
  const auto frozen = Clock::now();
  mc.pause();
  // While frozen: fresh connections to a cache-free route keep being answered.
  uint32_t probes = 0, probe_max_us = 0, probe_failures = 0;
  while (Clock::now() - frozen < 3s) {
    auto t0 = Clock::now();
    try {
      if (http_get(server.port(), "/healthz").status != 200) ++probe_failures;
    } catch (const std::exception&) {
      ++probe_failures;
    }
    probe_max_us = std::max<uint32_t>(
        probe_max_us,
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count()));
    ++probes;
    std::this_thread::sleep_for(100ms);
  }
  const auto thawed = Clock::now();
  mc.resume();
  std::this_thread::sleep_for(3s);
  load.stop();

  EXPECT_TRUE(server.alive());
  expect_every_answer_right(load);
  const uint32_t page_max_us = load.max_micros(frozen, thawed);
  std::printf("frozen 3 s: slowest page %u us, %u probes (slowest %u us, %u failed)\n", page_max_us, probes,
              probe_max_us, probe_failures);
  EXPECT_LT(page_max_us, 1'000'000u) << "a request waited well past the 200 ms timeout";
  EXPECT_EQ(probe_failures, 0u);
  EXPECT_LT(probe_max_us, 1'000'000u);
  const auto first_hit = load.first_hit_after(thawed);
  ASSERT_NE(first_hit, Clock::time_point::max()) << "hits never resumed after SIGCONT";
  std::printf("first hit %.3f s after SIGCONT\n", seconds(first_hit - thawed));
  json s = stats(server.port());
  std::printf("store_errors_by_kind: %s\n", s["store_errors_by_kind"].dump().c_str());
  EXPECT_GT(s["store_errors_by_kind"].value("timeout", 0u), 0u);
}

TEST(Faults, CorruptValuesInMemcachedAreMissesNeverWrongPages) {
  MemcachedProcess mc;
  // php-memcached flags, zlib on every value (threshold 0): the stored bytes carry a
  // length prefix and zlib's checksum, so damage is detectable (an uncompressed html
  // value with a flipped bit is just another page; no format can tell).
  ServerProcess server({"--store", "memcached:" + mc.address(), "--rows", std::to_string(kRows), "--strategy",
                        "struct:json+zlib", "--flags", "php-memcached", "--threshold", "0"});
  HttpConnection conn(server.port());
  const json before = stats(server.port());

  struct Case {
    std::string name;
    std::function<RawValue(const RawValue&)> damage;
    bool always_detectable = true;
  };
  std::vector<Case> cases = {
      {"wrong_flags_msgpack",
       [](const RawValue& v) {
         return RawValue{7, v.data};
       }},
      {"wrong_flags_fastlz",
       [](const RawValue& v) {
         return RawValue{0x10 | 0x40 | 6, v.data};
       }},
      {"wrong_flags_igbinary",
       [](const RawValue& v) {
         return RawValue{5, v.data};
       }},
      {"wrong_flags_plain_json",
       [](const RawValue& v) {
         return RawValue{6, v.data};
       }},
      {"truncated_half",
       [](const RawValue& v) {
         return RawValue{v.flags, v.data.substr(0, v.data.size() / 2)};
       }},
      {"truncated_to_prefix",
       [](const RawValue& v) {
         return RawValue{v.flags, v.data.substr(0, 4)};
       }},
      {"empty",
       [](const RawValue& v) {
         return RawValue{v.flags, ""};
       }},
      {"absurd_length_prefix",
       [](const RawValue& v) {
         return RawValue{v.flags, "\xff\xff\xff\x7f" + v.data.substr(4)};
       }},
      {"plain_json_truncated",
       [](const RawValue&) {
         return RawValue{6, "{\"id\":3,\"title\":\"x\",\"rows\":[{"};
       }},
      {"garbage",
       [](const RawValue& v) {
         return RawValue{v.flags, std::string(v.data.size(), '\x5a')};
       }},
  };
  // Bit flips through the compressed stream (after the 4-byte length prefix). A flip in
  // deflate's final padding bits changes nothing, so those may decode to the right page.
  for (int i = 0; i < 8; ++i)
    cases.push_back({"bit_flip_" + std::to_string(i),
                     [i](const RawValue& v) {
                       RawValue d = v;
                       size_t at = 4 + (d.data.size() - 5) * static_cast<size_t>(i) / 7;
                       d.data[at] = static_cast<char>(d.data[at] ^ (1 << (i % 8)));
                       return d;
                     },
                     false});

  uint64_t detectable = 0;
  int64_t id = 100;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ++id;
    const std::string want = expected_page(id, kRows);
    const std::string target = "/page/" + std::to_string(id);
    HttpResponse miss = conn.get(target);
    ASSERT_EQ(miss.status, 200);
    const std::string key = miss.header("x-cache-key");
    RawValue good = raw_get(mc.port(), key);
    ASSERT_FALSE(good.data.empty()) << "the miss did not store " << key;
    raw_set(mc.port(), key, c.damage(good));

    HttpResponse r = conn.get(target);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, want) << "a damaged value produced a wrong page";
    if (c.always_detectable) {
      EXPECT_EQ(r.header("x-cache"), "miss");
      ++detectable;
    }
    // The miss path stored a good value again.
    HttpResponse again = conn.get(target);
    EXPECT_EQ(again.header("x-cache"), "hit");
    EXPECT_EQ(again.body, want);
  }
  json s = stats(server.port());
  const uint64_t errors = s["decode_errors"].get<uint64_t>() - before["decode_errors"].get<uint64_t>();
  std::printf("%zu corrupt values planted; decode_errors=%lu by kind %s\n", cases.size(), errors,
              s["decode_errors_by_kind"].dump().c_str());
  EXPECT_GE(errors, detectable);
  EXPECT_LE(errors, cases.size());
}
