#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analysis/slo_eval.h"
#include "analysis/slo_expr.h"
#include "unit/analysis/slo_fixtures.h"

namespace hail::slo_test {
namespace {

// --- early abort ---

TEST(SloAbort, AbortOnMonotoneWholeRunThresholds) {
  const std::vector<std::string> texts = {"max<50ms",  "min>5ms",     "requests<=250",
                                          "errors==0", "timeouts==0", "max==1ms"};
  SloEvaluator e(slos(texts));
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_TRUE(e.can_still_pass(i)) << texts[i];
  EXPECT_FALSE(e.abort().has_value());

  e.add_window(window(0, kS, 100));  // 100 at 1 ms: min>5ms fails for good
  EXPECT_TRUE(e.can_still_pass(0));
  EXPECT_FALSE(e.can_still_pass(1));
  EXPECT_TRUE(e.can_still_pass(2));
  ASSERT_TRUE(e.abort().has_value());
  EXPECT_EQ(e.abort()->threshold, 1u);
  EXPECT_DOUBLE_EQ(e.abort()->at_s, 1.0);
  EXPECT_NE(e.abort()->reason.find("\"min>5ms\""), std::string::npos) << e.abort()->reason;

  WindowStats second = window(kS, kS, 100, 1, 80 * kMs);
  second.errors[kTimeout] = 1;
  e.add_window(second);  // max 80 ms, a timeout
  EXPECT_FALSE(e.can_still_pass(0));
  EXPECT_TRUE(e.can_still_pass(2));  // 201 requests
  EXPECT_FALSE(e.can_still_pass(3));
  EXPECT_FALSE(e.can_still_pass(4));
  EXPECT_FALSE(e.can_still_pass(5));
  e.add_window(window(2 * kS, kS, 100));
  EXPECT_FALSE(e.can_still_pass(2));  // 301 requests
  // The earliest stays the answer.
  EXPECT_EQ(e.abort()->threshold, 1u);
  EXPECT_DOUBLE_EQ(e.abort()->at_s, 1.0);
}

TEST(SloAbort, NoAbortWhileMoreRequestsCouldStillBringTheValueBack) {
  const std::vector<std::string> texts = {"p(99)<10ms",     "med<10ms",
                                          "avg<2ms",        "error_rate<1%",
                                          "rps>=500",       "timeouts!=0",
                                          "requests>=1000", "p(99)<10ms over 10s",
                                          "ttfb.p(99)<1ms", "latency{tag=x}: max<1ms"};
  SloEvaluator e(slos(texts));
  WindowStats bad = window(0, kS, 0, 100);
  bad.errors[kRead] = 50;
  e.add_window(bad);
  e.add_window(window(kS, kS, 0, 100));
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_TRUE(e.can_still_pass(i)) << texts[i];
  EXPECT_FALSE(e.abort().has_value());
}

TEST(SloAbort, WindowedBreachIsFinalAndAbortsAtItsWindow) {
  SloEvaluator e(slos({"p(99)<10ms for 2s", "p(99)<10ms over 2s"}));
  e.add_window(window(0, kS, 100));
  e.add_window(window(kS, kS, 0, 100));
  EXPECT_TRUE(e.can_still_pass(0));  // 1 s of violation so far
  EXPECT_FALSE(e.can_still_pass(1));
  ASSERT_TRUE(e.abort().has_value());
  EXPECT_EQ(e.abort()->threshold, 1u);
  EXPECT_DOUBLE_EQ(e.abort()->at_s, 2.0);
  e.add_window(window(2 * kS, kS, 0, 100));
  EXPECT_FALSE(e.can_still_pass(0));
  // Recovery does not undo a breach.
  e.add_window(window(3 * kS, kS, 100));
  e.add_window(window(4 * kS, kS, 100));
  EXPECT_FALSE(e.can_still_pass(0));
  EXPECT_FALSE(e.can_still_pass(1));
  const SloReport report = e.finish(run_of(steady(5)));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 3.0);
  EXPECT_FALSE(report.checks[1].ok);
  EXPECT_DOUBLE_EQ(*report.checks[1].first_breach_s, 2.0);
}

TEST(SloAbort, AbortPicksTheLowestIndexAmongEqualTimes) {
  SloEvaluator e(slos({"p(99)<10ms", "errors==0", "max<5ms"}));
  WindowStats w = window(0, kS, 10, 1);
  w.errors[kRead] = 1;
  e.add_window(w);
  ASSERT_TRUE(e.abort().has_value());
  EXPECT_EQ(e.abort()->threshold, 1u);
}

TEST(SloAbort, ExplicitMeasureStartSetsTheClock) {
  SloEvaluator e(slos({"max<5ms"}), 10 * kS);
  e.add_window(window(12 * kS, kS, 1, 1));
  ASSERT_TRUE(e.abort().has_value());
  EXPECT_DOUBLE_EQ(e.abort()->at_s, 3.0);
}

// --- stages and ladders ---

// Steps of 3 one-second intervals each at the given targets; `slow_step` (if any) has all its
// responses slow.
RunResult ladder(const std::vector<double>& targets, const std::vector<size_t>& slow_steps) {
  std::vector<WindowStats> intervals;
  std::vector<WindowStats> steps;
  for (size_t j = 0; j < targets.size(); ++j) {
    const bool slow = std::find(slow_steps.begin(), slow_steps.end(), j) != slow_steps.end();
    WindowStats step;
    for (uint64_t k = 0; k < 3; ++k) {
      const uint64_t start = (3 * j + k) * kS;
      const WindowStats w = slow ? window(start, kS, 0, 100) : window(start, kS, 100);
      intervals.push_back(w);
      merge_window(step, w);
    }
    step.target_start = step.target_end = targets[j];
    steps.push_back(step);
  }
  RunResult run = run_of(intervals);
  run.steps = steps;
  run.ladder = true;
  return run;
}

TEST(SloSteps, EachStepJudgedAndTheHighestPassingNamed) {
  const RunResult run = ladder({100, 200, 300, 400}, {2, 3});
  const SloStepsReport r =
      evaluate_slo_steps(slos({"p(99)<10ms", "rps>=90", "ttfb.p(99)<1ms"}), run);
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_TRUE(r.steps[0].ok);
  EXPECT_TRUE(r.steps[1].ok);
  EXPECT_FALSE(r.steps[2].ok);
  EXPECT_FALSE(r.steps[3].ok);
  ASSERT_TRUE(r.highest_passing.has_value());
  EXPECT_EQ(*r.highest_passing, 1u);
  ASSERT_TRUE(r.first_failing.has_value());
  EXPECT_EQ(*r.first_failing, 2u);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(r.steps[j].step, j);
    const SloReport& rep = r.steps[j].report;
    ASSERT_EQ(rep.checks.size(), 3u);
    EXPECT_DOUBLE_EQ(*rep.checks[1].value, 100.0);  // the step's own rate
    // ttfb has no per-step data: not applicable, and no effect on the verdict.
    EXPECT_FALSE(rep.checks[2].applicable);
    EXPECT_TRUE(rep.checks[2].ok);
  }
  // A failing step's breach is dated on the run's clock: step 2 starts at 6 s.
  EXPECT_DOUBLE_EQ(*r.steps[2].report.checks[0].first_breach_s, 7.0);
}

