#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "stats/time_series.h"

namespace hail {
namespace {

constexpr uint64_t kS = 1'000'000'000;

std::vector<std::pair<uint64_t, uint64_t>> slots_of(const Histogram& h) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  h.for_each_recorded([&](uint64_t value, uint64_t count) { out.emplace_back(value, count); });
  return out;
}

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
  ASSERT_EQ(slots_of(w0.latency.decode()).size(), 2u);
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
  // Exact: the top of the histogram slot of 50 us, [49,984, 50,015], and of 90 us.
  EXPECT_EQ(m[0].p50_ns, 50'015u);
  EXPECT_EQ(m[0].p90_ns, 90'047u);
  EXPECT_EQ(m[0].max_ns, 100'000u);
  EXPECT_EQ(m[1].completed, 1u);
  EXPECT_EQ(m[1].p99_ns, 42u);
  EXPECT_EQ(m[1].end_ns, 2 * kS);
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

// One window of a series that recorded `latencies_ns`, closed at end_ns.
WindowStats one_window(const std::vector<uint64_t>& latencies_ns, uint64_t start_ns,
                       uint64_t end_ns) {
  WindowSeries s;
  s.begin(start_ns, false);
  for (uint64_t v : latencies_ns) s.on_complete(200, v);
  s.close_window(end_ns, 1, false, true);
  return window_stats(s.windows()[0], 0);
}

std::vector<uint64_t> lognormal_ns(uint64_t seed, size_t n, double median_ns, double sigma) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(median_ns), sigma);
  std::vector<uint64_t> out(n);
  for (auto& v : out) v = static_cast<uint64_t>(dist(rng));
  return out;
}

TEST(MergeWindow, IsExactlyOneWindowThatRecordedBothSampleSets) {
  // Two workers (or hosts) with different latency mixes: 3,000 around 5 ms, 1,000 around 20 ms.
  // Averaging their percentiles would be wrong; the merged histogram is the union.
  const std::vector<uint64_t> fast = lognormal_ns(1, 3000, 5e6, 0.1);
  const std::vector<uint64_t> slow = lognormal_ns(2, 1000, 20e6, 0.1);
  std::vector<uint64_t> all = fast;
  all.insert(all.end(), slow.begin(), slow.end());
  WindowStats merged = one_window(fast, 0, kS);
  merge_window(merged, one_window(slow, 0, kS));
  const WindowStats single = one_window(all, 0, kS);
  EXPECT_EQ(merged.p50_ns, single.p50_ns);
  EXPECT_EQ(merged.p90_ns, single.p90_ns);
  EXPECT_EQ(merged.p99_ns, single.p99_ns);
  EXPECT_EQ(merged.max_ns, single.max_ns);
  EXPECT_EQ(slots_of(merged.latency.decode()), slots_of(single.latency.decode()));
  EXPECT_EQ(merged.latency.min(), single.latency.min());
  for (double p = 0; p <= 100; p += 0.5) {
    ASSERT_EQ(merged.latency.value_at_percentile(p), single.latency.value_at_percentile(p)) << p;
  }
  EXPECT_LT(merged.p50_ns, 6'000'000u);   // in the fast mix
  EXPECT_GT(merged.p90_ns, 15'000'000u);  // in the slow one
  // And the same through merge_windows, the end-of-run path.
  WindowSeries a, b;
  a.begin(0, false);
  b.begin(0, false);
  for (uint64_t v : fast) a.on_complete(200, v);
  for (uint64_t v : slow) b.on_complete(200, v);
  a.close_window(kS, 1, false, true);
  b.close_window(kS, 1, false, true);
  const auto m = merge_windows({&a, &b}, 0);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].p50_ns, single.p50_ns);
  EXPECT_EQ(m[0].p99_ns, single.p99_ns);
  EXPECT_EQ(m[0].sources, 2u);
}

