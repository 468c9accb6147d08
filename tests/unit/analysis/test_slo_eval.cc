#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/slo_eval.h"
#include "analysis/slo_expr.h"
#include "unit/analysis/slo_fixtures.h"

namespace hail::slo_test {
namespace {

// --- whole run ---

TEST(SloEval, WholeRunPercentileFromTheRunsHistogram) {
  // 1000 responses, 5 slow: p99 (rank 990) is fast, p99.9 (rank 999) slow.
  std::vector<WindowStats> w = steady(10);
  w[4] = window(4 * kS, kS, 95, 5);
  const RunResult run = run_of(w);
  const SloReport report = evaluate_slos(
      slos({"p(99)<10ms", "p(99.9)<10ms", "avg<2ms", "max<1s", "med<1.01ms", "min>=1ms"}), run);
  ASSERT_EQ(report.checks.size(), 6u);
  EXPECT_FALSE(report.ok);
  const SloCheck& p99 = report.checks[0];
  EXPECT_TRUE(p99.ok);
  EXPECT_EQ(p99.expr, "p(99)<10ms");
  EXPECT_EQ(p99.metric, "latency.p(99)");
  ASSERT_TRUE(p99.value.has_value());
  EXPECT_EQ(*p99.value, static_cast<double>(run.latency.value_at_percentile(99)));
  EXPECT_FALSE(p99.first_breach_s.has_value());
  const SloCheck& p999 = report.checks[1];
  EXPECT_FALSE(p999.ok);
  EXPECT_EQ(*p999.value, static_cast<double>(run.latency.value_at_percentile(99.9)));
  EXPECT_GT(*p999.value, 19.9e6);
  EXPECT_TRUE(report.checks[2].ok);
  EXPECT_EQ(*report.checks[2].value, run.latency.mean());
  EXPECT_TRUE(report.checks[3].ok);
  EXPECT_EQ(*report.checks[3].value, 20.0 * kMs);
  EXPECT_TRUE(report.checks[4].ok) << *report.checks[4].value;
  EXPECT_TRUE(report.checks[5].ok);
}

TEST(SloEval, WholeRunFirstBreachIsWhereTheRunSoFarFirstFailed) {
  // The cumulative p99 over windows 0..k: fails from window 6 on, when enough slow responses
  // accumulated (window 6 is all slow).
  std::vector<WindowStats> w = steady(10);
  w[6] = window(6 * kS, kS, 0, 100);
  const SloCheck c = only_check(evaluate_slos(slos({"p(99)<10ms"}), run_of(w)));
  EXPECT_FALSE(c.ok);
  ASSERT_TRUE(c.first_breach_s.has_value());
  EXPECT_DOUBLE_EQ(*c.first_breach_s, 7.0);

  // The run's totals fail though no prefix of the windows did (they miss in-flight requests):
  // the breach is dated at the end of the last window.
  RunResult run = run_of(steady(4));
  run.latency.record_n(500 * kMs, 10);
  const SloCheck late = only_check(evaluate_slos(slos({"p(99)<10ms"}), run));
  EXPECT_FALSE(late.ok);
  ASSERT_TRUE(late.first_breach_s.has_value());
  EXPECT_DOUBLE_EQ(*late.first_breach_s, 4.0);
}

TEST(SloEval, MissingMetricFailsUnlessOptional) {
  const RunResult run = run_of(steady(3));  // closed loop: no service time, no lag, no TLS
  const SloReport report =
      evaluate_slos(slos({"service.p(99)<5ms", "service.p(99)?<5ms", "lag.p99<1ms", "tls.avg<10ms",
                          "ttfb.p(99)<5ms", "connect.max?<1s", "latency{tag=checkout}: p(99)<20ms",
                          "error_rate{tag=nope}?<1%"}),
                    run);
  ASSERT_EQ(report.checks.size(), 8u);
  EXPECT_FALSE(report.ok);
  const std::vector<bool> expected_ok = {false, true, false, false, false, true, false, true};
  for (size_t i = 0; i < expected_ok.size(); ++i) {
    const SloCheck& c = report.checks[i];
    EXPECT_EQ(c.ok, expected_ok[i]) << c.expr;
    EXPECT_FALSE(c.value.has_value()) << c.expr;
    EXPECT_FALSE(c.first_breach_s.has_value()) << c.expr;
    EXPECT_FALSE(c.detail.empty()) << c.expr;
  }
  EXPECT_NE(report.checks[1].detail.find("optional"), std::string::npos);
  EXPECT_NE(report.checks[6].detail.find("checkout"), std::string::npos);

  // No response at all: latency has no samples either.
  RunResult empty = run_of({window(0, kS, 0)});
  empty.counters.errors[kConnect] = 3;
  const SloReport none = evaluate_slos(slos({"p(99)<10ms", "p(99)?<10ms", "errors==0"}), empty);
  EXPECT_FALSE(none.checks[0].ok);
  EXPECT_TRUE(none.checks[1].ok);
  EXPECT_FALSE(none.checks[2].ok);  // a count of 3 is a value, not a missing metric
  EXPECT_EQ(*none.checks[2].value, 3.0);
}

TEST(SloEval, NoMeasurementsAtAllFailEveryMetric) {
  const RunResult run;  // nothing attempted, no duration
  const SloReport report = evaluate_slos(slos({"error_rate<1%", "rps>=0", "error_rate?<1%"}), run);
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_FALSE(report.checks[0].value.has_value());
  EXPECT_FALSE(report.checks[1].ok);
  EXPECT_TRUE(report.checks[2].ok);
}

TEST(SloEval, ErrorRateCountsEveryErrorAndBadStatusOverAttempts) {
  RunResult run = run_of(steady(2));  // 200 completed
  run.counters.status_errors = 4;     // part of the 200
  run.counters.errors[kTimeout] = 3;
  run.counters.errors[kRead] = 2;
  run.counters.errors[kConnect] = 5;  // no request consumed
  run.counters.in_flight = 10;
  run.counters.attempted = 200 + 3 + 2 + 10;
  ASSERT_TRUE(run.accounting_holds());
  const SloReport report = evaluate_slos(
      slos({"error_rate<5%", "errors==14", "timeouts==0", "status_errors<=4", "errors.connect<5",
            "http_req_failed: rate<0.05", "requests>=200", "rps>=100", "http_reqs: rate>100"}),
      run);
  // (4 + 3 + 2 + 5) / (215 + 5)
  const double rate = 14.0 / 220.0;
  EXPECT_DOUBLE_EQ(*report.checks[0].value, rate);
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_FALSE(report.checks[2].ok);
  EXPECT_EQ(*report.checks[2].value, 3.0);
  EXPECT_TRUE(report.checks[3].ok);
  EXPECT_FALSE(report.checks[4].ok);
  EXPECT_DOUBLE_EQ(*report.checks[5].value, rate);
  EXPECT_TRUE(report.checks[6].ok);
  EXPECT_DOUBLE_EQ(*report.checks[7].value, 100.0);  // 200 responses in 2 s
  EXPECT_TRUE(report.checks[7].ok);
  EXPECT_FALSE(report.checks[8].ok);
}

TEST(SloEval, PerTagThresholds) {
  RunResult run = run_of(steady(2));
  TagResult checkout;
  checkout.name = "checkout";
  checkout.completed = 50;
  checkout.status_codes = {{200, 48}, {503, 2}};
  checkout.errors[kTimeout] = 2;
  checkout.latency.record_n(30 * kMs, 50);
  TagResult home;
  home.name = "home";
  home.completed = 150;
  home.status_codes = {{200, 150}};
  home.latency.record_n(1 * kMs, 150);
  run.tags = {checkout, home};
  const SloReport report =
      evaluate_slos(slos({"latency{tag=checkout}: p(99)<20ms", "latency{tag=home}: p(99)<20ms",
                          "error_rate{tag=checkout}<5%", "rps{tag=home}>=75",
                          "http_req_duration{name:home}: max<2ms", "errors{tag=checkout}==4"}),
                    run);
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_EQ(*report.checks[0].value, static_cast<double>(checkout.latency.value_at_percentile(99)));
  EXPECT_FALSE(report.checks[0].first_breach_s.has_value());  // no per-tag windows
  EXPECT_TRUE(report.checks[1].ok);
  // (2 bad statuses + 2 timeouts) over 52 outcomes
  EXPECT_DOUBLE_EQ(*report.checks[2].value, 4.0 / 52.0);
  EXPECT_FALSE(report.checks[2].ok);
  EXPECT_DOUBLE_EQ(*report.checks[3].value, 75.0);
  EXPECT_TRUE(report.checks[3].ok);
  EXPECT_TRUE(report.checks[4].ok);
  EXPECT_TRUE(report.checks[5].ok);
}

// --- sliding windows (over) ---

TEST(SloEval, OverChecksEverySlidingSpan) {
  // 5 slow responses in window 4: any 3-window span holding it has 5 of 300 slow, so its p99
  // (rank 297) is slow; the whole run (5 of 1000) passes.
  std::vector<WindowStats> w = steady(10);
  w[4] = window(4 * kS, kS, 95, 5);
  const RunResult run = run_of(w);
  const SloReport report = evaluate_slos(slos({"p(99)<10ms over 3s", "p(99)<10ms"}), run);
  const SloCheck& over = report.checks[0];
  EXPECT_FALSE(over.ok);
  ASSERT_TRUE(over.first_breach_s.has_value());
  EXPECT_DOUBLE_EQ(*over.first_breach_s, 5.0);  // the span [2 s, 5 s)
  ASSERT_TRUE(over.value.has_value());
  EXPECT_EQ(*over.value, 20.0 * kMs);  // the worst span's p99
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_FALSE(report.ok);
}

TEST(SloEval, OverTakesTheFewestWindowsLastingTheSpan) {
  // 3 s windows of 100 responses: "over 10s" checks 4 windows (12 s, 400 responses); 3 windows
  // (9 s) would never exceed 300.
  std::vector<WindowStats> w;
  for (uint64_t i = 0; i < 6; ++i) w.push_back(window(i * 3 * kS, 3 * kS, 100));
  const RunResult run = run_of(w);
  const SloReport report = evaluate_slos(slos({"requests<350 over 10s", "requests<=400 over 10s",
                                               "rps>=33 over 10s", "requests<150 over 500ms"}),
                                         run);
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_EQ(*report.checks[0].value, 400.0);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 12.0);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_DOUBLE_EQ(*report.checks[2].value, 400.0 / 12.0);
  EXPECT_TRUE(report.checks[2].ok);
  // A span shorter than one window checks each window alone.
  EXPECT_TRUE(report.checks[3].ok);
  EXPECT_EQ(*report.checks[3].value, 100.0);
}

TEST(SloEval, RunShorterThanTheSpanIsCheckedOnceWhole) {
  std::vector<WindowStats> w = steady(3);
  w[1] = window(kS, kS, 0, 100);
  const SloReport report =
      evaluate_slos(slos({"p(99)<10ms over 10s", "requests>=300 over 10s"}), run_of(w));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_EQ(*report.checks[0].value, 20.0 * kMs);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 3.0);
  EXPECT_NE(report.checks[0].detail.find("shorter"), std::string::npos);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_EQ(*report.checks[1].value, 300.0);
}

