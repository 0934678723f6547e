// Linked into every test executable (hitcost_add_test): under HITCOST_NO_SKIP a skipped test
// fails (tests/support/no_skip.h). The listener is appended at static initialisation, before
// gtest_main's InitGoogleTest; gtest calls OnTestEnd on listeners in reverse order, so the
// failure added here is in the result before the default printer reports the test.
#include "tests/support/no_skip.h"

#include <gtest/gtest.h>

namespace {

class SkipIsFailure : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result() != nullptr && info.result()->Skipped())
      ADD_FAILURE() << "skipped under HITCOST_NO_SKIP: " << info.test_suite_name() << "." << info.name()
                    << " (exclude it by name in the stage that cannot run it instead)";
  }
};

const bool registered = [] {
  if (hitcost::testing::skips_fail()) ::testing::UnitTest::GetInstance()->listeners().Append(new SkipIsFailure);
  return true;
}();

}  // namespace
