#include <gtest/gtest.h>

#include "stats/time_series.h"

namespace hail {
namespace {

constexpr uint64_t kS = 1'000'000'000;

TEST(IntervalBoundary, WarmupIntervalsThenForcedBoundaryAtMeasureStart) {
  // Load starts at 100 s, warm-up 2.5 s, 1 s intervals.
  const uint64_t start = 100 * kS, measure = start + 2500'000'000, iv = kS;
  EXPECT_EQ(next_interval_boundary(start, start, measure, iv), start + kS);
  EXPECT_EQ(next_interval_boundary(start + kS - 1, start, measure, iv), start + kS);
  EXPECT_EQ(next_interval_boundary(start + kS, start, measure, iv), start + 2 * kS);
  EXPECT_EQ(next_interval_boundary(start + 2 * kS, start, measure, iv), measure);
  EXPECT_EQ(next_interval_boundary(measure, start, measure, iv), measure + kS);
  EXPECT_EQ(next_interval_boundary(measure + 5 * kS + 1, start, measure, iv), measure + 6 * kS);
}

TEST(IntervalBoundary, NoWarmupAndNoInterval) {
  EXPECT_EQ(next_interval_boundary(0, 0, 0, 250), 250u);
  EXPECT_EQ(next_interval_boundary(249, 0, 0, 250), 250u);
  EXPECT_EQ(next_interval_boundary(250, 0, 0, 250), 500u);
  EXPECT_EQ(next_interval_boundary(7, 0, 0, 0), UINT64_MAX);
}

TEST(WindowSeries, ClosesWindowsWithCountsAndCompactHistogram) {
  WindowSeries s;
  s.begin(1000, true);
  s.on_complete(200, 5000);
  s.on_complete(500, 7000);
  s.on_error(ErrorClass::kTimeout);
  s.close_window(2000, 3, false, false);
  s.on_complete(204, 100);
  s.close_window(3000, 4, false, true);
  EXPECT_FALSE(s.active());
  ASSERT_EQ(s.windows().size(), 2u);
  const auto& w0 = s.windows()[0];
  EXPECT_EQ(w0.start_ns, 1000u);
  EXPECT_EQ(w0.end_ns, 2000u);
  EXPECT_TRUE(w0.warmup);
  EXPECT_EQ(w0.completed, 2u);
  EXPECT_EQ(w0.status_errors, 1u);
  EXPECT_EQ(w0.errors[static_cast<size_t>(ErrorClass::kTimeout)], 1u);
  EXPECT_EQ(w0.open_connections, 3u);
  EXPECT_EQ(w0.max_ns, 7000u);
  ASSERT_EQ(w0.latency.size(), 2u);
  const auto& w1 = s.windows()[1];
  EXPECT_FALSE(w1.warmup);
  EXPECT_EQ(w1.start_ns, 2000u);
  EXPECT_EQ(w1.completed, 1u);
  EXPECT_EQ(w1.max_ns, 100u);
  EXPECT_EQ(w1.errors[static_cast<size_t>(ErrorClass::kTimeout)], 0u);
}

TEST(MergeWindows, AddsByIndexAndTakesPercentilesOfTheUnion) {
  WindowSeries a, b;
  a.begin(10 * kS, false);
  b.begin(10 * kS, false);
  for (uint64_t i = 1; i <= 90; ++i) a.on_complete(200, i * 1000);    // 1..90 us
  for (uint64_t i = 91; i <= 100; ++i) b.on_complete(200, i * 1000);  // 91..100 us
  b.on_error(ErrorClass::kRead);
  a.close_window(11 * kS, 5, false, false);
  b.close_window(11 * kS + 7, 6, false, false);
  a.on_complete(200, 42);
  a.close_window(12 * kS, 5, false, true);
  b.close_window(11 * kS + 9, 0, false, true);  // b stopped early: its second window is short
  auto m = merge_windows({&a, &b}, 10 * kS);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].start_ns, 0u);
  EXPECT_EQ(m[0].end_ns, kS + 7);
  EXPECT_EQ(m[0].completed, 100u);
  EXPECT_EQ(m[0].errors[static_cast<size_t>(ErrorClass::kRead)], 1u);
  EXPECT_EQ(m[0].error_total(), 1u);
  EXPECT_EQ(m[0].open_connections, 11u);
  // 50 us: histogram slot 50,015, kept with 8 significant bits: the top of [49,920, 50,175].
  EXPECT_EQ(m[0].p50_ns, 50'175u);
  EXPECT_EQ(m[0].p90_ns, 90'111u);
  EXPECT_EQ(m[0].max_ns, 100'000u);
  EXPECT_EQ(m[1].completed, 1u);
  EXPECT_EQ(m[1].p99_ns, 42u);
  EXPECT_EQ(m[1].end_ns, 2 * kS);
}

TEST(WindowSeries, QuantizeKeepsEightSignificantBitsAndOrder) {
  uint32_t last_key = 0;
  for (uint64_t v = 0; v < (uint64_t{1} << 40); v = v < 1000 ? v + 1 : v + v / 97 + 1) {
    const uint32_t key = WindowSeries::quantize(v);
    const uint64_t back = WindowSeries::dequantize(key);
    ASSERT_GE(back, v);                                         // never reads low
    ASSERT_LE(static_cast<double>(back - v), v / 128.0 + 1.0);  // within 1/128
    ASSERT_GE(key, last_key);                                   // order kept
    last_key = key;
    if (v < 256) {
      ASSERT_EQ(back, v);  // exact below 256 ns
    }
  }
}

TEST(MergeWindows, EmptyWindowHasZeroPercentiles) {
  WindowSeries a;
  a.begin(0, false);
  a.close_window(kS, 0, false, true);
  auto m = merge_windows({&a}, 0);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].p99_ns, 0u);
  EXPECT_EQ(m[0].max_ns, 0u);
  EXPECT_DOUBLE_EQ(m[0].requests_per_s(), 0.0);
}

}  // namespace
}  // namespace hail
