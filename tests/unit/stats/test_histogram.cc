#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "stats/histogram.h"

namespace hail {
namespace {

constexpr uint64_t kDefaultHighest = uint64_t{1} << 42;

// The ceil(p/100 * n)-th smallest (at least the 1st), with p given in thousandths of a percent so
// the reference rank is computed in exact integer arithmetic.
uint64_t exact_at(const std::vector<uint64_t>& sorted, uint64_t p_milli) {
  const uint64_t n = sorted.size();
  const uint64_t rank = std::max<uint64_t>(1, (p_milli * n + 99'999) / 100'000);
  return sorted[rank - 1];
}

// The histogram reports the top of the slot holding the exact value: never below it, and above it
// by less than 1/1024 of it.
void expect_close(uint64_t reported, uint64_t exact, const char* what, double p) {
  EXPECT_GE(reported, exact) << what << " p" << p;
  EXPECT_LE((reported - exact) * 1024, exact)
      << what << " p" << p << ": " << reported << " vs " << exact;
}

Histogram fill(const std::vector<uint64_t>& values) {
  Histogram h;
  for (uint64_t v : values) h.record(v);
  return h;
}

void check_against_exact(std::vector<uint64_t> values, const char* what) {
  const Histogram h = fill(values);
  std::sort(values.begin(), values.end());
  ASSERT_EQ(h.count(), values.size()) << what;
  EXPECT_EQ(h.min(), values.front()) << what;
  EXPECT_EQ(h.max(), values.back()) << what;
  EXPECT_EQ(h.out_of_range(), 0u) << what;

  std::vector<uint64_t> p_millis = {0,      1,      10,     100,    1'000,  5'000,
                                    10'000, 25'000, 50'000, 75'000, 90'000, 99'000,
                                    99'900, 99'990, 99'999, 100'000};
  for (uint64_t p = 0; p <= 100'000; p += 500) p_millis.push_back(p);
  for (uint64_t p_milli : p_millis) {
    const double p = static_cast<double>(p_milli) / 1000.0;
    expect_close(h.value_at_percentile(p), exact_at(values, p_milli), what, p);
  }
  EXPECT_EQ(h.value_at_percentile(0), values.front()) << what;
  EXPECT_EQ(h.value_at_percentile(100), values.back()) << what;

  long double sum = 0;
  for (uint64_t v : values) sum += v;
  const long double mean = sum / values.size();
  long double squares = 0;
  for (uint64_t v : values) squares += (v - mean) * (v - mean);
  const double stdev = static_cast<double>(std::sqrt(squares / values.size()));
  EXPECT_NEAR(h.mean(), static_cast<double>(mean), static_cast<double>(mean) * 0.001) << what;
  if (values.size() >= 1000 && values.front() != values.back()) {
    EXPECT_NEAR(h.stdev(), stdev, stdev * 0.001) << what;
  } else {
    // Few values: the slot midpoints move each value by up to 1/2048 of it, which can be all of a
    // tiny deviation, so bound the error by the values' size instead.
    EXPECT_NEAR(h.stdev(), stdev, static_cast<double>(values.back()) / 1024 + 1e-9) << what;
  }
}

TEST(Histogram, UniformData) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> dist(0, 1'000'000'000);
  std::vector<uint64_t> values(100'003);
  for (auto& v : values) v = dist(rng);
  check_against_exact(values, "uniform");
}

TEST(Histogram, SmallUniformDataAroundTheExactRange) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<uint64_t> dist(0, 5'000);
  std::vector<uint64_t> values(20'000);
  for (auto& v : values) v = dist(rng);
  check_against_exact(values, "small uniform");
}

TEST(Histogram, LongTailData) {
  // Exponential around 1 ms with a Pareto tail reaching far into seconds: latency-like.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> body(1.0 / 1e6);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<uint64_t> values(100'000);
  for (auto& v : values) {
    double x = body(rng);
    if (unit(rng) < 0.01) x = 1e6 / std::pow(1.0 - unit(rng), 1.0 / 1.2);  // Pareto, alpha 1.2
    v = static_cast<uint64_t>(std::min(x, 4e12));
  }
  check_against_exact(values, "long tail");
}

TEST(Histogram, LogUniformDataOverTheWholeRange) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> exponent(0.0, 42.0);
  std::vector<uint64_t> values(50'000);
  for (auto& v : values) v = static_cast<uint64_t>(std::exp2(exponent(rng)));
  check_against_exact(values, "log uniform");
}

TEST(Histogram, ConstantData) {
  check_against_exact(std::vector<uint64_t>(1000, 123'456'789), "constant");
  const Histogram h = fill(std::vector<uint64_t>(1000, 123'456'789));
  EXPECT_EQ(h.value_at_percentile(50), 123'456'789u);
  EXPECT_EQ(h.stdev(), 0.0);
}

TEST(Histogram, TinySets) {
  const std::vector<std::vector<uint64_t>> sets = {
      {0},
      {1},
      {5'000'000},
      {kDefaultHighest},
      {7, 3},
      {1'000'000'000, 1'000'000'001},
      {1, 1'000'000'000},
      {10, 20, 30},
      {123'456'789, 5, 987'654'321'000},
      {2047, 2048, 2049},
  };
  for (const auto& set : sets) check_against_exact(set, "tiny set");
}

TEST(Histogram, EveryRankAtBucketBoundaries) {
  std::vector<uint64_t> values;
  for (int k = 0; k <= 42; ++k) {
    const uint64_t v = uint64_t{1} << k;
    values.insert(values.end(), {v - 1, v, v + 1, v + v / 3});
  }
  const Histogram h = fill(values);
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  for (size_t rank = 1; rank <= values.size(); ++rank) {
    const double p = 100.0 * static_cast<double>(rank) / n;
    expect_close(h.value_at_percentile(p), values[rank - 1], "boundaries", p);
  }
}

TEST(Histogram, EmptyHistogram) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stdev(), 0.0);
  EXPECT_EQ(h.value_at_percentile(50), 0u);
  int slots = 0;
  h.for_each_recorded([&](uint64_t, uint64_t) { ++slots; });
  EXPECT_EQ(slots, 0);
}

TEST(Histogram, ZeroAndHighestValue) {
  Histogram h;
  h.record(0);
  EXPECT_EQ(h.value_at_percentile(50), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  h.record(kDefaultHighest);
  EXPECT_EQ(h.out_of_range(), 0u);
  EXPECT_EQ(h.value_at_percentile(0), 0u);
  EXPECT_EQ(h.value_at_percentile(100), kDefaultHighest);
  EXPECT_EQ(h.max(), kDefaultHighest);
}

TEST(Histogram, OutOfRangeValuesAreClampedAndCounted) {
  Histogram h;
  h.record(kDefaultHighest + 1);
  h.record(UINT64_MAX);
  h.record(1000);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.out_of_range(), 2u);
  EXPECT_EQ(h.max(), UINT64_MAX);
  EXPECT_EQ(h.value_at_percentile(100), UINT64_MAX);
  const uint64_t median = h.value_at_percentile(50);  // the clamped value's slot
  EXPECT_GE(median, kDefaultHighest);
  EXPECT_LE(median - kDefaultHighest, kDefaultHighest / 1024);

  Histogram small(10'000);
  small.record_n(20'000, 5);
  small.record(10'000);
  EXPECT_EQ(small.out_of_range(), 5u);
  EXPECT_EQ(small.count(), 6u);
  EXPECT_EQ(small.max(), 20'000u);
  EXPECT_EQ(small.min(), 10'000u);
}

TEST(Histogram, PercentileArgumentIsClamped) {
  Histogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.value_at_percentile(-5), 1u);
  EXPECT_EQ(h.value_at_percentile(250), 100u);
  EXPECT_EQ(h.value_at_percentile(std::nan("")), 1u);
  EXPECT_EQ(h.value_at_percentile(50), 50u);
  EXPECT_EQ(h.value_at_percentile(50.5), 51u);
  EXPECT_EQ(h.value_at_percentile(99), 99u);
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  for (int i = 0; i < 7; ++i) a.record(123'456);
  b.record_n(123'456, 7);
  b.record_n(999, 0);  // counts nothing, not even as min
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(b.min(), 123'456u);
  EXPECT_EQ(a.value_at_percentile(50), b.value_at_percentile(50));
  EXPECT_EQ(a.mean(), b.mean());
}

std::vector<std::pair<uint64_t, uint64_t>> slots_of(const Histogram& h) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  h.for_each_recorded([&](uint64_t value, uint64_t count) { out.emplace_back(value, count); });
  return out;
}

TEST(Histogram, MergeEqualsRecordingAllIntoOne) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(13.0, 2.0);
  Histogram all;
  Histogram first;
  Histogram second;
  for (int i = 0; i < 50'000; ++i) {
    const auto v = static_cast<uint64_t>(dist(rng));
    all.record(v);
    (i % 3 == 0 ? first : second).record(v);
  }
  second.record(kDefaultHighest * 2);
  all.record(kDefaultHighest * 2);
  first.merge(second);
  EXPECT_EQ(first.count(), all.count());
  EXPECT_EQ(first.min(), all.min());
  EXPECT_EQ(first.max(), all.max());
  EXPECT_EQ(first.out_of_range(), 1u);
  EXPECT_EQ(first.mean(), all.mean());
  EXPECT_EQ(first.stdev(), all.stdev());
  for (double p : {0.0, 1.0, 50.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(first.value_at_percentile(p), all.value_at_percentile(p)) << p;
  }
  EXPECT_EQ(slots_of(first), slots_of(all));

  Histogram empty;
  all.merge(empty);
  EXPECT_EQ(slots_of(first), slots_of(all));
  empty.merge(all);
  EXPECT_EQ(empty.min(), all.min());
  EXPECT_EQ(slots_of(empty), slots_of(all));
}

TEST(Histogram, MergeOfDifferentShapesAborts) {
  Histogram a;
  Histogram b(1'000'000);
  EXPECT_DEATH(a.merge(b), "");
}

TEST(Histogram, ResetEmptiesEverything) {
  Histogram h;
  h.record(5);
  h.record(UINT64_MAX);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.out_of_range(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_TRUE(slots_of(h).empty());
  h.record(42);
  EXPECT_EQ(h.min(), 42u);
  EXPECT_EQ(h.max(), 42u);
}

TEST(Histogram, ForEachRecordedVisitsSlotsInOrder) {
  Histogram h;
  h.record_n(3, 2);
  h.record(1'000'000);
  h.record(1'000'001);  // same slot as 1'000'000 (width 512 there)
  h.record(5'000);
  const auto slots = slots_of(h);
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[0], std::make_pair(uint64_t{3}, uint64_t{2}));
  EXPECT_GE(slots[1].first, 5'000u);
  EXPECT_LT(slots[1].first, 5'000u + 4);
  EXPECT_EQ(slots[1].second, 1u);
  EXPECT_GE(slots[2].first, 1'000'001u);
  EXPECT_LE(slots[2].first - 1'000'000, 1'000'000u / 1024);
  EXPECT_EQ(slots[2].second, 2u);
}

TEST(Histogram, MemoryIsAFewHundredKiB) {
  const Histogram h;
  EXPECT_GT(h.memory_bytes(), 33'000u * 8);
  EXPECT_LT(h.memory_bytes(), 300u * 1024);
  const Histogram full_range(UINT64_MAX);
  EXPECT_LT(full_range.memory_bytes(), 500u * 1024);
}

TEST(Histogram, FullRangeHistogramTracksTheLargestValues) {
  Histogram h(UINT64_MAX);
  h.record(UINT64_MAX);
  h.record(UINT64_MAX - 1);
  h.record(uint64_t{1} << 63);
  EXPECT_EQ(h.out_of_range(), 0u);
  EXPECT_EQ(h.value_at_percentile(100), UINT64_MAX);
  const uint64_t median = h.value_at_percentile(50);  // UINT64_MAX - 1, reported as its slot's top
  EXPECT_EQ(median, UINT64_MAX);
}

// Resident memory of this process, from /proc/self/statm.
size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0;
  size_t pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(Histogram, UntouchedCountsCostNoMemory) {
  // 64 histograms (a worker's tags) of 264 KiB each, one latency recorded in each: only the page
  // holding that count becomes resident, not 16.5 MiB.
  constexpr size_t kHistograms = 64;
  const size_t before = resident_bytes();
  std::vector<std::unique_ptr<Histogram>> histograms;
  for (size_t i = 0; i < kHistograms; ++i) {
    histograms.push_back(std::make_unique<Histogram>());
    histograms.back()->record(1'000'000 + i);
    histograms.back()->reset();
    histograms.back()->record(2'000'000);
  }
  const size_t grown = resident_bytes() - std::min(before, resident_bytes());
  EXPECT_LT(grown, kHistograms * 32 * 1024) << grown;
  EXPECT_EQ(histograms.back()->count(), 1u);
}

TEST(Histogram, FarApartValuesCostOnlyTheirPages) {
  // The extremes of the layout in each: resetting, merging and copying write only the slots
  // that hold counts, not the 264 KiB between them.
  constexpr size_t kHistograms = 32;
  const size_t before = resident_bytes();
  std::vector<std::unique_ptr<Histogram>> histograms;
  Histogram sum;
  for (size_t i = 0; i < kHistograms; ++i) {
    histograms.push_back(std::make_unique<Histogram>());
    Histogram& h = *histograms.back();
    h.record(1);
    h.record(kDefaultHighest);
    h.reset();
    h.record(2);
    h.record(kDefaultHighest - 1);
    sum.merge(h);
    histograms.push_back(std::make_unique<Histogram>(h));
  }
  const size_t grown = resident_bytes() - std::min(before, resident_bytes());
  EXPECT_LT(grown, 2 * kHistograms * 32 * 1024) << grown;  // eager: 2 * 32 * 264 KiB
  EXPECT_EQ(sum.count(), 2 * kHistograms);
}

TEST(Histogram, ResetAfterExtremeValuesLeavesNoCount) {
  Histogram h;
  h.record(0);
  h.record(1'234'567);
  h.record(UINT64_MAX);
  h.record_n(kDefaultHighest, 3);
  h.reset();
  EXPECT_TRUE(slots_of(h).empty());
  // Stale counts anywhere would show in a merge or a percentile walk over the whole range.
  h.record(0);
  h.record(kDefaultHighest);
  EXPECT_EQ(slots_of(h), (std::vector<std::pair<uint64_t, uint64_t>>{
                             {0, 1}, {Histogram::highest_equivalent(33'792), 1}}));
  EXPECT_EQ(h.value_at_percentile(50), 0u);
  Histogram sum;
  sum.merge(h);
  EXPECT_EQ(slots_of(sum), slots_of(h));
  EXPECT_EQ(sum.out_of_range(), 0u);
}

TEST(Histogram, MergeOfSparseHistogramsEqualsBruteForce) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> exponent(0.0, 44.0);
  for (int round = 0; round < 300; ++round) {
    std::map<size_t, uint64_t> expected;  // slot -> count, counted one value at a time
    Histogram merged;
    for (int part = 0; part < 3; ++part) {
      Histogram h;
      const int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        const auto v = static_cast<uint64_t>(std::exp2(exponent(rng)));
        h.record(v);
        ++expected[Histogram::index_of(std::min(v, kDefaultHighest))];
      }
      merged.merge(h);
    }
    std::vector<std::pair<size_t, uint64_t>> got;
    merged.for_each_index([&](size_t index, uint64_t count) { got.emplace_back(index, count); });
    ASSERT_EQ(got, (std::vector<std::pair<size_t, uint64_t>>(expected.begin(), expected.end())));
  }
}

TEST(Histogram, CopiesAndMovesKeepEveryValue) {
  Histogram h;
  for (uint64_t v : {uint64_t{3}, uint64_t{40'000}, uint64_t{5'000'000'000}, UINT64_MAX})
    h.record(v);
  const Histogram copy = h;
  EXPECT_EQ(slots_of(copy), slots_of(h));
  EXPECT_EQ(copy.max(), UINT64_MAX);
  EXPECT_EQ(copy.out_of_range(), 1u);

  Histogram other_shape(1'000'000);
  other_shape.record(7);
  other_shape = h;  // takes h's shape
  EXPECT_EQ(other_shape.highest_trackable_ns(), kDefaultHighest);
  EXPECT_EQ(slots_of(other_shape), slots_of(h));
  Histogram same_shape;
  same_shape.record(kDefaultHighest);
  same_shape = h;  // the old counts are gone
  EXPECT_EQ(slots_of(same_shape), slots_of(h));

  Histogram moved = std::move(same_shape);
  EXPECT_EQ(slots_of(moved), slots_of(h));
  EXPECT_EQ(same_shape.count(), 0u);  // NOLINT(bugprone-use-after-move): reads as empty
  EXPECT_TRUE(slots_of(same_shape).empty());
  same_shape = copy;  // assignable again
  EXPECT_EQ(slots_of(same_shape), slots_of(h));
}

}  // namespace
}  // namespace hail
