#include "report/distributions.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace hitcost::client;

// Tabulated values (Abramowitz & Stegun; any t table) to 9 or more digits.
TEST(Distributions, NormalQuantilesMatchTheTables) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829304, 1e-8);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-6), -4.753424309, 1e-7);
  EXPECT_NEAR(normal_cdf(1.959963985), 0.975, 1e-9);
}

TEST(Distributions, StudentTQuantilesMatchTheTables) {
  struct Row {
    double p, df, t;
  };
  const Row table[] = {{0.975, 1, 12.70620474}, {0.975, 2, 4.30265273}, {0.975, 5, 2.57058184},
                       {0.975, 30, 2.04227246}, {0.995, 2, 9.92484320}, {0.995, 10, 3.16927267},
                       {0.9995, 4, 8.61030158}, {0.9, 3, 1.63774435},   {0.975, 1000, 1.96233908}};
  int checked = 0;
  for (const Row& r : table) {
    EXPECT_NEAR(student_t_quantile(r.p, r.df), r.t, 1e-6 * r.t) << r.p << " " << r.df;
    EXPECT_NEAR(student_t_cdf(r.t, r.df), r.p, 1e-9) << r.p << " " << r.df;
    EXPECT_NEAR(student_t_quantile(1 - r.p, r.df), -r.t, 1e-6 * r.t);  // symmetric
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

TEST(Distributions, IncompleteBetaKnownValues) {
  EXPECT_NEAR(incomplete_beta(0.5, 1, 1), 0.5, 1e-14);           // uniform
  EXPECT_NEAR(incomplete_beta(0.3, 2, 1), 0.09, 1e-14);          // x^2
  EXPECT_NEAR(incomplete_beta(0.3, 1, 2), 1 - 0.49, 1e-14);      // 1 − (1−x)^2
  EXPECT_NEAR(incomplete_beta(0.25, 0.5, 0.5), 1.0 / 3, 1e-12);  // (2/π) asin(√x)
  EXPECT_DOUBLE_EQ(incomplete_beta(0, 3, 4), 0);
  EXPECT_DOUBLE_EQ(incomplete_beta(1, 3, 4), 1);
}
