// hail compare's statistics against known values: Mann-Whitney U against textbook values and a
// brute-force enumeration of every split, the normal approximation against the exact answer, the
// median's order-statistic interval from the binomial, the seeded block resampling, the
// bootstrap's interval against the standard error of a mean, and the verdict rules at the margins.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "analysis/compare_stats.h"

namespace hail {
namespace {

// Two-sided p of U by visiting every way of choosing which n of the pooled values are a's.
double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  const size_t n = a.size(), total = pooled.size();
  const auto u_of = [&](const std::vector<bool>& in_a) {
    double u = 0;
    for (size_t i = 0; i < total; ++i) {
      if (!in_a[i]) continue;
      for (size_t j = 0; j < total; ++j) {
        if (in_a[j]) continue;
        u += pooled[i] > pooled[j] ? 1 : pooled[i] == pooled[j] ? 0.5 : 0;
      }
    }
    return u;
  };
  std::vector<bool> observed(total, false);
  std::fill(observed.begin(), observed.begin() + static_cast<long>(n), true);
  const double center = static_cast<double>(n * b.size()) / 2;
  const double distance = std::abs(u_of(observed) - center);
  std::vector<bool> choose(total, false);
  std::fill(choose.begin(), choose.begin() + static_cast<long>(n), true);
  std::sort(choose.begin(), choose.end());
  double extreme = 0, splits = 0;
  do {
    splits += 1;
    if (std::abs(u_of(choose) - center) >= distance - 1e-9) extreme += 1;
  } while (std::next_permutation(choose.begin(), choose.end()));
  return extreme / splits;
}

TEST(CompareStats, MannWhitneyTextbook) {
  // Complete separation of 3 and 3: U = 0, and 2 of the C(6,3) = 20 splits are as extreme.
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  const MannWhitney mw = mann_whitney(a, b);
  EXPECT_EQ(mw.u, 0);
  EXPECT_TRUE(mw.exact);
  EXPECT_DOUBLE_EQ(mw.p_value, 0.1);
  EXPECT_EQ(mann_whitney(b, a).u, 9);
  EXPECT_DOUBLE_EQ(mann_whitney(b, a).p_value, 0.1);
  // 4 against 4, separated: 2 / C(8,4) = 2 / 70.
  const std::vector<double> c = {1, 2, 3, 4}, d = {5, 6, 7, 8};
  EXPECT_NEAR(mann_whitney(c, d).p_value, 2.0 / 70, 1e-12);
  // Identical samples: nothing against the null.
  EXPECT_DOUBLE_EQ(mann_whitney(c, c).p_value, 1.0);
  // U counts ties one half: a = {1, 2}, b = {2, 3}: pairs (2 > ... ) = 0 wins, one tie.
  const std::vector<double> e = {1, 2}, f = {2, 3};
  EXPECT_DOUBLE_EQ(mann_whitney(e, f).u, 0.5);
}

TEST(CompareStats, MannWhitneyExactIsTheEnumeration) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1, 2, 3}, {4, 5, 6}},
      {{1.5, 3, 7, 2}, {2.5, 8, 9}},
      {{1, 2, 2, 3, 5}, {2, 3, 4, 4, 6}},  // ties across samples
      {{10, 10, 10}, {10, 11, 9, 10}},     // mostly ties
      {{0.3, 0.1, 0.7, 0.9, 0.2, 0.8}, {0.4, 0.5, 0.6, 1.0, 1.1, 1.2, 0.05}},
  };
  for (const auto& [a, b] : cases) {
    const MannWhitney mw = mann_whitney(a, b);
    EXPECT_TRUE(mw.exact);
    EXPECT_NEAR(mw.p_value, brute_force_p(a, b), 1e-12) << a.size() << " vs " << b.size();
  }
}

TEST(CompareStats, MannWhitneyNormalApproximationNearTheExactAnswer) {
  // 10 against 11 (C(21,10) = 352,716 splits, past the exact limit): the normal approximation
  // with the tie and continuity corrections, against the enumeration.
  const std::vector<double> a = {3, 5, 5, 7, 8, 9, 11, 12, 12, 14};
  const std::vector<double> b = {6, 8, 9, 12, 13, 16, 17, 18, 19, 21, 22};
  const MannWhitney mw = mann_whitney(a, b);
  EXPECT_FALSE(mw.exact);
  const double exact = brute_force_p(a, b);
  EXPECT_NEAR(mw.p_value, exact, 0.005) << "exact " << exact;
  EXPECT_LT(mw.p_value, 0.05);
}

