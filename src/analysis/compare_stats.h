// The statistics behind `hail compare`: a seeded, portable random generator, the moving-block
// bootstrap's resampling, percentile intervals, Mann-Whitney U (exact or normal), the median's
// order-statistic interval and the verdict rule with an equivalence margin. Owner: analysis. Pure
// functions and plain values, no I/O, no clock: any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/stat_math.h"

namespace hail {

// std::mt19937_64 is specified to the bit by the standard; the distributions are not, so the
// bounded draw is written here: the same seed gives the same output with any standard library.
class SeededRng {
 public:
  explicit SeededRng(uint64_t seed) : engine_(seed) {}
  // Uniform in [0, bound) (bound > 0), by rejection: no modulo bias.
  uint64_t below(uint64_t bound);

 private:
  std::mt19937_64 engine_;
};

// The moving-block bootstrap's rule for the block length: max(1, round(n^(1/3))) windows, the
// order of the optimal block length for variance-type statistics (Hall, Horowitz & Jing 1995),
// and never more than n.
size_t default_block_windows(size_t windows);

// One moving-block resample of a series of `windows` items: ceil(windows / block) block starts
// drawn uniformly from [0, windows - block], each followed by its block - 1 successors, the
// concatenation cut to `windows` items. Writes the chosen indices to `out` (cleared first).
void block_resample(size_t windows, size_t block, SeededRng& rng, std::vector<size_t>& out);

// The percentile interval of a bootstrap distribution at `confidence` (0.95: the 2.5th and 97.5th
// percentiles, linearly interpolated). Sorts `values`. Empty: [0, 0].
Interval percentile_interval(std::vector<double>& values, double confidence);

// Mann-Whitney U of sample a against sample b: U counts the pairs (a_i, b_j) with a_i > b_j, ties
// counting one half. The two-sided p-value is exact, by enumerating every split of the pooled
// ranks (ties as midranks), when there are at most kMannWhitneyExactSplits splits; otherwise the
// normal approximation with the tie correction and a continuity correction.
inline constexpr uint64_t kMannWhitneyExactSplits = 200000;
struct MannWhitney {
  double u = 0;
  double p_value = 1;
  bool exact = false;
};
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);

// The median of `values` (the mean of the two middle ones for an even count); 0 when empty.
double median(std::span<const double> values);

// A distribution-free interval for the median from order statistics: [x_(k), x_(n+1-k)] with the
// largest k such that P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2. Its coverage is at least
// `confidence`; when n is too small for that (n < 6 at 95 %) it is the whole range [min, max],
// and `confidence_reached` says what that range covers: 1 - 2 * 0.5^n.
struct MedianInterval {
  Interval interval;
  double confidence_reached = 0;
};
MedianInterval median_interval(std::span<const double> values, double confidence);

enum class Verdict { kSame, kImproved, kRegressed, kInconclusive };
std::string_view verdict_name(Verdict v);

// The verdict from an interval of the change and a margin `tolerance` (>= 0), both in the
// metric's change units (relative for most, absolute for error rates). The change is turned to
// "positive is worse" first (lower_is_better false flips it). Then:
//   regressed:    the whole interval is above +tolerance (low > +t);
//   improved:     the whole interval is below -tolerance (high < -t);
//   same:         the whole interval lies within [-t, +t];
//   inconclusive: otherwise (it straddles a margin).
// Boundary cases: an interval ending exactly at a margin is within it.
Verdict interval_verdict(Interval change, double tolerance, bool lower_is_better);

// The verdict of repeated runs (benchstat's model): significant means Mann-Whitney p < alpha.
//   regressed / improved: significant and the change of the medians beyond the margin on that
//   side; same: not significant and the change within the margin; inconclusive: otherwise.
Verdict rank_verdict(double p_value, double alpha, double change, double tolerance,
                     bool lower_is_better);

}  // namespace hail
