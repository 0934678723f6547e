// cpus_not_online_error: the start-up check of --cpus shared by hitcost-server and
// hitcost-load. A CPU that is not online, or outside the process's affinity mask, cannot be
// pinned to; the message names the offenders and what can be used.
#include <gtest/gtest.h>

#include "proc/proc.h"

using hitcost::proc::cpus_not_online_error;

TEST(CpuCheck, OnlineAndAllowedCpusPass) {
  EXPECT_FALSE(cpus_not_online_error({0, 1}, {0, 1}, {0, 1}));
  EXPECT_FALSE(cpus_not_online_error({1, 1, 0}, {0, 1}, {0, 1}));
  EXPECT_FALSE(cpus_not_online_error({}, {0, 1}, {0}));  // no --cpus: nothing to check
}

TEST(CpuCheck, AnOfflineCpuIsNamedWithTheOnlineOnes) {
  const auto e = cpus_not_online_error({0, 7}, {0, 1}, {0, 1});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU 7 is not online (online: 0-1)");
}

TEST(CpuCheck, SeveralOfflineCpusAreOneSortedList) {
  const auto e = cpus_not_online_error({9, 4, 5, 0, 4}, {0, 1, 2, 3}, {0, 1, 2, 3});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPUs 4-5,9 are not online (online: 0-3)");
}

TEST(CpuCheck, NegativeNumbersAreNeverOnline) {
  // format_cpu_list would read {-1, 0} as a range "-1-0"; a negative CPU stands alone.
  const auto e = cpus_not_online_error({-1, 0}, {0, 1}, {0, 1});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU -1 is not online (online: 0-1)");
}

TEST(CpuCheck, AnOnlineCpuOutsideTheAffinityMaskIsRefused) {
  const auto e = cpus_not_online_error({0, 1}, {0, 1, 2, 3}, {0});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU 1 is outside this process's allowed CPUs (0; a cgroup cpuset or taskset narrows them)");
}

TEST(CpuCheck, ThisMachineAcceptsItsOwnOnlineCpusInsideItsMask) {
  // Every CPU this process may run on is online; asking for all of them must pass, and one
  // past the last online CPU must not (the error names the online list this machine has).
  const std::vector<int> online = hitcost::proc::online_cpus();
  ASSERT_FALSE(online.empty());
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  std::vector<int> mine;
  for (int c : online)
    if (CPU_ISSET(c, &mask)) mine.push_back(c);
  ASSERT_FALSE(mine.empty());
  EXPECT_FALSE(cpus_not_online_error(mine));
  const int past = online.back() + 1;
  const auto e = cpus_not_online_error({past});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU " + std::to_string(past) + " is not online (online: " +
                    hitcost::proc::format_cpu_list(online) + ")");
}
