// parse_smaps_rollup on the layouts kernels have written: fields a kernel lacks are unknown,
// never zero; names are matched whole.
#include <gtest/gtest.h>

#include "server/process_stats.h"

using hitcost::server::parse_smaps_rollup;

TEST(ProcessMemory, ReadsThePssSplitOfRecentKernels) {
  // Linux 6.x: Pss_Dirty (6.0) sits between Pss and Pss_Anon and must not be read as Pss.
  const auto m = parse_smaps_rollup(
      "56404bc22000-7ffc71c61000 ---p 00000000 00:00 0                          [rollup]\n"
      "Rss:               71672 kB\n"
      "Pss:               70187 kB\n"
      "Pss_Dirty:           112 kB\n"
      "Pss_Anon:           4112 kB\n"
      "Pss_File:          66075 kB\n"
      "Pss_Shmem:             0 kB\n"
      "Shared_Clean:       1520 kB\n"
      "SwapPss:               7 kB\n");
  ASSERT_TRUE(m.pss_kb && m.pss_anon_kb && m.pss_file_kb && m.pss_shmem_kb);
  EXPECT_EQ(*m.pss_kb, 70187u);
  EXPECT_EQ(*m.pss_anon_kb, 4112u);
  EXPECT_EQ(*m.pss_file_kb, 66075u);
  EXPECT_EQ(*m.pss_shmem_kb, 0u);
}

TEST(ProcessMemory, FieldsAnOlderKernelLacksStayUnknown) {
  // Linux 4.14 - 5.8: Pss only, no split.
  const auto m = parse_smaps_rollup(
      "00400000-7fff5a1f3000 ---p 00000000 00:00 0                              [rollup]\n"
      "Rss:                 884 kB\n"
      "Pss:                 385 kB\n"
      "Shared_Clean:        504 kB\n");
  ASSERT_TRUE(m.pss_kb);
  EXPECT_EQ(*m.pss_kb, 385u);
  EXPECT_FALSE(m.pss_anon_kb);
  EXPECT_FALSE(m.pss_file_kb);
  EXPECT_FALSE(m.pss_shmem_kb);
}

TEST(ProcessMemory, MalformedValuesAndEmptyTextAreUnknown) {
  const auto empty = parse_smaps_rollup("");
  EXPECT_FALSE(empty.pss_kb || empty.pss_anon_kb || empty.pss_file_kb || empty.pss_shmem_kb);
  const auto m = parse_smaps_rollup(
      "Pss:                 12 MB\n"  // unit not kB
      "Pss_Anon:            x kB\n"   // not a number
      "Pss_File:            -3 kB\n"  // negative
      "Pss_Shmem:           5 kB");   // no final newline: still read
  EXPECT_FALSE(m.pss_kb);
  EXPECT_FALSE(m.pss_anon_kb);
  EXPECT_FALSE(m.pss_file_kb);
  ASSERT_TRUE(m.pss_shmem_kb);
  EXPECT_EQ(*m.pss_shmem_kb, 5u);
}

TEST(ProcessMemory, ThisProcessHasAPss) {
  const auto m = hitcost::server::process_memory();
  ASSERT_TRUE(m.pss_kb) << "no /proc/self/smaps_rollup";
  EXPECT_GT(*m.pss_kb, 0u);
}