TEST(SloSteps, HighestPassingIsTheHighestTargetNotTheLastStep) {
  // Ladders need not be monotone in their verdicts: a flaky low step fails, a higher one passes.
  const RunResult run = ladder({100, 200, 300, 250}, {0, 2});
  const SloStepsReport r = evaluate_slo_steps(slos({"p(99)<10ms"}), run);
  EXPECT_EQ(*r.highest_passing, 3u);  // 250 beats 200
  EXPECT_EQ(*r.first_failing, 0u);

  // Equal targets: the earliest.
  const SloStepsReport eq = evaluate_slo_steps(slos({"p(99)<10ms"}), ladder({100, 300, 300}, {}));
  EXPECT_EQ(*eq.highest_passing, 1u);
  EXPECT_FALSE(eq.first_failing.has_value());

  // Nothing passed.
  const SloStepsReport none = evaluate_slo_steps(slos({"p(99)<10ms"}), ladder({100, 200}, {0, 1}));
  EXPECT_FALSE(none.highest_passing.has_value());
  EXPECT_EQ(*none.first_failing, 0u);

  // No steps: nothing to judge.
  const SloStepsReport no_steps = evaluate_slo_steps(slos({"p(99)<10ms"}), run_of(steady(3)));
  EXPECT_TRUE(no_steps.steps.empty());
  EXPECT_FALSE(no_steps.highest_passing.has_value());
}

TEST(SloSteps, WindowedThresholdsUseTheStepsOwnIntervals) {
  // One slow interval in step 1: "for 2s" never breaches there; "over 2s" does. Spans do not
  // reach across steps: step 2 starts fresh.
  RunResult run = ladder({100, 200, 300}, {});
  run.intervals[4] = window(4 * kS, kS, 0, 100);
  const SloStepsReport r =
      evaluate_slo_steps(slos({"p(99)<10ms for 2s", "p(99)<10ms over 2s"}), run);
  for (size_t j = 0; j < 3; ++j) EXPECT_TRUE(r.steps[j].report.checks[0].ok) << j;
  EXPECT_TRUE(r.steps[0].report.checks[1].ok);
  EXPECT_FALSE(r.steps[1].report.checks[1].ok);
  EXPECT_DOUBLE_EQ(*r.steps[1].report.checks[1].first_breach_s, 5.0);
  EXPECT_TRUE(r.steps[2].report.checks[1].ok);
  EXPECT_EQ(*r.highest_passing, 2u);
  EXPECT_EQ(*r.first_failing, 1u);
}

