// The probe judge's interval math against values computed independently (mpmath at 40 digits:
// regularized betainc, bisection on it; the large Clopper-Pearson case by summing the binomial
// pmf), and its decisions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/probe_judge.h"
#include "analysis/stat_math.h"
#include "stats/histogram.h"

namespace hail {
namespace {

void expect_relative(double actual, double expected, double tolerance) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * tolerance) << "expected " << expected;
}

TEST(StatMath, LogGammaMatchesLibm) {
  for (double x : {0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 100.25, 1e4, 12345.5, 1e8}) {
    // Single-threaded here, so std::lgamma's global signgam is harmless.
    const double expected = std::lgamma(x);
    EXPECT_NEAR(log_gamma(x), expected, 1e-13 * std::max(1.0, std::fabs(expected))) << x;
  }
  EXPECT_TRUE(std::isnan(log_gamma(0)));
  EXPECT_TRUE(std::isnan(log_gamma(-1)));
}

TEST(StatMath, IncompleteBeta) {
  // I_0.4(2, 3) is a polynomial: 6x^2 - 8x^3 + 3x^4 = 0.5248.
  EXPECT_NEAR(regularized_incomplete_beta(2, 3, 0.4), 0.5248, 1e-15);
  expect_relative(regularized_incomplete_beta(0.5, 0.5, 0.1), 0.20483276469913345, 1e-13);
  expect_relative(regularized_incomplete_beta(30, 70, 0.25), 0.13581490428342744, 1e-12);
  expect_relative(regularized_incomplete_beta(1000, 99000, 0.011), 0.99899708963092645, 1e-12);
  EXPECT_EQ(regularized_incomplete_beta(2, 3, 0), 0);
  EXPECT_EQ(regularized_incomplete_beta(2, 3, 1), 1);
  // Symmetry: I_x(a, b) = 1 - I_(1-x)(b, a), across the branch between the two fractions.
  for (double x : {0.05, 0.3, 0.45, 0.7, 0.95}) {
    EXPECT_NEAR(regularized_incomplete_beta(7, 4.5, x),
                1 - regularized_incomplete_beta(4.5, 7, 1 - x), 1e-14);
  }
  EXPECT_NEAR(inverse_incomplete_beta(2, 3, 0.5248), 0.4, 1e-14);
}

TEST(StatMath, NormalAndStudentQuantiles) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489008, 1e-13);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-15);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.2621571627982055, 1e-12);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736174705, 1e-10);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604094871349993, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.025, 9), -2.2621571627982055, 1e-12);
  // Many degrees of freedom: the normal's quantile.
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959963984540054, 1e-6);
  EXPECT_TRUE(std::isnan(normal_quantile(0)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.975, 0)));
}

TEST(StatMath, ClopperPearsonExactValues) {
  Interval i = clopper_pearson(5, 100, 0.95);
  expect_relative(i.low, 0.016431879182052163, 1e-11);
  expect_relative(i.high, 0.11283491110546275, 1e-11);
  // No successes: [0, 1 - (alpha/2)^(1/n)]; all: [(alpha/2)^(1/n), 1].
  i = clopper_pearson(0, 100, 0.95);
  EXPECT_EQ(i.low, 0);
  expect_relative(i.high, 1 - std::pow(0.025, 1.0 / 100), 1e-12);
  expect_relative(i.high, 0.036216692645176410, 1e-12);
  i = clopper_pearson(100, 100, 0.95);
  expect_relative(i.low, std::pow(0.025, 1.0 / 100), 1e-12);
  EXPECT_EQ(i.high, 1);
  // A p99 probe's size: 35 of 3,500 over the limit.
  i = clopper_pearson(35, 3500, 0.95);
  expect_relative(i.low, 0.006974973824352393, 1e-10);
  expect_relative(i.high, 0.013880377342393364, 1e-10);
  // A long fast probe: 1,000 of 10^8 (lgamma of 10^8 costs precision: ~1e-7 relative is plenty).
  i = clopper_pearson(1000, 100'000'000, 0.95);
  expect_relative(i.low, 9.389733002270437e-6, 1e-6);
  expect_relative(i.high, 1.0639517958054743e-5, 1e-6);
  i = clopper_pearson(0, 0, 0.95);
  EXPECT_EQ(i.low, 0);
  EXPECT_EQ(i.high, 1);
}

