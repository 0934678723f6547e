// When errors make a run something other than a measurement (load/error_limits.h).
#include "load/error_limits.h"

#include <gtest/gtest.h>

using namespace hitcost::client;

namespace {
LoadResult result(uint64_t requests, ErrorCounts e) {
  LoadResult r;
  r.requests = requests;
  r.errors = e;
  return r;
}
}  // namespace

TEST(ErrorLimits, AnyWrongAnswerIsOverTheDefault) {
  ErrorCounts e;
  e.status = 1;
  const auto over = over_error_limit(result(100'000, e), ErrorLimits{});
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("1 wrong answers (status 1) in 100000 responses"), std::string::npos) << *over;
  EXPECT_NE(over->find("--max-error-rate 0"), std::string::npos) << *over;
  EXPECT_FALSE(over_error_limit(result(100'000, {}), ErrorLimits{}));
}

TEST(ErrorLimits, ParseAndValidationErrorsAreWrongAnswersToo) {
  ErrorCounts parse, validation;
  parse.parse = 3;
  validation.validation = 2;
  ASSERT_TRUE(over_error_limit(result(100, parse), ErrorLimits{}));
  EXPECT_NE(over_error_limit(result(100, parse), ErrorLimits{})->find("in 103 responses"), std::string::npos)
      << "parse errors are responses that never counted as requests";
  EXPECT_TRUE(over_error_limit(result(100, validation), ErrorLimits{}));
  EXPECT_FALSE(over_error_limit(result(100, validation), ErrorLimits{0.02, 0.01}));
  EXPECT_TRUE(over_error_limit(result(100, validation), ErrorLimits{0.019, 0.01}));
}

TEST(ErrorLimits, TransportErrorsHaveTheirOwnLimit) {
  ErrorCounts e;
  e.timeout = 5;
  e.connect = 5;
  // 10 in 1010 attempts = 0.99 %: within the default 1 %.
  EXPECT_FALSE(over_error_limit(result(1000, e), ErrorLimits{}));
  e.read = 2;
  const auto over = over_error_limit(result(1000, e), ErrorLimits{});
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("12 transport errors (connect 5, read 2, timeout 5) in 1012 attempts"), std::string::npos)
      << *over;
  EXPECT_FALSE(over_error_limit(result(1000, e), ErrorLimits{0, 0.05}));
}

TEST(ErrorLimits, NothingButConnectErrorsIsOver) {
  ErrorCounts e;
  e.connect = 1312;
  const auto over = over_error_limit(result(0, e), ErrorLimits{});
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("= 100%"), std::string::npos) << *over;
}

TEST(ErrorLimits, FirstErrorOfEachKindIsKeptOnOneLine) {
  std::vector<ErrorSample> samples;
  keep_first_error(samples, "status 400", "bad strategy: unknown serializer 'jsn'\n");
  keep_first_error(samples, "status 400", "another reason");
  keep_first_error(samples, "connect", "Connection refused");
  keep_first_error(samples, "status 404", "no\r\nsuch\troute\n\n");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].detail, "bad strategy: unknown serializer 'jsn'");
  EXPECT_EQ(samples[1].kind, "connect");
  EXPECT_EQ(samples[2].detail, "no  such route");
  keep_first_error(samples, "parse", std::string(1000, 'x'));
  EXPECT_EQ(samples.back().detail.size(), 240u);
}
