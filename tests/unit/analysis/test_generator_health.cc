#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/generator_health.h"

namespace hail {
namespace {

constexpr uint64_t kS = 1'000'000'000;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;

const HealthCheck& check(const GeneratorHealth& h, const std::string& name) {
  for (const HealthCheck& c : h.checks) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no check " << name;
  static const HealthCheck kNone;
  return kNone;
}

bool mentions(const HealthCheck& c, const std::string& text) {
  return c.explanation.find(text) != std::string::npos;
}

// An open-loop run that kept its plan: `seconds` one-second windows at `rate`/s, every request
// answered, latency 5 ms, lag 100 us.
RunResult healthy_open_loop(double rate = 1000, uint64_t seconds = 10) {
  RunResult run;
  run.rate_target_per_s = rate;
  run.duration_ns = seconds * kS;
  run.max_worker_cpu_utilization = 0.4;
  const auto per_window = static_cast<uint64_t>(rate);
  for (uint64_t i = 0; i < seconds; ++i) {
    WindowStats w;
    w.start_ns = i * kS;
    w.end_ns = (i + 1) * kS;
    w.completed = per_window;
    w.target_start = w.target_end = rate;
    w.sources = 1;
    run.intervals.push_back(w);
  }
  run.counters.completed = run.counters.attempted = per_window * seconds;
  run.latency.record_n(5 * kMs, run.counters.completed);
  run.service_time.record_n(5 * kMs - 100 * kUs, run.counters.completed);
  run.lag.record_n(100 * kUs, run.counters.completed);
  return run;
}

TEST(GeneratorHealth, ChecksInOrder) {
  const GeneratorHealth h = check_generator_health(healthy_open_loop());
  ASSERT_EQ(h.checks.size(), 4u);
  EXPECT_EQ(h.checks[0].name, "cpu");
  EXPECT_EQ(h.checks[1].name, "lag");
  EXPECT_EQ(h.checks[2].name, "rate");
  EXPECT_EQ(h.checks[3].name, "backlog");
}

TEST(GeneratorHealth, HealthyOpenLoopRunPassesEverything) {
  const GeneratorHealth h = check_generator_health(healthy_open_loop());
  EXPECT_FALSE(h.limited_by_hail);
  for (const HealthCheck& c : h.checks) {
    EXPECT_TRUE(c.applicable) << c.name;
    EXPECT_TRUE(c.ok) << c.name << ": " << c.explanation;
    EXPECT_FALSE(c.explanation.empty()) << c.name;
  }
  EXPECT_DOUBLE_EQ(check(h, "cpu").value, 0.4);
  EXPECT_DOUBLE_EQ(check(h, "cpu").limit, kHealthBusyCpuShare);
  EXPECT_DOUBLE_EQ(check(h, "rate").value, 1.0);
  EXPECT_DOUBLE_EQ(check(h, "rate").limit, kHealthRateShare);
  EXPECT_DOUBLE_EQ(check(h, "backlog").value, 0);
  // The lag limit: the larger of 1 ms and a tenth of the latency p99 (5 ms).
  EXPECT_DOUBLE_EQ(check(h, "lag").limit, 1e6);
}

TEST(GeneratorHealth, ClosedLoopHasOnlyTheCpuCheck) {
  RunResult run;
  run.duration_ns = 10 * kS;
  run.counters.completed = run.counters.attempted = 5000;
  run.latency.record_n(2 * kMs, 5000);
  run.max_worker_cpu_utilization = 0.5;
  const GeneratorHealth h = check_generator_health(run);
  ASSERT_EQ(h.checks.size(), 4u);
  EXPECT_TRUE(check(h, "cpu").applicable);
  EXPECT_TRUE(check(h, "cpu").ok);
  for (const char* name : {"lag", "rate", "backlog"}) {
    EXPECT_FALSE(check(h, name).applicable) << name;
    EXPECT_TRUE(check(h, name).ok) << name;
    EXPECT_TRUE(mentions(check(h, name), "closed loop")) << check(h, name).explanation;
  }
  EXPECT_FALSE(h.limited_by_hail);

  // A saturated worker in closed loop limits the load itself.
  run.max_worker_cpu_utilization = 0.97;
  const GeneratorHealth busy = check_generator_health(run);
  EXPECT_FALSE(check(busy, "cpu").ok);
  EXPECT_TRUE(mentions(check(busy, "cpu"), "97.0%")) << check(busy, "cpu").explanation;
  EXPECT_TRUE(busy.limited_by_hail);
}

TEST(GeneratorHealth, CpuSaturationThreshold) {
  RunResult run = healthy_open_loop();
  run.max_worker_cpu_utilization = 0.899;
  EXPECT_TRUE(check(check_generator_health(run), "cpu").ok);
  run.max_worker_cpu_utilization = 0.90;
  const GeneratorHealth h = check_generator_health(run);
  EXPECT_FALSE(check(h, "cpu").ok);
  // The plan was kept with a low lag: the busy thread did not limit this run.
  EXPECT_FALSE(h.limited_by_hail);

  // Busy and the rate missed: hail's limit.
  run.counters.completed = run.counters.attempted = 9000;
  EXPECT_TRUE(check_generator_health(run).limited_by_hail);
}

TEST(GeneratorHealth, LagHighRelativeToLatencyIsHails) {
  RunResult run = healthy_open_loop();
  run.lag.reset();
  run.lag.record_n(3 * kMs, run.counters.completed);  // 60% of the 5 ms latency p99
  const GeneratorHealth h = check_generator_health(run);
  const HealthCheck& lag = check(h, "lag");
  EXPECT_FALSE(lag.ok);
  EXPECT_GE(lag.value, 3e6);
  EXPECT_TRUE(mentions(lag, "hail sent late")) << lag.explanation;
  EXPECT_TRUE(h.limited_by_hail);
}

TEST(GeneratorHealth, LagLimitIsATenthOfLatencyButAtLeastAMillisecond) {
  // Latency p99 50 ms: the limit is 5 ms.
  RunResult run = healthy_open_loop();
  run.latency.reset();
  run.latency.record_n(50 * kMs, run.counters.completed);
  run.lag.reset();
  run.lag.record_n(4 * kMs, run.counters.completed);
  GeneratorHealth h = check_generator_health(run);
  EXPECT_TRUE(check(h, "lag").ok) << check(h, "lag").explanation;
  EXPECT_NEAR(check(h, "lag").limit, 5e6, 5e6 / 1000);
  run.lag.reset();
  run.lag.record_n(6 * kMs, run.counters.completed);
  EXPECT_FALSE(check(check_generator_health(run), "lag").ok);

  // Latency p99 2 ms: a 0.8 ms lag is 40% of it, but under the 1 ms floor (timer jitter).
  run.latency.reset();
  run.latency.record_n(2 * kMs, run.counters.completed);
  run.lag.reset();
  run.lag.record_n(800 * kUs, run.counters.completed);
  h = check_generator_health(run);
  EXPECT_TRUE(check(h, "lag").ok) << check(h, "lag").explanation;
  EXPECT_DOUBLE_EQ(check(h, "lag").limit, static_cast<double>(kHealthLagFloorNs));
  EXPECT_FALSE(h.limited_by_hail);
}

TEST(GeneratorHealth, LagFromRequestsWaitingForAConnectionIsNotHails) {
  RunResult run = healthy_open_loop();
  run.lag.reset();
  run.lag.record_n(30 * kMs, run.counters.completed);
  run.backlog = 200;  // planned requests still waiting at the end
  const GeneratorHealth h = check_generator_health(run);
  EXPECT_FALSE(check(h, "backlog").ok);
  const HealthCheck& lag = check(h, "lag");
  EXPECT_TRUE(lag.ok);
  EXPECT_TRUE(mentions(lag, "waited for a connection")) << lag.explanation;
  EXPECT_FALSE(h.limited_by_hail);
}

TEST(GeneratorHealth, RateShortfallWithHailSendingTooFewIsHails) {
  RunResult run = healthy_open_loop();
  run.counters.completed = run.counters.attempted = 9000;  // 90% sent, all answered
  const GeneratorHealth h = check_generator_health(run);
  const HealthCheck& rate = check(h, "rate");
  EXPECT_FALSE(rate.ok);
  EXPECT_DOUBLE_EQ(rate.value, 0.9);
  EXPECT_TRUE(mentions(rate, "hail was the limit")) << rate.explanation;
  EXPECT_TRUE(h.limited_by_hail);
}

TEST(GeneratorHealth, RateShortfallWithThePlanSentIsTheServers) {
  RunResult run = healthy_open_loop();
  run.counters.completed = 9000;
  run.counters.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1000;  // sent, never answered
  const GeneratorHealth h = check_generator_health(run);
  const HealthCheck& rate = check(h, "rate");
  EXPECT_FALSE(rate.ok);
  EXPECT_TRUE(mentions(rate, "the server answered fewer")) << rate.explanation;
  EXPECT_FALSE(h.limited_by_hail);
}

TEST(GeneratorHealth, RateShortfallWithRequestsWaitingIsTheServers) {
  RunResult run = healthy_open_loop();
  run.counters.completed = run.counters.attempted = 8000;  // hail could not send: no connection
  run.backlog = 2000;
  const GeneratorHealth h = check_generator_health(run);
  const HealthCheck& rate = check(h, "rate");
  EXPECT_FALSE(rate.ok);
  EXPECT_TRUE(mentions(rate, "server (or --max-connections) was the limit")) << rate.explanation;
  EXPECT_FALSE(h.limited_by_hail);
}

TEST(GeneratorHealth, RateAtTheBoundary) {
  RunResult run = healthy_open_loop();
  run.counters.completed = run.counters.attempted = 9900;  // exactly 99%
  EXPECT_TRUE(check(check_generator_health(run), "rate").ok);
  run.counters.completed = run.counters.attempted = 9899;
  EXPECT_FALSE(check(check_generator_health(run), "rate").ok);
}

TEST(GeneratorHealth, BacklogLeftWaitingAtTheEnd) {
  RunResult run = healthy_open_loop();  // limit: 1% of 1000/s = 10
  run.backlog = 10;
  EXPECT_TRUE(check(check_generator_health(run), "backlog").ok);
  run.backlog = 11;
  const HealthCheck b = check(check_generator_health(run), "backlog");
  EXPECT_FALSE(b.ok);
  EXPECT_DOUBLE_EQ(b.value, 11);
  EXPECT_DOUBLE_EQ(b.limit, 10);
  EXPECT_TRUE(mentions(b, "11 still waiting")) << b.explanation;

  // At a low rate the limit is one request.
  RunResult slow = healthy_open_loop(20);
  slow.backlog = 1;
  EXPECT_TRUE(check(check_generator_health(slow), "backlog").ok);
  slow.backlog = 2;
  EXPECT_FALSE(check(check_generator_health(slow), "backlog").ok);
}

TEST(GeneratorHealth, BacklogGrowingOverTheSecondHalf) {
  RunResult run = healthy_open_loop();
  for (size_t i = 5; i < 10; ++i) run.intervals[i].completed = 900;  // 100/s fall behind
  run.counters.completed = run.counters.attempted = 9500;
  run.counters.in_flight = 0;
  double gained = 0, planned = 0;
  ASSERT_TRUE(outstanding_growth(run, gained, planned));
  EXPECT_DOUBLE_EQ(planned, 5000);
  EXPECT_DOUBLE_EQ(gained, 500);
  const GeneratorHealth h = check_generator_health(run);
  const HealthCheck& b = check(h, "backlog");
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(mentions(b, "grew by 500")) << b.explanation;
  // The shortfall is the server's, not hail's.
  EXPECT_TRUE(mentions(check(h, "rate"), "server")) << check(h, "rate").explanation;
  EXPECT_FALSE(h.limited_by_hail);
}

TEST(GeneratorHealth, BacklogNoiseWithinPoissonIsNotGrowth) {
  // 3 standard deviations of 5000 planned arrivals is 212: a shortfall of 200 is noise.
  RunResult run = healthy_open_loop();
  for (size_t i = 5; i < 10; ++i) run.intervals[i].completed = 960;
  double gained = 0, planned = 0;
  ASSERT_TRUE(outstanding_growth(run, gained, planned));
  EXPECT_DOUBLE_EQ(gained, 200);
  EXPECT_TRUE(check(check_generator_health(run), "backlog").ok);
  // Catching up (more outcomes than planned) is negative growth.
  for (size_t i = 5; i < 10; ++i) run.intervals[i].completed = 1100;
  ASSERT_TRUE(outstanding_growth(run, gained, planned));
  EXPECT_DOUBLE_EQ(gained, -500);
  EXPECT_TRUE(check(check_generator_health(run), "backlog").ok);
}

TEST(GeneratorHealth, OutstandingGrowthCountsRequestOutcomesOnly) {
  // Request errors are outcomes; connect errors consume no request and are not.
  RunResult run = healthy_open_loop();
  for (size_t i = 5; i < 10; ++i) {
    run.intervals[i].completed = 800;
    run.intervals[i].errors[static_cast<size_t>(ErrorClass::kTimeout)] = 200;
    run.intervals[i].errors[static_cast<size_t>(ErrorClass::kConnect)] = 300;
  }
  double gained = 0, planned = 0;
  ASSERT_TRUE(outstanding_growth(run, gained, planned));
  EXPECT_DOUBLE_EQ(gained, 0);
}

TEST(GeneratorHealth, OutstandingGrowthFollowsARampAndSkipsWarmup) {
  // Targets at the windows' ends 100, 200, ..., 800: the plan of window i is the trapezoid
  // between its start and end targets.
  RunResult run = healthy_open_loop(100, 8);
  WindowStats warm;
  warm.start_ns = 0;
  warm.end_ns = 0;  // a zero-length window is skipped too
  run.intervals.insert(run.intervals.begin(), warm);
  WindowStats warmup = run.intervals[1];
  warmup.warmup = true;
  warmup.target_end = 1e6;  // ignored
  run.intervals.insert(run.intervals.begin(), warmup);
  for (size_t i = 0; i < 8; ++i) {
    WindowStats& w = run.intervals[2 + i];
    w.target_end = 100.0 * static_cast<double>(i + 1);
    w.completed = 0;
  }
  double gained = 0, planned = 0;
  ASSERT_TRUE(outstanding_growth(run, gained, planned));
  // Windows 4..7: (400+500)/2 + (500+600)/2 + (600+700)/2 + (700+800)/2
  EXPECT_DOUBLE_EQ(planned, 450 + 550 + 650 + 750);
  EXPECT_DOUBLE_EQ(gained, planned);
}

TEST(GeneratorHealth, OutstandingGrowthNeedsFourWindowsWithATarget) {
  double gained = 1, planned = 1;
  EXPECT_FALSE(outstanding_growth(healthy_open_loop(1000, 3), gained, planned));
  EXPECT_TRUE(outstanding_growth(healthy_open_loop(1000, 4), gained, planned));
  RunResult no_target = healthy_open_loop(1000, 6);
  for (WindowStats& w : no_target.intervals) w.target_start = w.target_end = 0;
  EXPECT_FALSE(outstanding_growth(no_target, gained, planned));
  // Without enough windows the backlog check still judges what was left waiting.
  RunResult short_run = healthy_open_loop(1000, 3);
  short_run.backlog = 100;
  EXPECT_FALSE(check(check_generator_health(short_run), "backlog").ok);
}

TEST(GeneratorHealth, NothingSentOrMeasured) {
  RunResult run = healthy_open_loop();
  run.lag.reset();
  EXPECT_FALSE(check(check_generator_health(run), "lag").applicable);
  run.duration_ns = 0;
  const HealthCheck rate = check(check_generator_health(run), "rate");
  EXPECT_FALSE(rate.applicable);
  EXPECT_TRUE(rate.ok);
}

}  // namespace
}  // namespace hail
