// RateSchedule and ConnectionTargetSchedule: exact planned times (no drift, exact ramps), worker
// slices, counts, Poisson statistics with seeded generators. Time is passed in; no clock is read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/clock.h"
#include "load/schedule.h"

namespace hail {
namespace {

constexpr uint64_t kSec = kNsPerSec;
constexpr uint64_t kT0 = 123'456'789'000;  // an arbitrary monotonic start

std::vector<uint64_t> drain(RateSchedule& s, size_t max = 10'000'000) {
  std::vector<uint64_t> times;
  while (s.next_planned_ns() != kNoMoreRequests && times.size() < max) {
    times.push_back(s.next_planned_ns());
    s.advance();
  }
  return times;
}

StageCurve curve_of(const char* text) {
  auto stages = parse_stages(text);
  EXPECT_TRUE(stages.ok()) << stages.error().message;
  return StageCurve(stages.ok() ? stages.value() : std::vector<Stage>{});
}

TEST(RateSchedule, FixedRateHasNoDriftOverAMillionRequests) {
  RateSchedule s(1000, kT0, {});
  for (uint64_t k = 0; k <= 1'000'000; ++k) {
    ASSERT_EQ(s.next_planned_ns(), kT0 + k * kNsPerMs) << k;
    s.advance();
  }
  EXPECT_EQ(s.planned_count(), 1'000'001u);
}

TEST(RateSchedule, FractionalRatesRoundEachTimeOnce) {
  for (double rate : {3.0, 7.0, 1e6 / 3}) {
    SCOPED_TRACE(rate);
    RateSchedule s(rate, kT0, {});
    for (uint64_t k = 0; k < 200'000; ++k) {
      // Exact rational k * 1e9 / rate rounded to nearest, from integers.
      uint64_t expected = 0;
      if (rate == 3.0) expected = (k * kSec + 1) / 3;
      if (rate == 7.0) expected = (k * kSec + 3) / 7;
      if (rate == 1e6 / 3) expected = k * 3000;
      ASSERT_EQ(s.next_planned_ns() - kT0, expected) << k;
      s.advance();
    }
  }
}

TEST(RateSchedule, FarIntoARunStaysExact) {
  // Skip ahead cheaply by slicing: worker 0 of 1000 sees k = 0, 1000, 2000, ... of 7/s.
  RateSchedule s(7, 0, {Arrival::kFixed, {0, 1000}, kUnlimitedCount});
  for (uint64_t j = 0; j < 100'000; ++j) {  // k up to 1e8: a 165-day run
    const uint64_t k = j * 1000;
    ASSERT_EQ(s.next_planned_ns(), (k * kSec + 3) / 7) << k;
    s.advance();
  }
}

TEST(RateSchedule, WorkerSlicesInterleaveToTheSinglePlan) {
  RateSchedule one(1001, kT0, {});
  const std::vector<uint64_t> single = drain(one, 50'000);
  RateSchedule w0(1001, kT0, {Arrival::kFixed, {0, 2}, kUnlimitedCount});
  RateSchedule w1(1001, kT0, {Arrival::kFixed, {1, 2}, kUnlimitedCount});
  std::vector<uint64_t> both = drain(w0, 25'000);
  const std::vector<uint64_t> second = drain(w1, 25'000);
  both.insert(both.end(), second.begin(), second.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(both, single);
}

TEST(RateSchedule, ExactCountSplitsAcrossWorkers) {
  RateSchedule alone(100, kT0, {Arrival::kFixed, {}, 250});
  const std::vector<uint64_t> all = drain(alone);
  ASSERT_EQ(all.size(), 250u);
  EXPECT_EQ(all.back(), kT0 + 249 * 10 * kNsPerMs);
  EXPECT_EQ(alone.next_planned_ns(), kNoMoreRequests);
  alone.advance();  // no-op once exhausted
  EXPECT_EQ(alone.planned_count(), 250u);

  std::vector<uint64_t> merged;
  const uint64_t expected_share[] = {84, 83, 83};
  for (uint64_t i = 0; i < 3; ++i) {
    RateSchedule w(100, kT0, {Arrival::kFixed, {i, 3}, 250});
    EXPECT_EQ(w.count_limit(), expected_share[i]);
    const std::vector<uint64_t> part = drain(w);
    EXPECT_EQ(part.size(), expected_share[i]);
    merged.insert(merged.end(), part.begin(), part.end());
  }
  std::sort(merged.begin(), merged.end());
  EXPECT_EQ(merged, all);
}

TEST(RateSchedule, ZeroRatePlansNothing) {
  RateSchedule s(0, kT0, {});
  EXPECT_EQ(s.next_planned_ns(), kNoMoreRequests);
  RateSchedule count_zero(100, kT0, {Arrival::kFixed, {}, 0});
  EXPECT_EQ(count_zero.next_planned_ns(), kNoMoreRequests);
}

TEST(RateSchedule, TimesPastTheClockRangeEndThePlan) {
  RateSchedule s(1e6, UINT64_MAX - 2500, {});
  EXPECT_EQ(s.next_planned_ns(), UINT64_MAX - 2500);
  s.advance();
  EXPECT_EQ(s.next_planned_ns(), UINT64_MAX - 1500);
  s.advance();
  EXPECT_EQ(s.next_planned_ns(), UINT64_MAX - 500);
  s.advance();
  EXPECT_EQ(s.next_planned_ns(), kNoMoreRequests);
}

TEST(RateSchedule, PoissonExactCountSplitsAcrossWorkers) {
  size_t total = 0;
  for (uint64_t i = 0; i < 4; ++i) {
    RateSchedule w(100, 0, {Arrival::kPoisson, {i, 4}, 10}, std::mt19937_64(i));
    total += drain(w).size();
  }
  EXPECT_EQ(total, 10u);
}

TEST(RateSchedule, ConstantCurveMatchesConstantRate) {
  RateSchedule by_rate(250, kT0, {});
  RateSchedule by_curve(StageCurve({Stage{10 * kSec, 250, true}}), kT0, {});
  const std::vector<uint64_t> curve_times = drain(by_curve);
  ASSERT_EQ(curve_times.size(), 2500u);  // [0, 10 s): the request at exactly 10 s is excluded
  EXPECT_EQ(curve_times, drain(by_rate, 2500));
}

TEST(RateSchedule, RampFromZeroMatchesClosedForm) {
  // 0 -> 100/s over 10 s: C(t) = 5 t^2, 500 requests, request k at sqrt(k / 5) s.
  RateSchedule s(curve_of("10s:100"), kT0, {});
  const std::vector<uint64_t> times = drain(s);
  ASSERT_EQ(times.size(), 500u);
  EXPECT_EQ(times[0], kT0);
  EXPECT_EQ(times[5], kT0 + 1 * kSec);
  EXPECT_EQ(times[20], kT0 + 2 * kSec);
  EXPECT_EQ(times[125], kT0 + 5 * kSec);
  for (uint64_t k : {1u, 2u, 3u, 77u, 333u, 499u}) {
    const double expected = std::sqrt(static_cast<double>(k) / 5) * 1e9;
    EXPECT_EQ(times[k], kT0 + static_cast<uint64_t>(std::llround(expected))) << k;
  }
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
}

TEST(RateSchedule, HoldsDropsToZeroAndBack) {
  // 10/s for 2 s, ramp to 0 over 2 s, nothing for 3 s, jump to 10/s and hold 1 s.
  const StageCurve curve({Stage{2 * kSec, 10, true}, Stage{2 * kSec, 0, false},
                          Stage{3 * kSec, 0, true}, Stage{1 * kSec, 10, true}});
  RateSchedule s(curve, 0, {});
  const std::vector<uint64_t> times = drain(s);
  // 20 + 10 (triangle) + 0 + 10.
  ASSERT_EQ(times.size(), 40u);
  for (uint64_t k = 0; k < 20; ++k) EXPECT_EQ(times[k], k * 100 * kNsPerMs);
  // Falling ramp from 2 s: C = 20 + 10u - 2.5u^2; request 20 + j at u = 2 - sqrt(4 - 0.4 j).
  for (uint64_t j = 0; j < 10; ++j) {
    const double u = 2 - std::sqrt(4 - 0.4 * static_cast<double>(j));
    EXPECT_NEAR(static_cast<double>(times[20 + j]), 2e9 + u * 1e9, 1.0) << j;
  }
  // Nothing in the zero stretch: request 30 waits for its end.
  for (uint64_t k = 30; k < 40; ++k) EXPECT_EQ(times[k], 7 * kSec + (k - 30) * 100 * kNsPerMs);
}

TEST(RateSchedule, LadderFromParseToTimes) {
  auto spec = parse_ladder("10:10:30");
  ASSERT_TRUE(spec.ok());
  auto stages = ladder_stages(*spec, kSec);
  ASSERT_TRUE(stages.ok());
  RateSchedule s(StageCurve(*stages), kT0, {});
  const std::vector<uint64_t> times = drain(s);
  ASSERT_EQ(times.size(), 60u);  // 10 + 20 + 30
  EXPECT_EQ(times[9], kT0 + 900 * kNsPerMs);
  EXPECT_EQ(times[10], kT0 + 1 * kSec);
  EXPECT_EQ(times[11], kT0 + 1 * kSec + 50 * kNsPerMs);
  EXPECT_EQ(times[30], kT0 + 2 * kSec);
  EXPECT_EQ(times[59], kT0 + 2 * kSec + (29 * kSec + 15) / 30);  // rounded to nearest
}

TEST(RateSchedule, RepeatedBursts) {
  auto once = parse_stages("0s:50,1s:50,1s:0");  // jump to 50/s for 1 s, then nothing for 1 s
  ASSERT_TRUE(once.ok());
  auto bursts = repeat_stages(*once, 3);
  ASSERT_TRUE(bursts.ok());
  RateSchedule s(StageCurve(*bursts), 0, {});
  const std::vector<uint64_t> times = drain(s);
  ASSERT_EQ(times.size(), 3u * (50 + 25));  // hold 50 + ramp down 25, each burst
  EXPECT_EQ(times[0], 0u);
  EXPECT_EQ(times[75], 2 * kSec);
  EXPECT_EQ(times[150], 4 * kSec);
  EXPECT_EQ(times[150 + 49], 4 * kSec + 49 * 20 * kNsPerMs);
}

TEST(RateSchedule, CurveSlicesInterleaveToo) {
  RateSchedule one(curve_of("3s:333,4s:17,2s:0"), kT0, {});
  const std::vector<uint64_t> single = drain(one);
  std::vector<uint64_t> merged;
  for (uint64_t i = 0; i < 3; ++i) {
    RateSchedule w(curve_of("3s:333,4s:17,2s:0"), kT0, {Arrival::kFixed, {i, 3}, kUnlimitedCount});
    const std::vector<uint64_t> part = drain(w);
    merged.insert(merged.end(), part.begin(), part.end());
  }
  std::sort(merged.begin(), merged.end());
  EXPECT_EQ(merged, single);
}

TEST(RateSchedule, CurveWithCountStopsAtCount) {
  RateSchedule s(curve_of("10s:100"), 0, {Arrival::kFixed, {}, 20});
  const std::vector<uint64_t> times = drain(s);
  ASSERT_EQ(times.size(), 20u);
  EXPECT_EQ(times[19], static_cast<uint64_t>(std::llround(std::sqrt(19.0 / 5) * 1e9)));
}

TEST(RateSchedule, PoissonIsDeterministicForASeed) {
  const RateScheduleOptions poisson{Arrival::kPoisson, {}, kUnlimitedCount};
  RateSchedule a(500, kT0, poisson, std::mt19937_64(42));
  RateSchedule b(500, kT0, poisson, std::mt19937_64(42));
  RateSchedule c(500, kT0, poisson, std::mt19937_64(43));
  const std::vector<uint64_t> ta = drain(a, 1000);
  EXPECT_EQ(ta, drain(b, 1000));
  EXPECT_NE(ta, drain(c, 1000));
  EXPECT_GT(ta[0], kT0);  // the first arrival is one gap after the start
  EXPECT_TRUE(std::is_sorted(ta.begin(), ta.end()));
}

TEST(RateSchedule, PoissonMeanGapWithinOnePercent) {
  RateSchedule s(1000, 0, {Arrival::kPoisson, {}, 1'000'000}, std::mt19937_64(7));
  const std::vector<uint64_t> times = drain(s);
  ASSERT_EQ(times.size(), 1'000'000u);
  const double mean_gap_ns = static_cast<double>(times.back()) / 1e6;
  EXPECT_NEAR(mean_gap_ns, 1e6, 1e4);
  // Exponential gaps: the standard deviation equals the mean.
  double sum_sq = 0;
  uint64_t previous = 0;
  for (uint64_t t : times) {
    const double gap = static_cast<double>(t - previous) - mean_gap_ns;
    sum_sq += gap * gap;
    previous = t;
  }
  EXPECT_NEAR(std::sqrt(sum_sq / 1e6), 1e6, 2e4);
}

TEST(RateSchedule, PoissonCountInAWindowFollowsTheCurve) {
  // Ramp 0 -> 2000/s over 10 s, split over 4 workers: 10,000 expected, sd 100.
  size_t total = 0;
  size_t first_half = 0;
  for (uint64_t i = 0; i < 4; ++i) {
    RateSchedule w(curve_of("10s:2000"), 0, {Arrival::kPoisson, {i, 4}, kUnlimitedCount},
                   std::mt19937_64(100 + i));
    const std::vector<uint64_t> times = drain(w);
    total += times.size();
    first_half += static_cast<size_t>(
        std::count_if(times.begin(), times.end(), [](uint64_t t) { return t < 5 * kSec; }));
    ASSERT_TRUE(times.empty() || times.back() < 10 * kSec);
  }
  EXPECT_NEAR(static_cast<double>(total), 10000, 500);      // 5 sd
  EXPECT_NEAR(static_cast<double>(first_half), 2500, 250);  // C(5 s) = 2500, sd 50
}

TEST(RateSchedule, PoissonConstantWindowCount) {
  RateSchedule s(10000, 0, {Arrival::kPoisson, {}, kUnlimitedCount}, std::mt19937_64(1));
  size_t in_window = 0;
  while (s.next_planned_ns() < 10 * kSec) {
    ++in_window;
    s.advance();
  }
  EXPECT_NEAR(static_cast<double>(in_window), 100000, 1500);  // sd 316
}

TEST(ConnectionTargetSchedule, FloorsTheCurve) {
  ConnectionTargetSchedule s(curve_of("10s:10,5s:10,10s:0"), kT0);
  EXPECT_EQ(s.target_at(0), 0u);  // before start: the value at 0
  EXPECT_EQ(s.target_at(kT0), 0u);
  EXPECT_EQ(s.target_at(kT0 + kSec - 1), 0u);
  EXPECT_EQ(s.target_at(kT0 + kSec), 1u);
  EXPECT_EQ(s.target_at(kT0 + 3 * kSec + kSec / 2), 3u);
  EXPECT_EQ(s.target_at(kT0 + 12 * kSec), 10u);
  EXPECT_EQ(s.target_at(kT0 + 15 * kSec), 10u);
  EXPECT_EQ(s.target_at(kT0 + 15 * kSec + 1), 9u);  // drops as soon as it is below 10
  EXPECT_EQ(s.target_at(kT0 + 24 * kSec), 1u);
  EXPECT_EQ(s.target_at(kT0 + 25 * kSec), 0u);
  EXPECT_EQ(s.end_ns(), kT0 + 25 * kSec);
}

TEST(ConnectionTargetSchedule, NextChangeWalksEveryStep) {
  ConnectionTargetSchedule s(curve_of("10s:10,5s:10,10s:0"), kT0);
  std::vector<uint64_t> changes;
  std::vector<uint64_t> targets;
  for (uint64_t t = kT0; (t = s.next_change_ns(t)) != kNoMoreRequests;) {
    changes.push_back(t - kT0);
    targets.push_back(s.target_at(t));
    ASSERT_NE(s.target_at(t), s.target_at(t - 1));
    ASSERT_LT(changes.size(), 100u);
  }
  std::vector<uint64_t> expected_changes;
  std::vector<uint64_t> expected_targets;
  for (uint64_t c = 1; c <= 10; ++c) {
    expected_changes.push_back(c * kSec);
    expected_targets.push_back(c);
  }
  for (uint64_t c = 9;; --c) {  // below c + 1 one ns after the curve passes c + 1
    expected_changes.push_back(15 * kSec + (9 - c) * kSec + 1);
    expected_targets.push_back(c);
    if (c == 0) break;
  }
  EXPECT_EQ(changes, expected_changes);
  EXPECT_EQ(targets, expected_targets);
  EXPECT_EQ(s.next_change_ns(kT0 + 30 * kSec), kNoMoreRequests);
  EXPECT_EQ(s.next_change_ns(0), kT0 + kSec);  // before start
}

TEST(ConnectionTargetSchedule, LadderJumpsAtStepStarts) {
  auto stages = ladder_stages(4, 4, 12, 10 * kSec);
  ASSERT_TRUE(stages.ok());
  ConnectionTargetSchedule s(StageCurve(*stages), 0);
  EXPECT_EQ(s.target_at(0), 4u);
  EXPECT_EQ(s.next_change_ns(0), 10 * kSec);
  EXPECT_EQ(s.next_change_ns(10 * kSec), 20 * kSec);
  EXPECT_EQ(s.target_at(20 * kSec), 12u);
  EXPECT_EQ(s.next_change_ns(20 * kSec), kNoMoreRequests);  // stays 12 past the end
}

TEST(ConnectionTargetSchedule, FractionalTargetsAndFlatStretches) {
  ConnectionTargetSchedule s(curve_of("0s:2.5,10s:2.5,4s:4.5"), 0);
  EXPECT_EQ(s.target_at(0), 2u);
  EXPECT_EQ(s.next_change_ns(0), 11 * kSec);  // 2.5 + 0.5/s reaches 3 one second into the ramp
  EXPECT_EQ(s.next_change_ns(11 * kSec), 13 * kSec);
  EXPECT_EQ(s.next_change_ns(13 * kSec), kNoMoreRequests);
}

}  // namespace
}  // namespace hail