TEST(MergeWindow, CombinesEveryField) {
  WindowStats a = one_window({1'000, 2'000}, 10, 20);
  a.warmup = true;
  a.status_errors = 1;
  a.errors[static_cast<size_t>(ErrorClass::kRead)] = 2;
  a.open_connections = 3;
  a.target_start = 4;
  a.target_end = 5;
  WindowStats b = one_window({3'000}, 5, 15);
  b.warmup = false;
  b.status_errors = 10;
  b.errors[static_cast<size_t>(ErrorClass::kRead)] = 20;
  b.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1;
  b.open_connections = 30;
  b.target_start = 40;
  b.target_end = 50;
  WindowStats into;
  merge_window(into, a);  // into an empty window: a copy
  EXPECT_EQ(into.start_ns, 10u);
  EXPECT_TRUE(into.warmup);
  EXPECT_EQ(into.sources, 1u);
  merge_window(into, b);
  EXPECT_EQ(into.start_ns, 5u);
  EXPECT_EQ(into.end_ns, 20u);
  EXPECT_FALSE(into.warmup);  // a warm-up window only when every part was
  EXPECT_EQ(into.completed, 3u);
  EXPECT_EQ(into.status_errors, 11u);
  EXPECT_EQ(into.errors[static_cast<size_t>(ErrorClass::kRead)], 22u);
  EXPECT_EQ(into.errors[static_cast<size_t>(ErrorClass::kTimeout)], 1u);
  EXPECT_EQ(into.open_connections, 33u);
  EXPECT_DOUBLE_EQ(into.target_start, 44);
  EXPECT_DOUBLE_EQ(into.target_end, 55);
  EXPECT_EQ(into.sources, 2u);
  EXPECT_EQ(into.latency.count(), 3u);
  EXPECT_EQ(into.max_ns, 3'000u);
  EXPECT_EQ(into.p50_ns, 2'000u);
  merge_window(into, WindowStats{});  // an empty window changes nothing
  EXPECT_EQ(into.sources, 2u);
  EXPECT_EQ(into.start_ns, 5u);
}

TEST(WindowSeries, TakeClosedHandsOutEachWindowOnce) {
  WindowSeries s;
  s.begin(0, true);
  s.on_complete(200, 10);
  s.close_window(kS, 1, false, false);
  s.on_complete(200, 20);
  s.close_window(2 * kS, 1, false, false);
  std::vector<WindowSeries::Window> first = s.take_closed();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].index, 0u);
  EXPECT_TRUE(first[0].warmup);
  EXPECT_EQ(first[1].index, 1u);
  EXPECT_EQ(first[1].latency.max(), 20u);
  EXPECT_TRUE(s.take_closed().empty());
  EXPECT_TRUE(s.windows().empty());
  s.on_complete(200, 30);
  s.close_window(3 * kS, 1, false, true);
  const std::vector<WindowSeries::Window> last = s.take_closed();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].index, 2u);
  EXPECT_EQ(last[0].max_ns, 30u);
}

TEST(WindowSeries, ASupervisorTakesWindowsWhileTheWorkerRecords) {
  // The worker closes 2,000 windows of 5 requests while another thread takes and merges them.
  constexpr uint64_t kWindows = 2000;
  WindowSeries s;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    s.begin(0, false);
    for (uint64_t w = 0; w < kWindows; ++w) {
      for (uint64_t i = 1; i <= 5; ++i) s.on_complete(200, i * 100);
      s.close_window((w + 1) * 1000, 1, false, w + 1 == kWindows);
    }
    done.store(true);
  });
  std::vector<WindowStats> merged;
  uint64_t next_index = 0;
  bool finished = false;
  while (!finished) {
    finished = done.load();
    for (const WindowSeries::Window& w : s.take_closed()) {
      ASSERT_EQ(w.index, next_index++);
      merged.push_back(window_stats(w, 0));
    }
  }
  worker.join();
  ASSERT_EQ(merged.size(), kWindows);
  for (const WindowStats& w : merged) {
    ASSERT_EQ(w.completed, 5u);
    ASSERT_EQ(w.p50_ns, 300u);
  }
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