TEST(SloEval, SpansWithoutSamplesAreNotChecked) {
  std::vector<WindowStats> w = steady(6);
  w[2] = window(2 * kS, kS, 0);  // nothing completed
  w[3] = window(3 * kS, kS, 0);
  const SloReport report = evaluate_slos(
      slos({"p(99)<10ms over 1s", "error_rate<1% over 1s", "rps>=50 over 1s"}), run_of(w));
  EXPECT_TRUE(report.checks[0].ok);
  EXPECT_TRUE(report.checks[1].ok);
  // rps has a value in every span: 0 req/s fails.
  EXPECT_FALSE(report.checks[2].ok);
  EXPECT_EQ(*report.checks[2].value, 0.0);
  EXPECT_DOUBLE_EQ(*report.checks[2].first_breach_s, 3.0);

  // No span with samples at all: a missing metric.
  const std::vector<WindowStats> empty = {window(0, kS, 0), window(kS, kS, 0)};
  const SloReport none =
      evaluate_slos(slos({"p(99)<10ms over 1s", "p(99)?<10ms for 1s"}), run_of(empty));
  EXPECT_FALSE(none.checks[0].ok);
  EXPECT_FALSE(none.checks[0].value.has_value());
  EXPECT_TRUE(none.checks[1].ok);

  // No time series at all.
  RunResult bare = run_of(steady(2));
  bare.intervals.clear();
  const SloReport no_series =
      evaluate_slos(slos({"p(99)<10ms over 1s", "p(99)?<10ms over 1s", "p(99)<10ms"}), bare);
  EXPECT_FALSE(no_series.checks[0].ok);
  EXPECT_NE(no_series.checks[0].detail.find("time series"), std::string::npos);
  EXPECT_TRUE(no_series.checks[1].ok);
  EXPECT_TRUE(no_series.checks[2].ok);
  EXPECT_FALSE(no_series.checks[2].first_breach_s.has_value());
}

