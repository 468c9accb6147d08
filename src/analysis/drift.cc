#include "analysis/drift.h"

#include <algorithm>
#include <cmath>

#include "analysis/stat_math.h"

namespace hail {

std::optional<DriftFit> fit_drift(std::span<const DriftPoint> points, double confidence) {
  const size_t n = points.size();
  if (n < 3) return std::nullopt;
  // Centred sums: numerically stable for long runs whose times and values are large.
  double mean_t = 0;
  double mean_v = 0;
  for (const DriftPoint& p : points) {
    mean_t += p.t_s;
    mean_v += p.value;
  }
  mean_t /= static_cast<double>(n);
  mean_v /= static_cast<double>(n);
  double stt = 0;
  double stv = 0;
  double svv = 0;
  for (const DriftPoint& p : points) {
    const double dt = p.t_s - mean_t;
    const double dv = p.value - mean_v;
    stt += dt * dt;
    stv += dt * dv;
    svv += dv * dv;
  }
  if (!(stt > 0)) return std::nullopt;
  DriftFit fit;
  fit.points = n;
  fit.slope_per_s = stv / stt;
  fit.intercept = mean_v - fit.slope_per_s * mean_t;
  const double residual = std::max(0.0, svv - fit.slope_per_s * stv);
  fit.r2 = svv > 0 ? 1.0 - residual / svv : 1.0;
  // Residuals' lag-1 autocorrelation; positive correlation means fewer independent samples.
  double lagged = 0;
  for (size_t i = 1; i < n; ++i) {
    lagged += (points[i].value - fit.intercept - fit.slope_per_s * points[i].t_s) *
              (points[i - 1].value - fit.intercept - fit.slope_per_s * points[i - 1].t_s);
  }
  fit.residual_autocorrelation = residual > 0 ? std::clamp(lagged / residual, -1.0, 1.0) : 0.0;
  const double rho = std::clamp(fit.residual_autocorrelation, 0.0, 0.99);
  fit.effective_points = std::max(3.0, static_cast<double>(n) * (1 - rho) / (1 + rho));
  const double dof = fit.effective_points - 2;
  const double slope_se =
      std::sqrt(residual / static_cast<double>(n - 2) / stt * (1 + rho) / (1 - rho));
  const double t_crit = student_t_quantile(0.5 + confidence / 2, dof);
  fit.slope_low_per_s = fit.slope_per_s - t_crit * slope_se;
  fit.slope_high_per_s = fit.slope_per_s + t_crit * slope_se;
  if (slope_se > 0) {
    const double t = fit.slope_per_s / slope_se;
    // P(|T| >= |t|) for Student's t with dof degrees of freedom.
    fit.p_value = regularized_incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
  } else {
    fit.p_value = fit.slope_per_s != 0 ? 0.0 : 1.0;  // a perfect line: certain, unless flat
  }
  fit.significant = fit.p_value < 1 - confidence;
  double first_t = points[0].t_s;
  double last_t = points[0].t_s;
  for (const DriftPoint& p : points) {
    first_t = std::min(first_t, p.t_s);
    last_t = std::max(last_t, p.t_s);
  }
  fit.span_s = last_t - first_t;
  fit.first_fitted = fit.intercept + fit.slope_per_s * first_t;
  fit.last_fitted = fit.intercept + fit.slope_per_s * last_t;
  return fit;
}

}  // namespace hail
