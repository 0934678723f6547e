#include "load/http_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace hitcost::client;

namespace {
struct Parsed {
  std::vector<ResponseInfo> responses;
  bool error = false;
};
// Feeds `wire` in pieces cut at `cuts`, collecting every complete response.
Parsed parse_in_pieces(const std::string& wire, const std::vector<size_t>& cuts) {
  Parsed out;
  ResponseParser p;
  size_t start = 0;
  std::vector<size_t> bounds = cuts;
  bounds.push_back(wire.size());
  for (size_t end : bounds) {
    const char* data = wire.data() + start;
    size_t n = end - start;
    start = end;
    while (n > 0) {
      size_t used = 0;
      const auto r = p.feed(data, n, &used);
      data += used;
      n -= used;
      if (r == ResponseParser::Result::error) {
        out.error = true;
        return out;
      }
      if (r == ResponseParser::Result::complete) {
        out.responses.push_back(p.info());
        p.reset();
      } else {
        EXPECT_EQ(n, 0u);
        break;
      }
    }
  }
  return out;
}
const std::string kHit =
    "HTTP/1.1 200 OK\r\nServer: hitcost\r\nContent-Length: 11\r\nX-Cache: hit\r\n"
    "X-Strategy: struct:json+zlib\r\n\r\nhello world";
}  // namespace

TEST(HttpParser, SplitAtEveryByteBoundaryGivesTheSameResponse) {
  for (size_t cut = 0; cut <= kHit.size(); ++cut) {
    const Parsed p = parse_in_pieces(kHit, {cut});
    ASSERT_FALSE(p.error) << "cut " << cut;
    ASSERT_EQ(p.responses.size(), 1u) << "cut " << cut;
    EXPECT_EQ(p.responses[0].status, 200);
    EXPECT_EQ(p.responses[0].content_length, 11u);
    EXPECT_EQ(p.responses[0].cache, CacheTag::hit);
    EXPECT_STREQ(p.responses[0].strategy, "struct:json+zlib");
    EXPECT_FALSE(p.responses[0].close);
    EXPECT_EQ(p.responses[0].header_bytes + 11, kHit.size());
  }
}

TEST(HttpParser, OneByteAtATime) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < kHit.size(); ++i) cuts.push_back(i);
  const Parsed p = parse_in_pieces(kHit, cuts);
  ASSERT_EQ(p.responses.size(), 1u);
  EXPECT_EQ(p.responses[0].cache, CacheTag::hit);
}

TEST(HttpParser, PipelinedResponsesAreSeparated) {
  const std::string miss = "HTTP/1.1 200 OK\r\ncontent-length: 3\r\nx-cache: MISS\r\n\r\nabc";
  const std::string close = "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  const std::string wire = kHit + miss + close;
  for (size_t cut = 0; cut <= wire.size(); cut += 7) {
    const Parsed p = parse_in_pieces(wire, {cut});
    ASSERT_FALSE(p.error);
    ASSERT_EQ(p.responses.size(), 3u) << "cut " << cut;
    EXPECT_EQ(p.responses[0].cache, CacheTag::hit);
    EXPECT_EQ(p.responses[1].cache, CacheTag::miss);
    EXPECT_EQ(p.responses[1].content_length, 3u);
    EXPECT_EQ(p.responses[2].status, 503);
    EXPECT_TRUE(p.responses[2].close);
  }
}

TEST(HttpParser, BodyIsCountedNotRequiredInOneRead) {
  const std::string big = "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x');
  const Parsed p = parse_in_pieces(big, {10, 50, 1000, 60000});
  ASSERT_EQ(p.responses.size(), 1u);
  EXPECT_EQ(p.responses[0].content_length, 100000u);
  EXPECT_EQ(p.responses[0].cache, CacheTag::unknown);
}

TEST(HttpParser, BadStatusLinesAreParseErrors) {
  for (const std::string bad : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "ICY 200 OK\r\n\r\n",
                                "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.1 20\r\n\r\n", "\r\n", "HTTP/1.1 099 Low\r\n\r\n"}) {
    EXPECT_TRUE(parse_in_pieces(bad, {}).error) << bad;
  }
  EXPECT_FALSE(parse_in_pieces("HTTP/1.1 204\r\n\r\n", {}).error);  // empty reason is legal
}

TEST(HttpParser, ChunkedAndLengthlessResponsesAreRejected) {
  EXPECT_TRUE(
      parse_in_pieces("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", {}).error);
  EXPECT_TRUE(parse_in_pieces("HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", {}).error);
  EXPECT_TRUE(parse_in_pieces("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", {}).error);
  EXPECT_TRUE(parse_in_pieces("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", {}).error);
  EXPECT_TRUE(parse_in_pieces("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", {}).error);
  EXPECT_TRUE(parse_in_pieces("HTTP/1.1 200 OK\r\nX: " + std::string(10000, 'a') + "\r\n\r\n", {5000}).error);
}

TEST(HttpParser, Http10ClosesUnlessKeptAlive) {
  auto p = parse_in_pieces("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", {});
  ASSERT_EQ(p.responses.size(), 1u);
  EXPECT_TRUE(p.responses[0].close);
  p = parse_in_pieces("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", {});
  ASSERT_EQ(p.responses.size(), 1u);
  EXPECT_FALSE(p.responses[0].close);
  p = parse_in_pieces("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", {});
  EXPECT_TRUE(p.responses[0].close);
}

// The server's reason for a non-2xx answer is kept (its start), split reads or not; a 2xx
// body is never copied.
TEST(HttpParser, KeepsTheStartOfAnErrorBodyOnly) {
  const std::string reason = "bad strategy: unknown serializer 'jsn'\n";
  const std::string wire =
      "HTTP/1.1 400 Bad Request\r\nContent-Length: " + std::to_string(reason.size()) + "\r\n\r\n" + reason + kHit;
  for (size_t cut = 1; cut < wire.size(); cut += 7) {
    ResponseParser p;
    size_t used = 0;
    ASSERT_EQ(p.feed(wire.data(), cut, &used),
              cut >= wire.size() - kHit.size() ? ResponseParser::Result::complete : ResponseParser::Result::need_more);
    if (used < cut) {
      ASSERT_EQ(p.info().status, 400);
      EXPECT_EQ(p.error_body(), reason) << "cut at " << cut;
      continue;
    }
    size_t more = 0;
    ASSERT_EQ(p.feed(wire.data() + cut, wire.size() - cut, &more), ResponseParser::Result::complete);
    EXPECT_EQ(p.info().status, 400);
    EXPECT_EQ(p.error_body(), reason) << "cut at " << cut;
    p.reset();
    EXPECT_EQ(p.error_body(), "");
    size_t rest = 0;
    ASSERT_EQ(p.feed(wire.data() + cut + more, wire.size() - cut - more, &rest), ResponseParser::Result::complete);
    EXPECT_EQ(p.info().status, 200);
    EXPECT_EQ(p.error_body(), "") << "a 2xx body is not copied";
  }
  const std::string long_body(1000, 'x');
  const std::string big = "HTTP/1.1 500 Oops\r\nContent-Length: 1000\r\n\r\n" + long_body;
  ResponseParser p;
  size_t used = 0;
  ASSERT_EQ(p.feed(big.data(), big.size(), &used), ResponseParser::Result::complete);
  EXPECT_EQ(p.error_body().size(), ResponseParser::kErrorBodyMax);
}
