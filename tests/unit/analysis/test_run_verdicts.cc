// judge_run: a result's --slo texts (RunResult::slo) parsed and judged over the whole measured
// phase and per stage / ladder step, unreadable texts as failed checks, has_slo() and slo_ok(),
// and the generator-health checks next to them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/run_verdicts.h"
#include "slo_fixtures.h"

namespace hail {
namespace {

using slo_test::kMs;
using slo_test::kS;
using slo_test::run_of;
using slo_test::steady;
using slo_test::window;

// Ten one-second windows: the first five fast (1 ms), the last five with 10% at 20 ms; each half
// is one ladder step (100, then 200 req/s).
RunResult ladder_run() {
  std::vector<WindowStats> w;
  for (uint64_t i = 0; i < 10; ++i)
    w.push_back(window(i * kS, kS, i < 5 ? 100 : 90, i < 5 ? 0 : 10));
  RunResult run = run_of(w);
  run.ladder = true;
  run.target_unit = "req/s";
  for (size_t step = 0; step < 2; ++step) {
    WindowStats s;
    for (size_t i = step * 5; i < step * 5 + 5; ++i) merge_window(s, w[i]);
    s.target_start = s.target_end = step == 0 ? 100 : 200;
    run.steps.push_back(s);
  }
  return run;
}

TEST(RunVerdicts, NoThresholds) {
  const RunVerdicts v = judge_run(run_of(steady(5)));
  EXPECT_FALSE(v.has_slo());
  EXPECT_TRUE(v.slo_ok());
  EXPECT_TRUE(v.thresholds.empty());
  EXPECT_TRUE(v.slo.checks.empty());
  EXPECT_TRUE(v.steps.steps.empty());
  EXPECT_EQ(v.health.checks.size(), 4u);  // health is judged with or without thresholds
}

TEST(RunVerdicts, ThresholdsParsedAndJudgedInOrder) {
  RunResult run = run_of(steady(5));
  run.slo = {"p(99)<10ms", "error_rate<1%", "max<500us"};
  const RunVerdicts v = judge_run(run);
  ASSERT_EQ(v.thresholds.size(), 3u);
  EXPECT_EQ(v.thresholds[1].metric, SloMetric::kErrorRate);
  EXPECT_DOUBLE_EQ(v.thresholds[1].limit, 0.01);
  ASSERT_EQ(v.slo.checks.size(), 3u);
  EXPECT_EQ(v.slo.checks[0].expr, "p(99)<10ms");
  EXPECT_TRUE(v.slo.checks[0].ok);
  EXPECT_TRUE(v.slo.checks[1].ok);
  EXPECT_FALSE(v.slo.checks[2].ok);  // every response took 1 ms
  EXPECT_TRUE(v.has_slo());
  EXPECT_FALSE(v.slo_ok());
  EXPECT_TRUE(v.unreadable.empty());
}

TEST(RunVerdicts, PassingRun) {
  RunResult run = run_of(steady(5));
  run.slo = {"p(99)<10ms"};
  const RunVerdicts v = judge_run(run);
  EXPECT_TRUE(v.has_slo());
  EXPECT_TRUE(v.slo_ok());
  ASSERT_EQ(v.slo.checks.size(), 1u);
  ASSERT_TRUE(v.slo.checks[0].value.has_value());
  EXPECT_NEAR(*v.slo.checks[0].value, 1e6, 1e3);
}

TEST(RunVerdicts, UnreadableTextIsAFailedCheck) {
  RunResult run = run_of(steady(5));
  run.slo = {"p(99)<10ms", "p(99)<10xs"};
  const RunVerdicts v = judge_run(run);
  ASSERT_EQ(v.thresholds.size(), 1u);
  ASSERT_EQ(v.unreadable.size(), 1u);
  EXPECT_NE(v.unreadable[0].find("10xs"), std::string::npos) << v.unreadable[0];
  // The readable one first, the unreadable one after it, failed.
  ASSERT_EQ(v.slo.checks.size(), 2u);
  EXPECT_TRUE(v.slo.checks[0].ok);
  EXPECT_FALSE(v.slo.checks[1].ok);
  EXPECT_NE(v.slo.checks[1].expr.find("10xs"), std::string::npos);
  EXPECT_FALSE(v.slo.checks[1].value.has_value());
  EXPECT_FALSE(v.slo.checks[1].detail.empty());
  EXPECT_TRUE(v.has_slo());
  EXPECT_FALSE(v.slo_ok());
  EXPECT_FALSE(v.slo.ok);
}

TEST(RunVerdicts, OnlyUnreadableTexts) {
  RunResult run = run_of(steady(5));
  run.slo = {"nonsense"};
  const RunVerdicts v = judge_run(run);
  EXPECT_TRUE(v.thresholds.empty());
  EXPECT_TRUE(v.has_slo());
  EXPECT_FALSE(v.slo_ok());
  ASSERT_EQ(v.slo.checks.size(), 1u);
  EXPECT_FALSE(v.slo.checks[0].ok);
}

TEST(RunVerdicts, StepsJudgedWhenTheRunHasThem) {
  RunResult run = ladder_run();
  run.slo = {"p(99)<10ms"};
  const RunVerdicts v = judge_run(run);
  // The whole run: 5% at 20 ms, p99 = 20 ms.
  EXPECT_FALSE(v.slo_ok());
  ASSERT_EQ(v.steps.steps.size(), 2u);
  EXPECT_TRUE(v.steps.steps[0].ok);
  EXPECT_FALSE(v.steps.steps[1].ok);
  ASSERT_TRUE(v.steps.highest_passing.has_value());
  EXPECT_EQ(*v.steps.highest_passing, 0u);
  ASSERT_TRUE(v.steps.first_failing.has_value());
  EXPECT_EQ(*v.steps.first_failing, 1u);
}

TEST(RunVerdicts, NoStepsWithoutThresholdsOrWithoutSteps) {
  RunResult stepped = ladder_run();
  EXPECT_TRUE(judge_run(stepped).steps.steps.empty());  // no thresholds
  RunResult flat = run_of(steady(5));
  flat.slo = {"p(99)<10ms"};
  EXPECT_TRUE(judge_run(flat).steps.steps.empty());
}

TEST(RunVerdicts, FirstBreachOfAFailingThreshold) {
  std::vector<WindowStats> w = steady(6);
  w[3] = window(3 * kS, kS, 99, 1, 200 * kMs);  // max jumps in the fourth second
  RunResult run = run_of(w);
  run.slo = {"max<100ms"};
  const RunVerdicts v = judge_run(run);
  ASSERT_EQ(v.slo.checks.size(), 1u);
  ASSERT_FALSE(v.slo.checks[0].ok);
  ASSERT_TRUE(v.slo.checks[0].first_breach_s.has_value());
  EXPECT_DOUBLE_EQ(*v.slo.checks[0].first_breach_s, 4.0);
}

TEST(RunVerdicts, HealthComesFromTheRun) {
  RunResult run = run_of(steady(5));
  run.max_worker_cpu_utilization = 0.2;
  EXPECT_FALSE(judge_run(run).health.limited_by_hail);
  run.max_worker_cpu_utilization = 0.99;  // closed loop: a saturated thread limits the load
  EXPECT_TRUE(judge_run(run).health.limited_by_hail);
}

}  // namespace
}  // namespace hail
