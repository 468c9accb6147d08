#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "analysis/histogram_span.h"
#include "stats/histogram.h"
#include "stats/histogram_codec.h"

namespace hail {
namespace {

const std::vector<double> kPercentiles = {0,  0.1, 1,    10,    25,     50, 75,
                                          90, 99,  99.9, 99.99, 99.999, 100};

// The span must answer exactly what one Histogram holding every value of its windows answers.
void expect_same(const HistogramSpan& span, const Histogram& all, const char* where) {
  SCOPED_TRACE(where);
  ASSERT_EQ(span.count(), all.count());
  EXPECT_EQ(span.min(), all.min());
  EXPECT_EQ(span.max(), all.max());
  EXPECT_EQ(span.mean(), all.mean());  // the same sum in the same order: bit for bit
  for (double p : kPercentiles) {
    EXPECT_EQ(span.value_at_percentile(p), all.value_at_percentile(p)) << "p" << p;
  }
}

// One window's values: lognormal around `median_ns`, some windows with a far outlier.
std::vector<uint64_t> window_values(std::mt19937_64& rng, size_t n, double median_ns,
                                    bool outlier) {
  std::lognormal_distribution<double> d(std::log(median_ns), 0.8);
  std::vector<uint64_t> v;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<uint64_t>(d(rng)) + 1);
  if (outlier) v.push_back(static_cast<uint64_t>(median_ns * 5000));
  return v;
}

Histogram all_of(const std::deque<std::vector<uint64_t>>& windows,
                 uint64_t highest = Histogram::kDefaultHighestTrackableNs) {
  Histogram h(highest);
  for (const auto& w : windows) {
    for (uint64_t v : w) h.record(v);
  }
  return h;
}

EncodedHistogram encode(const std::vector<uint64_t>& values,
                        uint64_t highest = Histogram::kDefaultHighestTrackableNs) {
  Histogram h(highest);
  for (uint64_t v : values) h.record(v);
  return EncodedHistogram(h);
}

TEST(HistogramSpan, EmptyReadsZero) {
  HistogramSpan span;
  EXPECT_EQ(span.windows(), 0u);
  EXPECT_EQ(span.count(), 0u);
  EXPECT_EQ(span.min(), 0u);
  EXPECT_EQ(span.max(), 0u);
  EXPECT_EQ(span.mean(), 0.0);
  EXPECT_EQ(span.value_at_percentile(99), 0u);
  span.pop_front();  // no-op when empty
  EXPECT_EQ(span.windows(), 0u);
}

TEST(HistogramSpan, SlidingSpanMatchesAHistogramOfAllItsValues) {
  std::mt19937_64 rng(20240615);
  HistogramSpan span;
  std::deque<std::vector<uint64_t>> held;
  constexpr size_t kSpanWindows = 5;
  for (int i = 0; i < 40; ++i) {
    // Latency regimes change along the run so that windows leaving the span matter.
    const double median = i < 15 ? 50e3 : (i < 25 ? 3e6 : 200e3);
    std::vector<uint64_t> values = window_values(rng, 200 + 37 * (i % 7), median, i % 9 == 4);
    if (i % 11 == 7) values.clear();  // a window without responses
    span.push_back(encode(values));
    held.push_back(std::move(values));
    if (held.size() > kSpanWindows) {
      span.pop_front();
      held.pop_front();
    }
    ASSERT_EQ(span.windows(), held.size());
    expect_same(span, all_of(held), ("after window " + std::to_string(i)).c_str());
  }
  // Draining from the front keeps it exact down to empty.
  while (!held.empty()) {
    span.pop_front();
    held.pop_front();
    expect_same(span, all_of(held), "draining");
  }
  EXPECT_EQ(span.count(), 0u);
  EXPECT_EQ(span.max(), 0u);
}

TEST(HistogramSpan, ExtremesAreExactNotSlotBounds) {
  // 1,000,003 ns and 1,000,001 ns share a slot (width 512 there); min and max stay exact, and so
  // do p0 and p100.
  HistogramSpan span;
  span.push_back(encode({1'000'003, 5'000}));
  span.push_back(encode({1'000'001}));
  EXPECT_EQ(span.min(), 5'000u);
  EXPECT_EQ(span.max(), 1'000'003u);
  span.pop_front();
  EXPECT_EQ(span.min(), 1'000'001u);
  EXPECT_EQ(span.max(), 1'000'001u);
  EXPECT_EQ(span.value_at_percentile(0), 1'000'001u);
  EXPECT_EQ(span.value_at_percentile(100), 1'000'001u);
  EXPECT_EQ(span.value_at_percentile(50), 1'000'001u);
}

TEST(HistogramSpan, SmallValuesAndOutOfRangeValues) {
  // Bucket 0 (exact unit slots), and values past the layout, which sit in its top slot while the
  // maximum stays the true value.
  const uint64_t highest = 1'000'000'000;  // a 1 s layout
  std::deque<std::vector<uint64_t>> held = {
      {1, 2, 3, 2047, 2048, 2049},
      {999'999'999, 1'000'000'000, 5'000'000'000, 70'000'000'000},
      {10, 20, 30},
  };
  HistogramSpan span;
  for (const auto& w : held) span.push_back(encode(w, highest));
  expect_same(span, all_of(held, highest), "all three");
  span.pop_front();
  held.pop_front();
  expect_same(span, all_of(held, highest), "without the first");
  span.pop_front();
  held.pop_front();
  expect_same(span, all_of(held, highest), "the last alone");
  EXPECT_EQ(span.max(), 30u);
}

TEST(HistogramSpan, ClearEmptiesAndStartsAfresh) {
  std::mt19937_64 rng(7);
  HistogramSpan span;
  for (int i = 0; i < 4; ++i) span.push_back(encode(window_values(rng, 100, 1e6, true)));
  span.clear();
  EXPECT_EQ(span.windows(), 0u);
  EXPECT_EQ(span.count(), 0u);
  EXPECT_EQ(span.value_at_percentile(50), 0u);
  std::deque<std::vector<uint64_t>> held = {window_values(rng, 300, 2e4, false)};
  span.push_back(encode(held.front()));
  expect_same(span, all_of(held), "after clear");
}

TEST(HistogramSpan, ManyWindowsOfOneSampleEach) {
  // The rank arithmetic at its edges: every percentile of n single values.
  HistogramSpan span;
  std::deque<std::vector<uint64_t>> held;
  for (uint64_t i = 1; i <= 1000; ++i) {
    held.push_back({i * 7919 % 100'000 + 1});
    span.push_back(encode(held.back()));
  }
  const Histogram all = all_of(held);
  expect_same(span, all, "1000 single windows");
  for (double p = 0; p <= 100; p += 0.7) {
    EXPECT_EQ(span.value_at_percentile(p), all.value_at_percentile(p)) << p;
  }
}

}  // namespace
}  // namespace hail
