// Measuring processes hitcost-load did not build: the /proc readings behind --server-pids
// and --server-tree (measure/process_set.h), against processes this test forks.
#include "measure/process_set.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "proc/proc.h"

using namespace hitcost::client;

namespace {

// A child that forks a grandchild; both sleep until killed. Returns the child's pid.
pid_t fork_two_levels() {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::fork() == 0) {
      for (;;) ::pause();
    }
    for (;;) ::pause();
  }
  return child;
}

// A child that burns `ms` of its own CPU time (not wall time: the machine may be busy), then
// says so on a pipe and sleeps until killed. Returns once the burning is done.
pid_t fork_burner(int ms) {
  int done[2];
  if (::pipe(done) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    timespec t{};
    volatile uint64_t x = 0;
    do {
      for (int i = 0; i < 100000; ++i) x = x + 1;
      ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while (t.tv_sec * 1000 + t.tv_nsec / 1'000'000 < ms);
    (void)!::write(done[1], "x", 1);
    for (;;) ::pause();
  }
  ::close(done[1]);
  char c;
  (void)!::read(done[0], &c, 1);
  ::close(done[0]);
  return child;
}

void kill_tree(pid_t root) {
  for (int64_t p : hitcost::proc::process_tree(root)) ::kill(pid_t(p), SIGKILL);
  ::waitpid(root, nullptr, 0);
}

}  // namespace

TEST(ProcessSet, TreeHoldsChildrenAndGrandchildren) {
  const pid_t child = fork_two_levels();
  ASSERT_GT(child, 0);
  std::vector<int64_t> tree;
  for (int i = 0; i < 100 && tree.size() < 2; ++i) {  // the grandchild needs a moment to exist
    ::usleep(10'000);
    tree = hitcost::proc::process_tree(child);
  }
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0], child);
  const auto mine = hitcost::proc::process_tree(::getpid());
  EXPECT_NE(std::find(mine.begin(), mine.end(), tree[1]), mine.end()) << "the grandchild is under this process too";
  ProcessSetSpec spec;
  spec.trees = {child};
  EXPECT_EQ(read_members(spec).size(), 2u);
  kill_tree(child);
  EXPECT_TRUE(hitcost::proc::process_tree(child).empty());
}

TEST(ProcessSet, RuntimeAgreesWithProcStatTicks) {
  const pid_t child = fork_burner(300);
  ASSERT_GT(child, 0);
  const auto ns = hitcost::proc::read_runtime_ns(child);
  const auto stat = hitcost::proc::read_process(child);
  kill_tree(child);
  ASSERT_TRUE(ns && stat);
  EXPECT_GT(double(*ns) / 1e9, 0.2) << "the burner did not burn";
  // /proc/PID/stat counts 10 ms ticks: the two agree to a couple of ticks.
  EXPECT_NEAR(double(*ns) / 1e9, stat->cpu_s, 0.025);
}

TEST(ProcessSet, DeltaMatchesMembersByPidAndStartTime) {
  const std::vector<Member> before = {{10, 100, "a", 1.0, {}}, {11, 100, "b", 2.0, {}}, {12, 100, "c", 0.5, {}}};
  // 10 ran 0.25 s; 11 exited; 12 is a new process under a reused pid; 13 was born.
  const std::vector<Member> after = {{10, 100, "a", 1.25, {}}, {12, 900, "c2", 0.125, {}}, {13, 950, "d", 0.5, {}}};
  const MemberDelta d = member_delta(before, after);
  EXPECT_DOUBLE_EQ(d.cpu_s, 0.25 + 0.125 + 0.5);
  EXPECT_EQ(d.changed, 4);  // 11 and the old 12 left, the new 12 and 13 came
  EXPECT_EQ(member_delta(before, before).changed, 0);
  EXPECT_DOUBLE_EQ(member_delta(before, before).cpu_s, 0.0);
}

TEST(ProcessSet, SnapshotIsShapedLikeStatsAndRefusesAnEmptySet) {
  const pid_t child = fork_burner(50);
  ASSERT_GT(child, 0);
  ProcessSetSpec server, cache;
  server.pids = {child};
  cache.pids = {::getpid()};
  auto j = process_set_stats(server, cache, 12.5);
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ((*j)["backend"], "processes: pids " + std::to_string(child));
  EXPECT_EQ((*j)["host"]["pid"], child);
  EXPECT_EQ(members_of(*j, "processes").size(), 1u);
  EXPECT_EQ(members_of(*j, "cache_processes").size(), 1u);
  EXPECT_TRUE((*j)["store"]["extra"].contains("rusage_user_s"));
  kill_tree(child);
  const auto gone = process_set_stats(server, {}, 13.0);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, hitcost::Errc::not_found);
  EXPECT_EQ(gone.error().message, "no live process in the server set (pids " + std::to_string(child) + ")");
}