TEST(SloSteps, WindowedThresholdsNeedAWholeIntervalInsideTheStep) {
  // Intervals [0, 2) [2, 4) [4, 6) s, the middle one slow; steps [0, 1) [1, 4) [4, 6) s: the first
  // holds no whole interval, the second holds the slow one ([0, 2) straddles its start), the third
  // a fast one.
  std::vector<WindowStats> intervals;
  for (uint64_t i = 0; i < 3; ++i) intervals.push_back(window(2 * i * kS, 2 * kS, 100, 0));
  intervals[1] = window(2 * kS, 2 * kS, 0, 100);  // slow
  RunResult run = run_of(intervals);
  const std::vector<std::pair<uint64_t, uint64_t>> bounds = {{0, 1}, {1, 4}, {4, 6}};
  for (size_t j = 0; j < bounds.size(); ++j) {
    WindowStats step = window(bounds[j].first * kS, (bounds[j].second - bounds[j].first) * kS, 10);
    step.target_start = step.target_end = 100.0 * static_cast<double>(j + 1);
    run.steps.push_back(step);
  }
  const SloStepsReport r = evaluate_slo_steps(slos({"p(99)<10ms for 1s"}), run);
  ASSERT_EQ(r.steps.size(), 3u);
  const SloCheck& none = r.steps[0].report.checks[0];
  EXPECT_FALSE(none.applicable);
  EXPECT_TRUE(none.ok);
  EXPECT_TRUE(r.steps[0].ok);
  EXPECT_NE(none.detail.find("inside the step"), std::string::npos) << none.detail;
  EXPECT_TRUE(r.steps[1].report.checks[0].applicable);
  EXPECT_FALSE(r.steps[1].ok);
  EXPECT_DOUBLE_EQ(*r.steps[1].report.checks[0].first_breach_s, 4.0);
  EXPECT_TRUE(r.steps[2].report.checks[0].applicable);
  EXPECT_TRUE(r.steps[2].ok);
  EXPECT_EQ(*r.highest_passing, 2u);
}

TEST(SloSteps, StepTotalsFromAWindowDirectly) {
  SloEvaluator e(slos({"error_rate<10%", "service.p(99)<1ms", "service.p(99)?<1ms", "requests>=10",
                       "latency{tag=a}: p(99)<1ms"}));
  WindowStats step = window(0, 10 * kS, 90);
  step.errors[kConnect] = 10;
  const SloReport r = e.finish(step);
  EXPECT_DOUBLE_EQ(*r.checks[0].value, 0.1);
  EXPECT_FALSE(r.checks[0].ok);
  EXPECT_FALSE(r.checks[1].ok);  // no service times in the window: missing, a failure
  EXPECT_TRUE(r.checks[1].applicable);
  EXPECT_TRUE(r.checks[2].ok);
  EXPECT_TRUE(r.checks[3].ok);
  EXPECT_FALSE(r.checks[4].applicable);
  EXPECT_FALSE(r.ok);
}

// --- SloCounts ---

TEST(SloCounts, AddAndSubtractAreInverse) {
  WindowStats a = window(0, kS, 10, 2);
  a.status_errors = 1;
  a.errors[kRead] = 3;
  WindowStats b = window(kS, 2 * kS, 5);
  b.errors[kConnect] = 4;
  SloCounts c = SloCounts::of_window(a);
  EXPECT_EQ(c.error_rate_base, 15u);
  c.add(SloCounts::of_window(b));
  EXPECT_EQ(c.completed, 17u);
  EXPECT_EQ(c.error_rate_base, 24u);
  EXPECT_EQ(c.duration_ns, 3 * kS);
  c.subtract(SloCounts::of_window(a));
  EXPECT_EQ(c.completed, 5u);
  EXPECT_EQ(c.status_errors, 0u);
  EXPECT_EQ(c.errors[kRead], 0u);
  EXPECT_EQ(c.errors[kConnect], 4u);
  EXPECT_EQ(c.error_rate_base, 9u);
  EXPECT_EQ(c.duration_ns, 2 * kS);
}

TEST(SloCounts, RunDenominatorAddsConnectErrorsAndUnsolicitedResponses) {
  RunResult run;
  run.counters.attempted = 100;
  run.counters.errors[kConnect] = 7;
  run.counters.unsolicited = 2;
  run.duration_ns = 5 * kS;
  const SloCounts c = SloCounts::of_run(run);
  EXPECT_EQ(c.error_rate_base, 109u);
  EXPECT_EQ(c.duration_ns, 5 * kS);
}

}  // namespace
}  // namespace hail::slo_test
