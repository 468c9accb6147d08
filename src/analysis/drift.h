// Linear drift of a series over a run (the soak verdicts: a server's RSS, the per-window p99): an
// ordinary least-squares line, its r², whether its slope differs from zero (a two-sided t-test),
// and the slope's confidence interval, whose far end says how much growth could have gone
// unnoticed when the slope is not significant. Consecutive samples of a run are autocorrelated (a
// queue, a heap, a cache stays as it was for a while), which makes an ordinary t-test see trends in
// noise: the slope's standard error is widened for the residuals' lag-1 autocorrelation (the AR(1)
// effective sample size). Owner: analysis. Pure; any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace hail {

struct DriftPoint {
  double t_s = 0;  // seconds from any fixed origin
  double value = 0;
};

struct DriftFit {
  size_t points = 0;
  double slope_per_s = 0;
  double intercept = 0;  // value at t = 0
  double r2 = 0;         // 1 when every point is on the line (or the series is constant)
  // Lag-1 autocorrelation of the residuals in time order; when positive, the test below uses
  // effective_points = points (1 - rho) / (1 + rho) instead of points.
  double residual_autocorrelation = 0;
  double effective_points = 0;
  // Two-sided test of slope == 0 (Student t, effective_points - 2 degrees of freedom).
  double p_value = 1;
  bool significant = false;  // p_value < 1 - confidence
  // The slope's interval at the confidence asked for.
  double slope_low_per_s = 0;
  double slope_high_per_s = 0;
  // The fitted line at the first and last point's time: "p99 rose from 4.1 ms to 6.8 ms".
  double first_fitted = 0;
  double last_fitted = 0;
  double span_s = 0;  // last t - first t
};

// nullopt with fewer than 3 points, or when all points share one time (no line to fit). Points
// must be in time order (the autocorrelation is taken in that order).
// confidence in (0, 1), e.g. 0.95.
std::optional<DriftFit> fit_drift(std::span<const DriftPoint> points, double confidence = 0.95);

}  // namespace hail