TEST(CompareStats, MedianAndItsOrderStatisticInterval) {
  const std::vector<double> odd = {5, 1, 3}, even = {4, 1, 3, 2};
  EXPECT_EQ(median(odd), 3);
  EXPECT_EQ(median(even), 2.5);
  // n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so [x_(2), x_(9)].
  std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  MedianInterval mi = median_interval(ten, 0.95);
  EXPECT_EQ(mi.interval.low, 2);
  EXPECT_EQ(mi.interval.high, 9);
  EXPECT_DOUBLE_EQ(mi.confidence_reached, 1 - 2 * 11.0 / 1024);
  // n = 6: [min, max] covers 1 - 2/64 >= 95 %.
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  mi = median_interval(six, 0.95);
  EXPECT_EQ(mi.interval.low, 1);
  EXPECT_EQ(mi.interval.high, 6);
  EXPECT_DOUBLE_EQ(mi.confidence_reached, 1 - 2.0 / 64);
  // n = 5: not even the range reaches 95 %: it is the range, and says it covers 1 - 2/32.
  const std::vector<double> five = {1, 2, 3, 4, 5};
  mi = median_interval(five, 0.95);
  EXPECT_EQ(mi.interval.low, 1);
  EXPECT_EQ(mi.interval.high, 5);
  EXPECT_DOUBLE_EQ(mi.confidence_reached, 1 - 2.0 / 32);
}

TEST(CompareStats, SeededRngIsTheStandardEngine) {
  // mt19937_64's 10000th output for the default seed is fixed by the standard.
  SeededRng rng(5489);
  uint64_t last = 0;
  for (int i = 0; i < 10000; ++i) last = rng.below(UINT64_MAX);
  // below(UINT64_MAX) rejects only UINT64_MAX itself, so the draws are the engine's.
  EXPECT_EQ(last, 9981545732273789042ULL);
  SeededRng small(7);
  std::vector<int> seen(6, 0);
  for (int i = 0; i < 60000; ++i) ++seen[small.below(6)];
  for (int s : seen) EXPECT_NEAR(s, 10000, 500);
}

TEST(CompareStats, BlockResamplingIsReproducibleAndMadeOfBlocks) {
  EXPECT_EQ(default_block_windows(1), 1u);
  EXPECT_EQ(default_block_windows(27), 3u);
  EXPECT_EQ(default_block_windows(30), 3u);
  EXPECT_EQ(default_block_windows(1000), 10u);
  std::vector<size_t> first, again, other;
  SeededRng a(42), b(42), c(43);
  block_resample(30, 4, a, first);
  block_resample(30, 4, b, again);
  block_resample(30, 4, c, other);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  ASSERT_EQ(first.size(), 30u);
  // Blocks of 4 consecutive windows, each starting in [0, 26]; the last is cut to fit.
  for (size_t i = 0; i < first.size(); i += 4) {
    EXPECT_LE(first[i], 26u);
    for (size_t j = i + 1; j < std::min<size_t>(i + 4, first.size()); ++j) {
      EXPECT_EQ(first[j], first[j - 1] + 1);
    }
  }
  // A block as long as the series: every resample is the series itself.
  block_resample(5, 5, a, first);
  EXPECT_EQ(first, (std::vector<size_t>{0, 1, 2, 3, 4}));
  // The same seed gives the same sequence of resamples.
  SeededRng d(9), e(9);
  for (int round = 0; round < 100; ++round) {
    block_resample(17, 3, d, first);
    block_resample(17, 3, e, again);
    ASSERT_EQ(first, again);
  }
}

TEST(CompareStats, PercentileInterval) {
  std::vector<double> v(101);
  std::iota(v.begin(), v.end(), 0.0);
  std::reverse(v.begin(), v.end());
  const Interval i = percentile_interval(v, 0.95);
  EXPECT_NEAR(i.low, 2.5, 1e-9);
  EXPECT_NEAR(i.high, 97.5, 1e-9);
}

