// fit_drift: least squares against a textbook example, the slope's t-test against Student's t with
// 3 degrees of freedom in closed form, and the cases a soak run meets (flat, noisy flat, a leak).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/drift.h"

namespace hail {
namespace {

TEST(Drift, TextbookLine) {
  // x = 1..5, y = 2 4 5 4 5: slope 0.6, intercept 2.2, r² 0.6, slope s.e. sqrt(0.08).
  const std::vector<DriftPoint> p = {{1, 2}, {2, 4}, {3, 5}, {4, 4}, {5, 5}};
  const auto fit = fit_drift(p);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->points, 5u);
  // Residuals -0.8 0.6 1.0 -0.6 -0.2: lag-1 sum -0.48 + 0.6 - 0.6 + 0.12 = -0.36 over 2.4.
  EXPECT_NEAR(fit->residual_autocorrelation, -0.15, 1e-12);
  EXPECT_DOUBLE_EQ(fit->effective_points, 5);  // negative correlation: no correction
  EXPECT_NEAR(fit->slope_per_s, 0.6, 1e-12);
  EXPECT_NEAR(fit->intercept, 2.2, 1e-12);
  EXPECT_NEAR(fit->r2, 0.6, 1e-12);
  // t = 0.6 / sqrt(0.08) = 2.1213 with 3 dof: two-sided p = 0.124027 (closed form for 3 dof).
  EXPECT_NEAR(fit->p_value, 0.1240270627, 1e-6);
  EXPECT_FALSE(fit->significant);
  // t(0.975, 3) = 3.182446: the slope's 95 % interval.
  EXPECT_NEAR(fit->slope_low_per_s, 0.6 - 3.182446305 * std::sqrt(0.08), 1e-5);
  EXPECT_NEAR(fit->slope_high_per_s, 0.6 + 3.182446305 * std::sqrt(0.08), 1e-5);
  EXPECT_NEAR(fit->first_fitted, 2.8, 1e-12);
  EXPECT_NEAR(fit->last_fitted, 5.2, 1e-12);
  EXPECT_DOUBLE_EQ(fit->span_s, 4);
}

TEST(Drift, TooFewPointsOrNoTimeSpan) {
  EXPECT_FALSE(fit_drift(std::vector<DriftPoint>{{0, 1}, {1, 2}}));
  EXPECT_FALSE(fit_drift(std::vector<DriftPoint>{{3, 1}, {3, 2}, {3, 5}}));
}

TEST(Drift, ConstantAndPerfectLines) {
  std::vector<DriftPoint> flat;
  std::vector<DriftPoint> line;
  for (int i = 0; i < 10; ++i) {
    flat.push_back({static_cast<double>(i), 7.0});
    line.push_back({static_cast<double>(i), 3.0 + 2.0 * i});
  }
  const auto f = fit_drift(flat);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->slope_per_s, 0);
  EXPECT_FALSE(f->significant);
  EXPECT_EQ(f->p_value, 1);
  const auto l = fit_drift(line);
  ASSERT_TRUE(l);
  EXPECT_NEAR(l->slope_per_s, 2, 1e-12);
  EXPECT_NEAR(l->r2, 1, 1e-12);
  EXPECT_TRUE(l->significant);
}

// A soak run's RSS, one sample a second for 10 minutes, with allocator noise of +-2 MiB: a leak
// of 38 MiB/h is found; without it the slope is not significant, and its interval bounds the
// growth that could have gone unnoticed.
TEST(Drift, LeakAgainstNoise) {
  const double mib = 1024.0 * 1024.0;
  std::vector<DriftPoint> leak;
  std::vector<DriftPoint> steady;
  uint64_t state = 12345;
  for (int i = 0; i < 600; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double noise = (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 4 * mib;
    const double t = i;
    steady.push_back({t, 200 * mib + noise});
    leak.push_back({t, 200 * mib + noise + 38 * mib / 3600 * t});
  }
  const auto l = fit_drift(leak);
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->significant);
  EXPECT_NEAR(l->slope_per_s * 3600 / mib, 38, 3);
  EXPECT_LT(l->slope_low_per_s, l->slope_per_s);
  const auto s = fit_drift(steady);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->significant);
  EXPECT_LT(s->slope_low_per_s, 0);
  EXPECT_GT(s->slope_high_per_s, 0);
  EXPECT_LT(s->slope_high_per_s * 3600 / mib, 10);  // under 10 MiB/h could have gone unnoticed
}

// AR(1) noise (rho 0.95, as a slowly wandering latency or heap) with no trend: an ordinary t-test
// calls most such series "drifting"; with the effective sample size, few are.
TEST(Drift, AutocorrelatedNoiseIsNotATrend) {
  uint64_t state = 99;
  auto uniform = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  int false_alarms = 0;
  constexpr int kTrials = 200;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<DriftPoint> p;
    double x = 0;
    for (int i = 0; i < 300; ++i) {
      x = 0.95 * x + (uniform() - 0.5);
      p.push_back({static_cast<double>(i), 100 + x});
    }
    const auto fit = fit_drift(p);
    ASSERT_TRUE(fit);
    EXPECT_GT(fit->residual_autocorrelation, 0.7);
    EXPECT_LT(fit->effective_points, 40);
    false_alarms += fit->significant ? 1 : 0;
  }
  // 5 % nominal; the AR(1) estimate is biased low on short series, so allow some slack.
  EXPECT_LT(false_alarms, kTrials * 15 / 100) << false_alarms << " of " << kTrials;
}

}  // namespace
}  // namespace hail
