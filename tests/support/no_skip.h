#pragma once
// HITCOST_NO_SKIP=1 (set by .ci/run): a test that skips, or that leaves a check out because the
// machine lacks something, fails instead. CI must not pass on a capability it never tested; a
// stage that cannot run a test excludes it by name in its ctest call, where it is seen.
// tests/support/no_skip.cpp (linked into every hitcost_add_test executable) turns a GTEST_SKIP
// into a failure; unchecked() is for the branches a test leaves out without skipping.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace hitcost::testing {

inline bool skips_fail() {
  const char* v = std::getenv("HITCOST_NO_SKIP");
  return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
}

// A check the test could not make here (`what` says which and why): a failure under
// HITCOST_NO_SKIP, a note on stdout otherwise.
inline void unchecked(std::string_view what) {
  if (skips_fail())
    ADD_FAILURE() << "HITCOST_NO_SKIP is set and this check was left out: " << what;
  else
    std::printf("note: left out: %.*s\n", static_cast<int>(what.size()), what.data());
}

}  // namespace hitcost::testing