TEST(SloEval, WindowedErrorRateUsesEachSpansOutcomes) {
  std::vector<WindowStats> w = steady(4);
  w[2].errors[kTimeout] = 25;  // 25 of 125 outcomes
  w[3].status_errors = 1;      // 1 of 100
  const SloReport report =
      evaluate_slos(slos({"error_rate<10% over 1s", "error_rate<10% over 2s"}), run_of(w));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_DOUBLE_EQ(*report.checks[0].value, 0.2);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 3.0);
  // Spans of 2 windows: 25/225 at [1 s, 3 s), 26/225 at [2 s, 4 s): the worst.
  EXPECT_FALSE(report.checks[1].ok);
  EXPECT_DOUBLE_EQ(*report.checks[1].value, 26.0 / 225.0);
  EXPECT_DOUBLE_EQ(*report.checks[1].first_breach_s, 3.0);
}

// --- sustained breaches (for) ---

TEST(SloEval, ForCountsOnlyViolationsThatLast) {
  std::vector<WindowStats> w = steady(12);
  for (size_t i : {2, 3}) w[i] = window(i * kS, kS, 0, 100);     // 2 s: too short
  for (size_t i : {6, 7, 8}) w[i] = window(i * kS, kS, 0, 100);  // 3 s: a breach
  const SloReport report =
      evaluate_slos(slos({"p(99)<10ms for 3s", "p(99)<10ms for 4s", "p(99)<10ms"}), run_of(w));
  const SloCheck& three = report.checks[0];
  EXPECT_FALSE(three.ok);
  ASSERT_TRUE(three.first_breach_s.has_value());
  EXPECT_DOUBLE_EQ(*three.first_breach_s, 9.0);
  EXPECT_EQ(*three.value, 20.0 * kMs);
  const SloCheck& four = report.checks[1];
  EXPECT_TRUE(four.ok);
  EXPECT_FALSE(four.first_breach_s.has_value());
  EXPECT_NE(four.detail.find("longest violation 3.0 s"), std::string::npos) << four.detail;
  EXPECT_EQ(*four.value, 20.0 * kMs);  // the worst window, though no breach
}