TEST(CompareStats, BootstrapOfAMeanMatchesItsStandardError) {
  // Independent windows (block 1) holding one value each: the bootstrap's 95 % interval of their
  // mean is about mean +- 1.96 sigma / sqrt(n) (sigma the population deviation).
  const size_t n = 50;
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<double>((i * 37) % 50);
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  const double se = std::sqrt(var / n) / std::sqrt(static_cast<double>(n));
  SeededRng rng(1);
  std::vector<size_t> picks;
  std::vector<double> means;
  for (int r = 0; r < 4000; ++r) {
    block_resample(n, 1, rng, picks);
    double s = 0;
    for (size_t i : picks) s += x[i];
    means.push_back(s / n);
  }
  const Interval ci = percentile_interval(means, 0.95);
  EXPECT_NEAR(ci.low, mean - 1.96 * se, 0.1 * se * 1.96);
  EXPECT_NEAR(ci.high, mean + 1.96 * se, 0.1 * se * 1.96);
}

TEST(CompareStats, IntervalVerdictAtTheMargins) {
  const double t = 0.05;
  // Lower is better (latency): positive change is worse.
  EXPECT_EQ(interval_verdict({0.0501, 0.2}, t, true), Verdict::kRegressed);
  EXPECT_EQ(interval_verdict({0.05, 0.2}, t, true), Verdict::kInconclusive);  // touches +t
  EXPECT_EQ(interval_verdict({-0.2, -0.0501}, t, true), Verdict::kImproved);
  EXPECT_EQ(interval_verdict({-0.2, -0.05}, t, true), Verdict::kInconclusive);
  EXPECT_EQ(interval_verdict({-0.05, 0.05}, t, true), Verdict::kSame);  // margins included
  EXPECT_EQ(interval_verdict({-0.0501, 0.05}, t, true), Verdict::kInconclusive);
  EXPECT_EQ(interval_verdict({0.01, 0.04}, t, true), Verdict::kSame);  // real but within margin
  EXPECT_EQ(interval_verdict({-0.3, 0.3}, t, true), Verdict::kInconclusive);
  // Higher is better (rps): a drop is worse.
  EXPECT_EQ(interval_verdict({-0.2, -0.0501}, t, false), Verdict::kRegressed);
  EXPECT_EQ(interval_verdict({0.0501, 0.2}, t, false), Verdict::kImproved);
  EXPECT_EQ(interval_verdict({-0.05, 0.05}, t, false), Verdict::kSame);
  // Zero margin: any interval off zero is a change, only a point at zero is the same.
  EXPECT_EQ(interval_verdict({0, 0}, 0, true), Verdict::kSame);
  EXPECT_EQ(interval_verdict({1e-9, 1e-6}, 0, true), Verdict::kRegressed);
}

TEST(CompareStats, RankVerdictAtTheMargins) {
  const double t = 0.05, alpha = 0.05;
  EXPECT_EQ(rank_verdict(0.01, alpha, 0.06, t, true), Verdict::kRegressed);
  EXPECT_EQ(rank_verdict(0.01, alpha, 0.05, t, true), Verdict::kInconclusive);
  EXPECT_EQ(rank_verdict(0.01, alpha, -0.06, t, true), Verdict::kImproved);
  EXPECT_EQ(rank_verdict(0.05, alpha, 0.06, t, true), Verdict::kInconclusive);  // p == alpha
  EXPECT_EQ(rank_verdict(0.2, alpha, 0.05, t, true), Verdict::kSame);
  EXPECT_EQ(rank_verdict(0.2, alpha, -0.05, t, true), Verdict::kSame);
  EXPECT_EQ(rank_verdict(0.01, alpha, 0.02, t, true), Verdict::kInconclusive);  // real, small
  EXPECT_EQ(rank_verdict(0.01, alpha, -0.06, t, false), Verdict::kRegressed);
  EXPECT_EQ(verdict_name(Verdict::kRegressed), "regressed");
}

}  // namespace
}  // namespace hail
