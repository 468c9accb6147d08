// Memory of a long time series: a day of one-second windows, each with its exact latency
// histogram, merged as a supervisor would (take_closed, window_stats) and measured with
// WindowStats::memory_bytes. The figures printed here are the ones time_series.h states.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "stats/time_series.h"

namespace hail {
namespace {

constexpr uint64_t kS = 1'000'000'000;
constexpr size_t kDayOfWindows = 86'400;

struct SeriesMemory {
  size_t total_bytes = 0;
  size_t windows = 0;
  double per_window() const {
    return static_cast<double>(total_bytes) / static_cast<double>(windows);
  }
};

// `windows` one-second windows of `rate` requests each, latencies lognormal around 1 ms (sigma 0.5:
// 95 % between 0.37 and 2.7 ms), drawn from a pool so that the test stays quick.
SeriesMemory measure(size_t windows, size_t rate) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> latency(std::log(1e6), 0.5);
  std::vector<uint64_t> pool(size_t{1} << 20);
  for (uint64_t& v : pool) v = static_cast<uint64_t>(latency(rng));
  WindowSeries series;
  series.begin(0, false);
  std::vector<WindowStats> merged;
  merged.reserve(windows);
  size_t next = 0;
  for (size_t w = 0; w < windows; ++w) {
    for (size_t i = 0; i < rate; ++i) series.on_complete(200, pool[next++ & (pool.size() - 1)]);
    series.close_window((w + 1) * kS, 50, false, w + 1 == windows);
    for (const WindowSeries::Window& closed : series.take_closed()) {
      merged.push_back(window_stats(closed, 0));
    }
  }
  SeriesMemory m;
  m.windows = merged.size();
  for (const WindowStats& w : merged) m.total_bytes += w.memory_bytes();
  return m;
}

TEST(WindowMemory, ADayOfOneSecondWindowsAtAThousandRequestsPerSecond) {
  const SeriesMemory m = measure(kDayOfWindows, 1'000);
  ASSERT_EQ(m.windows, kDayOfWindows);
  std::printf("86,400 windows at 1,000 req/s: %.0f bytes per window, %.1f MiB in all\n",
              m.per_window(), static_cast<double>(m.total_bytes) / (1 << 20));
  EXPECT_LT(m.per_window(), 2'000);
  EXPECT_LT(m.total_bytes, size_t{170} << 20);
}

TEST(WindowMemory, BusierWindowsAreBoundedByTheSlotsTheirLatenciesSpan) {
  // Past a few thousand requests per window most slots between the extremes are taken: the
  // payload grows with the latency spread, not with the rate.
  const SeriesMemory busy = measure(600, 20'000);
  const SeriesMemory busier = measure(120, 100'000);
  std::printf("20,000 req/s: %.0f bytes per window; 100,000 req/s: %.0f\n", busy.per_window(),
              busier.per_window());
  EXPECT_LT(busy.per_window(), 5'000);
  EXPECT_LT(busier.per_window(), 6'000);
}

}  // namespace
}  // namespace hail
