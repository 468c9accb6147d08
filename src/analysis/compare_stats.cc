#include "analysis/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hail {

uint64_t SeededRng::below(uint64_t bound) {
  if (bound <= 1) return 0;
  // Reject the top partial copy of [0, bound) so that every residue is equally likely.
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % bound;
  for (;;) {
    const uint64_t x = engine_();
    if (x < limit) return x % bound;
  }
}

size_t default_block_windows(size_t windows) {
  if (windows == 0) return 1;
  const auto block = static_cast<size_t>(std::llround(std::cbrt(static_cast<double>(windows))));
  return std::clamp<size_t>(block, 1, windows);
}

void block_resample(size_t windows, size_t block, SeededRng& rng, std::vector<size_t>& out) {
  out.clear();
  if (windows == 0) return;
  block = std::clamp<size_t>(block, 1, windows);
  const size_t starts = windows - block + 1;
  while (out.size() < windows) {
    const size_t start = rng.below(starts);
    for (size_t i = 0; i < block && out.size() < windows; ++i) out.push_back(start + i);
  }
}

Interval percentile_interval(std::vector<double>& values, double confidence) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  const double tail = (1 - confidence) / 2;
  return {at(tail), at(1 - tail)};
}

namespace {

// log C(n, k).
double log_choose(double n, double k) {
  return log_gamma(n + 1) - log_gamma(k + 1) - log_gamma(n - k + 1);
}

// The pooled sample's midranks, doubled so that they are integers: rank2[i] for a's values first,
// then b's; and sum(t^3 - t) over the groups of ties.
struct PooledRanks {
  std::vector<uint64_t> rank2;
  double tie_term = 0;
};

PooledRanks pooled_ranks(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, size_t>> pooled;
  for (size_t i = 0; i < a.size(); ++i) pooled.emplace_back(a[i], i);
  for (size_t j = 0; j < b.size(); ++j) pooled.emplace_back(b[j], a.size() + j);
  std::sort(pooled.begin(), pooled.end());
  PooledRanks out;
  out.rank2.resize(pooled.size());
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    // Ranks i+1 .. j share their mean (i + 1 + j) / 2; doubled: i + 1 + j.
    for (size_t k = i; k < j; ++k) out.rank2[pooled[k].second] = i + 1 + j;
    const auto t = static_cast<double>(j - i);
    out.tie_term += t * t * t - t;
    i = j;
  }
  return out;
}

}  // namespace

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) {
  MannWhitney out;
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return out;
  const PooledRanks ranks = pooled_ranks(a, b);
  uint64_t rank2_sum_a = 0;
  for (size_t i = 0; i < n; ++i) rank2_sum_a += ranks.rank2[i];
  // U = R_a - n(n+1)/2, in doubled units.
  const uint64_t offset2 = n * (n + 1);
  out.u = static_cast<double>(rank2_sum_a - offset2) / 2;
  const double center = static_cast<double>(n * m) / 2;
  const double distance = std::abs(out.u - center);
  const size_t total = n + m;
  if (log_choose(static_cast<double>(total), static_cast<double>(n)) <=
      std::log(static_cast<double>(kMannWhitneyExactSplits))) {
    // Every split of the pooled (doubled) ranks into n and m values, counted by the sum of the n:
    // ways[k][s] = number of k-subsets of the ranks seen so far whose doubled ranks sum to s.
    uint64_t max_sum = 0;
    for (uint64_t r : ranks.rank2) max_sum += r;
    std::vector<std::vector<double>> ways(n + 1, std::vector<double>(max_sum + 1, 0));
    ways[0][0] = 1;
    for (uint64_t r : ranks.rank2) {
      for (size_t k = n; k >= 1; --k) {
        for (uint64_t s = max_sum; s >= r; --s) ways[k][s] += ways[k - 1][s - r];
      }
    }
    double as_extreme = 0, splits = 0;
    for (uint64_t s = 0; s <= max_sum; ++s) {
      if (ways[n][s] == 0) continue;
      splits += ways[n][s];
      const double u = (static_cast<double>(s) - static_cast<double>(offset2)) / 2;
      if (std::abs(u - center) >= distance - 1e-9) as_extreme += ways[n][s];
    }
    out.p_value = std::min(1.0, as_extreme / splits);
    out.exact = true;
    return out;
  }
  const auto nn = static_cast<double>(n), mm = static_cast<double>(m);
  const auto tt = static_cast<double>(total);
  const double variance = nn * mm / 12 * ((tt + 1) - ranks.tie_term / (tt * (tt - 1)));
  if (variance <= 0) return out;  // every value tied: no evidence either way
  const double z = std::max(0.0, distance - 0.5) / std::sqrt(variance);
  out.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return out;
}

double median(std::span<const double> values) {
  if (values.empty()) return 0;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

MedianInterval median_interval(std::span<const double> values, double confidence) {
  MedianInterval out;
  if (values.empty()) return out;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double tail = (1 - confidence) / 2;
  // below[k] = P(B < k) for B ~ Binomial(n, 1/2), accumulated while it stays within the tail.
  size_t k = 0;
  double below_k = 0;
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  for (size_t next = 1; next <= n / 2 + 1; ++next) {
    const double below_next =
        below_k +
        std::exp(log_choose(static_cast<double>(n), static_cast<double>(next - 1)) + log_half_n);
    if (below_next > tail) break;
    k = next;
    below_k = below_next;
  }
  if (k == 0) {
    out.interval = {v.front(), v.back()};
    out.confidence_reached = 1 - 2 * std::exp(log_half_n);
    return out;
  }
  out.interval = {v[k - 1], v[n - k]};
  out.confidence_reached = 1 - 2 * below_k;
  return out;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kSame:
      return "same";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

Verdict interval_verdict(Interval change, double tolerance, bool lower_is_better) {
  const double low = lower_is_better ? change.low : -change.high;
  const double high = lower_is_better ? change.high : -change.low;
  if (low > tolerance) return Verdict::kRegressed;
  if (high < -tolerance) return Verdict::kImproved;
  if (low >= -tolerance && high <= tolerance) return Verdict::kSame;
  return Verdict::kInconclusive;
}

Verdict rank_verdict(double p_value, double alpha, double change, double tolerance,
                     bool lower_is_better) {
  const double worse = lower_is_better ? change : -change;
  const bool significant = p_value < alpha;
  if (significant && worse > tolerance) return Verdict::kRegressed;
  if (significant && worse < -tolerance) return Verdict::kImproved;
  if (!significant && std::abs(worse) <= tolerance) return Verdict::kSame;
  return Verdict::kInconclusive;
}

}  // namespace hail