TEST(ProbeJudge, BatchMeansIntervalExact) {
  // Pooled 10 of 500 = 0.02; residuals -1, 1, 0, 0, 0; SE = sqrt(2 * 5/4) / 500; t(0.975, 4).
  const std::vector<WindowCount> windows = {{100, 1}, {100, 3}, {100, 2},
                                            {0, 0},   {100, 2}, {100, 2}};
  const Interval i = batch_means_interval(windows, 0.95);
  const double half = 2.7764451051977943 * std::sqrt(2.5) / 500;
  EXPECT_NEAR(i.low, 0.02 - half, 1e-14);
  EXPECT_NEAR(i.high, 0.02 + half, 1e-14);
  // One window with events: no spread to measure.
  const std::vector<WindowCount> one = {{100, 5}, {0, 0}};
  EXPECT_EQ(batch_means_interval(one, 0.95).low, 0);
  EXPECT_EQ(batch_means_interval(one, 0.95).high, 1);
}

std::vector<WindowCount> spread(uint64_t windows, uint64_t per_window, uint64_t above_total) {
  std::vector<WindowCount> out(windows, WindowCount{per_window, 0});
  for (uint64_t i = 0; i < above_total; ++i) ++out[i % windows].above;
  return out;
}

TEST(ProbeJudge, PercentileThresholdPassFailInconclusive) {
  // p99 <= L over 10,000 requests: max_fraction 0.01.
  // 50 over the limit: Clopper-Pearson [0.00371, 0.00659], all below 1 %.
  ProportionJudgement j = judge_proportion(spread(10, 1000, 50), 0.01);
  EXPECT_EQ(j.judgement, Judgement::kPass);
  EXPECT_EQ(j.total, 10000u);
  EXPECT_EQ(j.above, 50u);
  EXPECT_DOUBLE_EQ(j.fraction, 0.005);
  EXPECT_NEAR(j.binomial.high, 0.0065866264290799, 1e-11);
  // 200 over: [0.01735, 0.02294], all above.
  j = judge_proportion(spread(10, 1000, 200), 0.01);
  EXPECT_EQ(j.judgement, Judgement::kFail);
  EXPECT_NEAR(j.binomial.low, 0.017346535326613344, 1e-11);
  // 100 over: the point estimate sits on the limit, [0.00814, 0.01215] straddles it.
  j = judge_proportion(spread(10, 1000, 100), 0.01);
  EXPECT_EQ(j.judgement, Judgement::kInconclusive);
  // Nothing measured: nothing to say.
  EXPECT_EQ(judge_proportion(spread(3, 0, 0), 0.01).judgement, Judgement::kInconclusive);
  EXPECT_EQ(judge_proportion({}, 0.01).judgement, Judgement::kInconclusive);
}

TEST(ProbeJudge, BurstyWindowsWidenTheInterval) {
  // The same 70 of 10,000 (binomial upper 0.00884 < 1 %): evenly spread, a pass; all in one
  // window (a stall), the windows disagree and the probe cannot be called.
  const std::vector<WindowCount> even = spread(10, 1000, 70);
  std::vector<WindowCount> burst(10, WindowCount{1000, 0});
  burst[9].above = 70;
  ProportionJudgement j = judge_proportion(even, 0.01);
  EXPECT_EQ(j.judgement, Judgement::kPass);
  EXPECT_TRUE(j.batch_used);
  EXPECT_NEAR(j.binomial.high, 0.008835915517580856, 1e-11);

  j = judge_proportion(burst, 0.01);
  EXPECT_EQ(j.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(j.batch_used);
  // residuals: -7 (x9), 63: SE = sqrt(4410 * 10/9) / 10000 = 0.007.
  EXPECT_NEAR(j.batch.high, 0.007 + 2.2621571627982055 * 0.007, 1e-12);
  EXPECT_DOUBLE_EQ(j.interval.high, j.batch.high);
  EXPECT_EQ(j.batch.low, 0);  // 0.007 - 0.0158, clamped
  EXPECT_EQ(j.interval.low, 0);

  // Too few windows to trust their spread: the binomial interval decides.
  JudgeOptions few;
  few.min_batch_windows = 11;
  j = judge_proportion(burst, 0.01, few);
  EXPECT_FALSE(j.batch_used);
  EXPECT_EQ(j.judgement, Judgement::kPass);
}

TEST(ProbeJudge, ZeroAndFullFractionsAreObservations) {
  // "max <= L" or "no errors": one sample over fails, whatever the count.
  EXPECT_EQ(judge_proportion(spread(5, 1000, 0), 0).judgement, Judgement::kPass);
  EXPECT_EQ(judge_proportion(spread(5, 1000, 1), 0).judgement, Judgement::kFail);
  EXPECT_EQ(judge_proportion(spread(5, 1000, 5000), 1).judgement, Judgement::kPass);
  // Error rate <= 1 % with 3 failures of 100,000: the interval is well below.
  EXPECT_EQ(judge_proportion(spread(10, 10000, 3), 0.01).judgement, Judgement::kPass);
}

TEST(ProbeJudge, CountAboveAgreesWithValueAtPercentile) {
  Histogram exact;
  for (uint64_t v = 1; v <= 1000; ++v) exact.record(v);  // exact slots below 2048 ns
  EXPECT_EQ(count_above(exact, 990), 10u);
  EXPECT_EQ(count_above(exact, 1000), 0u);
  EXPECT_EQ(count_above(exact, 0), 1000u);

  // Values spread over several decades (slots wider than 1 ns), a long tail.
  Histogram h;
  uint64_t v = 1500;
  for (int i = 0; i < 20000; ++i) {
    v = (v * 6364136223846793005ull + 1442695040888963407ull);
    const uint64_t latency =
        50'000 + (v >> 40) % 2'000'000 + (i % 97 == 0 ? (v >> 20) % 50'000'000 : 0);
    h.record(latency);
  }
  for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) {
    const uint64_t rank = Histogram::rank_at_percentile(p, h.count());
    const uint64_t reported = h.value_at_percentile(p);
    for (uint64_t limit : {reported - 1, reported, reported + 1, reported / 2, reported * 2}) {
      EXPECT_EQ(reported <= limit, count_above(h, limit) <= h.count() - rank)
          << "p" << p << " limit " << limit;
    }
  }
}

