// cpus_not_online_error: the start-up check of --cpus shared by hitcost-server and
// hitcost-load. A CPU that is not online, or that the kernel will not let a thread of this
// process run on (a cgroup cpuset), cannot be pinned to; the message names the offenders
// and what can be used.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <functional>

#include "proc/proc.h"

using hitcost::proc::cpus_not_online_error;

namespace {
// A pinning trial that allows exactly `cpus`.
std::function<bool(int)> pinnable(std::vector<int> cpus) {
  return [cpus](int c) { return std::find(cpus.begin(), cpus.end(), c) != cpus.end(); };
}
std::vector<int> affinity_of_this_thread() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) out.push_back(c);
  return out;
}
}  // namespace

TEST(CpuCheck, OnlineAndAllowedCpusPass) {
  EXPECT_FALSE(cpus_not_online_error({0, 1}, {0, 1}, pinnable({0, 1})));
  EXPECT_FALSE(cpus_not_online_error({1, 1, 0}, {0, 1}, pinnable({0, 1})));
  EXPECT_FALSE(cpus_not_online_error({}, {0, 1}, pinnable({0})));  // no --cpus: nothing to check
}

TEST(CpuCheck, AnOfflineCpuIsNamedWithTheOnlineOnes) {
  const auto e = cpus_not_online_error({0, 7}, {0, 1}, pinnable({0, 1}));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU 7 is not online (online: 0-1)");
}

TEST(CpuCheck, SeveralOfflineCpusAreOneSortedList) {
  const auto e = cpus_not_online_error({9, 4, 5, 0, 4}, {0, 1, 2, 3}, pinnable({0, 1, 2, 3}));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPUs 4-5,9 are not online (online: 0-3)");
}

TEST(CpuCheck, NegativeNumbersAreNeverOnline) {
  // format_cpu_list would read {-1, 0} as a range "-1-0"; a negative CPU stands alone.
  const auto e = cpus_not_online_error({-1, 0}, {0, 1}, pinnable({0, 1}));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "CPU -1 is not online (online: 0-1)");
}

TEST(CpuCheck, AnOnlineCpuOutsideTheCpusetIsRefusedNamingTheUsableOnes) {
  const auto e = cpus_not_online_error({0, 1, 3, 1}, {0, 1, 2, 3}, pinnable({0, 2}));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e,
            "CPUs 1,3 are online but this process may not run there (it may run on 0,2; a cgroup cpuset, e.g. "
            "docker --cpuset-cpus, sets that)");
}

TEST(CpuCheck, ThisMachineAcceptsItsOwnCpusAndRefusesOnePastTheLastOnline) {
  const std::vector<int> online = hitcost::proc::online_cpus();
  ASSERT_FALSE(online.empty());
  const std::vector<int> mine = affinity_of_this_thread();
  ASSERT_FALSE(mine.empty());
  EXPECT_FALSE(cpus_not_online_error(mine));
  EXPECT_EQ(affinity_of_this_thread(), mine) << "the trial puts the thread's mask back";
  const int past = online.back() + 1;
  const auto e = cpus_not_online_error({past});
  ASSERT_TRUE(e);
  EXPECT_EQ(*e,
            "CPU " + std::to_string(past) + " is not online (online: " + hitcost::proc::format_cpu_list(online) + ")");
}

TEST(CpuCheck, ANarrowerAffinityMaskIsNoObstacle) {
  // `taskset -c 0 hitcost-server --cpus 1` pins fine: a thread may widen its own mask within
  // its cpuset. The check must not refuse what pinning would do.
  const std::vector<int> mine = affinity_of_this_thread();
  // One CPU: skipped, and under HITCOST_NO_SKIP (CI) a failure: CI runs on two CPUs at least,
  // as the CPU-figure and pinning tests need.
  if (mine.size() < 2) GTEST_SKIP() << "needs two CPUs to narrow the mask to one";
  cpu_set_t first;
  CPU_ZERO(&first);
  CPU_SET(mine.front(), &first);
  ASSERT_EQ(sched_setaffinity(0, sizeof first, &first), 0);
  const auto e = cpus_not_online_error({mine.back()});
  EXPECT_EQ(affinity_of_this_thread(), std::vector<int>{mine.front()}) << "the narrowed mask is put back";
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c : mine) CPU_SET(c, &all);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  EXPECT_FALSE(e) << *e;
}