TEST(WindowSeries, OpenLoopWindowsKeepServiceTimeAndLagExactly) {
  WindowSeries a, b, closed_loop;
  a.set_open_loop(true);
  b.set_open_loop(true);
  a.begin(0, false);
  b.begin(0, false);
  closed_loop.begin(0, false);
  a.on_complete(200, 9'000, 7'000, 2'000);
  b.on_complete(200, 20'000, 15'000, 5'000);
  b.on_complete(200, 30'000, 25'000, 5'000);
  closed_loop.on_complete(200, 9'000, 7'000, 2'000);
  a.close_window(1'000'000, 1, false, true);
  b.close_window(1'000'000, 1, false, true);
  closed_loop.close_window(1'000'000, 1, false, true);
  WindowStats m = window_stats(a.windows()[0], 0);
  merge_window(m, window_stats(b.windows()[0], 0));
  EXPECT_EQ(m.service.count(), 3u);
  EXPECT_EQ(m.service.min(), 7'000u);
  EXPECT_EQ(m.service.max(), 25'000u);
  EXPECT_EQ(m.lag.count(), 3u);
  EXPECT_EQ(m.lag.value_at_percentile(50), 5'000u);
  // A closed loop's latency is its service time: nothing is kept twice.
  EXPECT_EQ(closed_loop.windows()[0].service.count(), 0u);
  EXPECT_EQ(closed_loop.windows()[0].lag.count(), 0u);
}

// Per-tag shares: named from the worker's table, only tags with an outcome in the window, reset
// per window, errors counted; merging two workers' windows adds tags by name whatever their ids.
TEST(WindowSeries, TagSharesAreNamedResetPerWindowAndMergedByName) {
  TagTable names;
  const uint16_t a = names.intern("a"), b = names.intern("b");
  WindowSeries s;
  s.set_tags(&names);
  s.begin(0, false);
  s.on_complete(200, 1000, 0, 0, a);
  s.on_complete(500, 3000, 0, 0, a);
  s.on_complete(200, 2000, 0, 0, b);
  s.on_complete(200, 9000);  // untagged: the window's only
  s.on_error(ErrorClass::kTimeout, b);
  s.close_window(kS, 0, false, false);
  s.on_complete(200, 5000, 0, 0, b);
  s.close_window(2 * kS, 0, false, true);
  const auto& w = s.windows();
  ASSERT_EQ(w.size(), 2u);
  ASSERT_EQ(w[0].tags.size(), 2u);
  EXPECT_EQ(w[0].tags[0].name, "a");
  EXPECT_EQ(w[0].tags[0].completed, 2u);
  EXPECT_EQ(w[0].tags[0].status_errors, 1u);
  EXPECT_EQ(w[0].tags[0].latency.count(), 2u);
  EXPECT_EQ(w[0].tags[0].latency.max(), 3000u);
  EXPECT_EQ(w[0].tags[1].name, "b");
  EXPECT_EQ(w[0].tags[1].errors[static_cast<size_t>(ErrorClass::kTimeout)], 1u);
  ASSERT_EQ(w[1].tags.size(), 1u);  // "a" had nothing in the second window
  EXPECT_EQ(w[1].tags[0].name, "b");
  EXPECT_EQ(w[1].tags[0].completed, 1u);
  EXPECT_EQ(w[1].tags[0].latency.min(), 5000u);

  // Another worker met "b" first: its id 0 is "b".
  TagTable other_names;
  const uint16_t b2 = other_names.intern("b");
  WindowSeries t;
  t.set_tags(&other_names);
  t.begin(0, false);
  t.on_complete(200, 4000, 0, 0, b2);
  t.close_window(kS, 0, false, true);
  WindowStats merged = window_stats(w[0], 0);
  merge_window(merged, window_stats(t.windows()[0], 0));
  ASSERT_EQ(merged.tags.size(), 2u);
  EXPECT_EQ(merged.tags[1].name, "b");
  EXPECT_EQ(merged.tags[1].completed, 2u);
  EXPECT_EQ(merged.tags[1].latency.max(), 4000u);
  EXPECT_EQ(merged.tags[0].completed, 2u);
}

}  // namespace
}  // namespace hail
