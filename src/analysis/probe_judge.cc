#include "analysis/probe_judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hail {

const char* judgement_name(Judgement judgement) {
  switch (judgement) {
    case Judgement::kPass:
      return "pass";
    case Judgement::kFail:
      return "fail";
    case Judgement::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

Judgement combine(Judgement a, Judgement b) {
  if (a == Judgement::kFail || b == Judgement::kFail) return Judgement::kFail;
  if (a == Judgement::kInconclusive || b == Judgement::kInconclusive) {
    return Judgement::kInconclusive;
  }
  return Judgement::kPass;
}

Interval batch_means_interval(std::span<const WindowCount> windows, double confidence) {
  uint64_t windows_used = 0;
  double total = 0;
  double above = 0;
  for (const WindowCount& w : windows) {
    if (w.total == 0) continue;
    ++windows_used;
    total += static_cast<double>(w.total);
    above += static_cast<double>(std::min(w.above, w.total));
  }
  if (windows_used < 2) return {0, 1};
  const double fraction = above / total;
  // The ratio estimator's variance from the windows' residuals (cluster sampling): each window
  // is one observation of (total, above), however correlated the requests inside it are.
  double squares = 0;
  for (const WindowCount& w : windows) {
    if (w.total == 0) continue;
    const double residual =
        static_cast<double>(std::min(w.above, w.total)) - fraction * static_cast<double>(w.total);
    squares += residual * residual;
  }
  const double m = static_cast<double>(windows_used);
  const double standard_error = std::sqrt(squares * m / (m - 1)) / total;
  const double t = student_t_quantile(1 - (1 - confidence) / 2, m - 1);
  return {std::max(0.0, fraction - t * standard_error),
          std::min(1.0, fraction + t * standard_error)};
}

ProportionJudgement judge_proportion(std::span<const WindowCount> windows, double max_fraction,
                                     const JudgeOptions& options) {
  ProportionJudgement out;
  uint64_t windows_used = 0;
  for (const WindowCount& w : windows) {
    out.total += w.total;
    out.above += std::min(w.above, w.total);
    if (w.total != 0) ++windows_used;
  }
  if (out.total == 0) {
    out.interval = out.binomial = out.batch = {0, 1};
    out.judgement = max_fraction >= 1 ? Judgement::kPass : Judgement::kInconclusive;
    return out;
  }
  out.fraction = static_cast<double>(out.above) / static_cast<double>(out.total);
  out.binomial = clopper_pearson(out.above, out.total, options.confidence);
  out.batch = out.binomial;
  if (windows_used >= std::max<uint64_t>(2, options.min_batch_windows)) {
    out.batch = batch_means_interval(windows, options.confidence);
    out.batch_used = true;
  }
  out.interval = {std::min(out.binomial.low, out.batch.low),
                  std::max(out.binomial.high, out.batch.high)};
  if (max_fraction <= 0) {
    out.judgement = out.above == 0 ? Judgement::kPass : Judgement::kFail;
  } else if (max_fraction >= 1 || out.interval.high <= max_fraction) {
    out.judgement = Judgement::kPass;
  } else if (out.interval.low > max_fraction) {
    out.judgement = Judgement::kFail;
  } else {
    out.judgement = Judgement::kInconclusive;
  }
  return out;
}

uint64_t count_above(const Histogram& histogram, uint64_t limit_ns) {
  uint64_t above = 0;
  const uint64_t lowest = histogram.min();
  const uint64_t highest = histogram.max();
  histogram.for_each_recorded([&](uint64_t value_ns, uint64_t count) {
    if (std::clamp(value_ns, lowest, highest) > limit_ns) above += count;
  });
  return above;
}

MeanJudgement judge_window_mean(std::span<const double> values, double limit, Bound bound,
                                const JudgeOptions& options) {
  MeanJudgement out;
  if (values.empty()) {
    out.interval = {-INFINITY, INFINITY};
    return out;
  }
  double sum = 0;
  for (double v : values) sum += v;
  const double m = static_cast<double>(values.size());
  out.mean = sum / m;
  if (values.size() < 2) {
    out.interval = {-INFINITY, INFINITY};
    return out;
  }
  double squares = 0;
  for (double v : values) squares += (v - out.mean) * (v - out.mean);
  const double half = student_t_quantile(1 - (1 - options.confidence) / 2, m - 1) *
                      std::sqrt(squares / (m - 1)) / std::sqrt(m);
  out.interval = {out.mean - half, out.mean + half};
  const bool holds_surely =
      bound == Bound::kAtMost ? out.interval.high <= limit : out.interval.low >= limit;
  const bool breaks_surely =
      bound == Bound::kAtMost ? out.interval.low > limit : out.interval.high < limit;
  out.judgement = holds_surely    ? Judgement::kPass
                  : breaks_surely ? Judgement::kFail
                                  : Judgement::kInconclusive;
  return out;
}

std::string generator_bound_reason(const GeneratorSignals& signals, const GeneratorLimits& limits) {
  if (signals.cpu_busy < limits.cpu_busy) return "";
  const bool short_of_target =
      signals.achieved_per_s < signals.target_per_s * (1 - limits.shortfall);
  const bool late = signals.lag_p99_ns > limits.lag_p99_ns;
  if (!short_of_target && !late) return "";
  char text[160];
  int n = std::snprintf(text, sizeof text, "hail's CPU %.0f%% busy", signals.cpu_busy * 100);
  if (short_of_target && n > 0 && static_cast<size_t>(n) < sizeof text) {
    n += std::snprintf(text + n, sizeof text - static_cast<size_t>(n), ", sent %.0f of %.0f req/s",
                       signals.achieved_per_s, signals.target_per_s);
  }
  if (late && n > 0 && static_cast<size_t>(n) < sizeof text) {
    std::snprintf(text + n, sizeof text - static_cast<size_t>(n), ", scheduler lag p99 %.1f ms",
                  static_cast<double>(signals.lag_p99_ns) / 1e6);
  }
  return text;
}

}  // namespace hail
