// The probe judge: decides whether one threshold holds during a probe (pass), does not (fail), or
// cannot be called from the data (inconclusive), with a confidence interval over the probe's
// windows; and whether a probe was bound by hail itself. Owner: analysis. Pure functions: any
// thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "analysis/stat_math.h"
#include "stats/histogram.h"

namespace hail {

enum class Judgement : uint8_t { kPass, kFail, kInconclusive };

const char* judgement_name(Judgement judgement);  // "pass", "fail", "inconclusive"

// A probe's thresholds together: any failure fails it; else any inconclusive makes it inconclusive.
Judgement combine(Judgement a, Judgement b);

struct JudgeOptions {
  // Two-sided: the interval misses the truth on each side with probability (1 - confidence) / 2,
  // so a pass (or a fail) is wrong with probability at most 2.5 % at 0.95.
  double confidence = 0.95;
  // Below this many non-empty windows the spread between windows says too little (Student's t
  // with 3 degrees of freedom is 3.18): the binomial interval is used alone.
  uint32_t min_batch_windows = 5;
};

// One window's share of a proportion: `above` of `total` events were over the limit.
struct WindowCount {
  uint64_t total = 0;
  uint64_t above = 0;
};

struct ProportionJudgement {
  Judgement judgement = Judgement::kInconclusive;
  uint64_t total = 0;  // summed over the windows
  uint64_t above = 0;
  double fraction = 0;  // above / total: the point estimate
  Interval interval;    // for the true fraction: the union of the two below
  Interval binomial;    // Clopper-Pearson over the pooled counts
  Interval batch;       // batch means over windows; equal to `binomial` when not computed
  bool batch_used = false;
};

// Threshold: "at most max_fraction of the events are over the limit". Both percentile and ratio
// thresholds are this one question:
//  - pQ latency <= L (Q in percent): events are the completed requests, `above` the ones slower
//    than L (count_above(window histogram, L)), max_fraction = 1 - Q/100. The pQ of the merged
//    histogram is <= L exactly when above <= total - rank (see count_above), so the point estimate
//    agrees with the percentile the row shows; the interval says how sure that is.
//  - error rate <= r: events are the requests with an outcome, `above` the failed ones,
//    max_fraction = r.
//
// Why an interval on the fraction over the limit, not on the percentile itself: it is what the
// threshold asks (is the tail heavier than allowed?) and it needs only counts, which merge exactly
// across windows and workers, where percentiles do not. The percentile's own order-statistic
// interval is the same binomial question turned around.
//
// Two intervals, and the decision uses their union (never narrower than either):
//  - Clopper-Pearson on the pooled counts: exact (coverage >= nominal) when requests are
//    independent, and meaningful with zero or a handful of events over the limit.
//  - batch means over windows (the ratio estimator's standard error from the spread of the
//    windows' counts, Student's t with windows - 1 degrees of freedom): requests are not
//    independent -- a queue that builds makes many consecutive requests slow together, a GC pause
//    fails a burst -- so the binomial interval alone is too narrow exactly when it matters. The
//    spread between windows carries any correlation shorter than a window.
// Pass: the whole interval is at or below max_fraction; fail: the whole interval is above it;
// else inconclusive, and so is a probe with no events (total == 0).
// max_fraction <= 0 ("max <= L", "no errors") is an observation, not an estimate: pass exactly
// when above == 0. max_fraction >= 1 always passes.
ProportionJudgement judge_proportion(std::span<const WindowCount> windows, double max_fraction,
                                     const JudgeOptions& options = {});

// The batch-means interval alone (needs two windows with events; [0, 1] otherwise). Public for
// its tests and for reports.
Interval batch_means_interval(std::span<const WindowCount> windows, double confidence);

// How many of the histogram's values count as over limit_ns for a percentile threshold, consistent
// with Histogram::value_at_percentile: a value is over when the value its slot reports (the slot's
// highest value, clamped to [min(), max()]) is over the limit. So for every percentile p:
// value_at_percentile(p) <= limit_ns  <=>  count_above(h, limit_ns) <= count() - rank(p).
uint64_t count_above(const Histogram& histogram, uint64_t limit_ns);

enum class Bound : uint8_t { kAtMost, kAtLeast };

struct MeanJudgement {
  Judgement judgement = Judgement::kInconclusive;
  double mean = 0;
  Interval interval;  // Student's t over the window values
};

// Threshold on a per-window value's mean: "mean <= limit" (kAtMost) or ">= limit" (kAtLeast), e.g.
// achieved requests/s per window, errors/s, a per-window lag. Each window is one observation (batch
// means, as above); fewer than 2 windows is inconclusive.
MeanJudgement judge_window_mean(std::span<const double> values, double limit, Bound bound,
                                const JudgeOptions& options = {});

// Whether a probe measured hail rather than the server. hail is the bottleneck when its own CPU
// is saturated AND it fell short: it sent less than asked, or sent late. Either symptom alone is
// also what a slow server causes in an open loop (every connection busy, planned requests wait for
// one), so neither decides without the CPU.
struct GeneratorSignals {
  double target_per_s = 0;    // what the probe asked for (open loop)
  double achieved_per_s = 0;  // requests sent per second while measuring
  double cpu_busy = 0;        // hail's CPU time / (wall time x its worker threads), 0..1
  uint64_t lag_p99_ns = 0;    // scheduler lag (planned -> sent), p99
};

struct GeneratorLimits {
  double cpu_busy = 0.9;             // at or above: saturated
  double shortfall = 0.05;           // achieved below target x (1 - shortfall): fell short
  uint64_t lag_p99_ns = 10'000'000;  // above: sent late
};

// Empty when the probe was not bound by hail; else a one-line reason, e.g. "hail's CPU 97% busy,
// sent 8123 of 10000 req/s".
std::string generator_bound_reason(const GeneratorSignals& signals,
                                   const GeneratorLimits& limits = {});

}  // namespace hail