TEST(SloEval, ForStretchEndsAtAWindowWithoutSamplesAndAtTheRunsEnd) {
  std::vector<WindowStats> w = steady(8);
  w[1] = window(kS, kS, 0, 50);
  w[2] = window(2 * kS, kS, 0);  // no samples: ends the stretch
  w[3] = window(3 * kS, kS, 0, 50);
  w[4] = window(4 * kS, kS, 0, 50);
  w[6] = window(6 * kS, kS, 0, 50);  // still violated when the run ends
  w[7] = window(7 * kS, kS, 0, 50);
  const SloReport report = evaluate_slos(slos({"p(99)<10ms for 3s"}), run_of(w));
  EXPECT_TRUE(report.checks[0].ok) << report.checks[0].detail;
  EXPECT_FALSE(report.checks[0].first_breach_s.has_value());
}

TEST(SloEval, OverAndForTogether) {
  // 2 s spans; one slow window makes the two spans holding it fail: 2 s of violation.
  std::vector<WindowStats> w = steady(10);
  w[4] = window(4 * kS, kS, 0, 100);
  const SloReport report =
      evaluate_slos(slos({"p(99)<10ms over 2s for 2s", "p(99)<10ms over 2s for 3s"}), run_of(w));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 6.0);  // spans ending at 5 s and 6 s
  EXPECT_TRUE(report.checks[1].ok);
}

TEST(SloEval, EqualityReportsTheFirstFailingSpan) {
  std::vector<WindowStats> w = steady(5);
  w[1].errors[kTimeout] = 2;
  w[3].errors[kTimeout] = 7;
  const SloReport report =
      evaluate_slos(slos({"timeouts==0 over 1s", "timeouts!=5 over 1s"}), run_of(w));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_EQ(*report.checks[0].value, 2.0);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 2.0);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_EQ(*report.checks[1].value, 0.0);  // no failing span: the last
}

// --- warm-up, and the clock of first_breach_s ---

TEST(SloEval, WarmupWindowsAreIgnoredAndTimesCountFromTheMeasuredStart) {
  std::vector<WindowStats> w;
  WindowStats warm = window(0, 2 * kS, 0, 100);  // slow, but warm-up
  warm.warmup = true;
  w.push_back(warm);
  for (uint64_t i = 0; i < 5; ++i) w.push_back(window(2 * kS + i * kS, kS, 100));
  w[3] = window(4 * kS, kS, 0, 100);  // the third measured window
  const SloReport report =
      evaluate_slos(slos({"p(99)<10ms for 1s", "max<1s", "requests<=500"}), run_of(w));
  EXPECT_FALSE(report.checks[0].ok);
  EXPECT_DOUBLE_EQ(*report.checks[0].first_breach_s, 3.0);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_TRUE(report.checks[2].ok);  // the warm-up's 100 are not counted
}

}  // namespace
}  // namespace hail::slo_test