TEST(ProbeJudge, WindowMean) {
  // mean 100, s = sqrt(2.5), half width t(0.975, 4) * s / sqrt(5) = 1.9632...
  const std::vector<double> rates = {100, 102, 98, 101, 99};
  MeanJudgement j = judge_window_mean(rates, 95, Bound::kAtLeast);
  const double half = 2.7764451051977943 * std::sqrt(2.5) / std::sqrt(5.0);
  EXPECT_DOUBLE_EQ(j.mean, 100);
  EXPECT_NEAR(j.interval.low, 100 - half, 1e-12);
  EXPECT_NEAR(j.interval.high, 100 + half, 1e-12);
  EXPECT_EQ(j.judgement, Judgement::kPass);
  EXPECT_EQ(judge_window_mean(rates, 101, Bound::kAtLeast).judgement, Judgement::kInconclusive);
  EXPECT_EQ(judge_window_mean(rates, 103, Bound::kAtLeast).judgement, Judgement::kFail);
  EXPECT_EQ(judge_window_mean(rates, 97, Bound::kAtMost).judgement, Judgement::kFail);
  EXPECT_EQ(judge_window_mean(rates, 102, Bound::kAtMost).judgement, Judgement::kPass);
  const std::vector<double> one = {100};
  EXPECT_EQ(judge_window_mean(one, 50, Bound::kAtLeast).judgement, Judgement::kInconclusive);
}

TEST(ProbeJudge, Combine) {
  EXPECT_EQ(combine(Judgement::kPass, Judgement::kPass), Judgement::kPass);
  EXPECT_EQ(combine(Judgement::kPass, Judgement::kInconclusive), Judgement::kInconclusive);
  EXPECT_EQ(combine(Judgement::kInconclusive, Judgement::kFail), Judgement::kFail);
  EXPECT_EQ(combine(Judgement::kFail, Judgement::kPass), Judgement::kFail);
  EXPECT_STREQ(judgement_name(Judgement::kInconclusive), "inconclusive");
}

TEST(ProbeJudge, GeneratorBoundNeedsSaturatedCpu) {
  GeneratorSignals s;
  s.target_per_s = 10000;
  s.achieved_per_s = 8123;
  s.cpu_busy = 0.5;  // short of target with an idle hail: the server's doing
  EXPECT_EQ(generator_bound_reason(s), "");
  s.cpu_busy = 0.97;
  EXPECT_EQ(generator_bound_reason(s), "hail's CPU 97% busy, sent 8123 of 10000 req/s");
  s.achieved_per_s = 9990;  // busy but on time and on target: not bound
  EXPECT_EQ(generator_bound_reason(s), "");
  s.lag_p99_ns = 23'400'000;
  EXPECT_EQ(generator_bound_reason(s), "hail's CPU 97% busy, scheduler lag p99 23.4 ms");
}

}  // namespace
}  // namespace hail
