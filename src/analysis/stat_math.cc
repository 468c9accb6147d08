#include "analysis/stat_math.h"

#include <cmath>
#include <cstddef>
#include <limits>

namespace hail {
namespace {

// Solves f(x) = target for an increasing f on [lo, hi] by bisection, to the resolution of doubles:
// slower than Newton but it cannot diverge, and a probe needs a handful of these per threshold.
template <class F>
double bisect_increasing(F f, double target, double lo, double hi) {
  for (int i = 0; i < 2000; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (f(mid) < target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

// The continued fraction of I_x(a, b) (without its prefactor), modified Lentz: converges fast for
// x < (a + 1) / (a + b + 2), in O(sqrt(max(a, b))) terms at worst.
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  const double qab = a + b;
  const double qap = a + 1;
  const double qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 10'000'000; ++m) {
    const double dm = m;
    const double m2 = 2 * dm;
    double aa = dm * (b - dm) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return h;
}

}  // namespace

double log_gamma(double x) {
  // Godfrey's coefficients for g = 607/128 (the set Numerical Recipes, 3rd edition, uses).
  static constexpr double kCoefficients[14] = {
      57.1562356658629235,     -59.5979603554754912,    14.1360979747417471,
      -0.491913816097620199,   .339946499848118887e-4,  .465236289270485756e-4,
      -.983744753048795646e-4, .158088703224912494e-3,  -.210264441724104883e-3,
      .217439618115212643e-3,  -.164318106536763890e-3, .844182239838527433e-4,
      -.261908384015814087e-4, .368991826595316234e-5};
  if (!(x > 0)) return std::numeric_limits<double>::quiet_NaN();
  double y = x;
  double tmp = x + 5.24218750000000000;  // x + g + 1/2
  tmp = (x + 0.5) * std::log(tmp) - tmp;
  double series = 0.999999999999997092;
  for (double c : kCoefficients) series += c / ++y;
  return tmp + std::log(2.5066282746310005 * series / x);  // sqrt(2 pi)
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double inverse_incomplete_beta(double a, double b, double p) {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  return bisect_increasing([&](double x) { return regularized_incomplete_beta(a, b, x); }, p, 0, 1);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return std::numeric_limits<double>::quiet_NaN();
  const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  return bisect_increasing(cdf, p, -40, 40);
}

double student_t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1) || !(dof > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, dof);
  // For t > 0: P(T > t) = I_x(dof/2, 1/2) / 2 with x = dof / (dof + t^2).
  const double x = inverse_incomplete_beta(dof / 2, 0.5, 2 * (1 - p));
  return std::sqrt(dof * (1 - x) / x);
}

Interval clopper_pearson(uint64_t successes, uint64_t trials, double confidence) {
  if (trials == 0 || successes > trials) return {0, 1};
  const double alpha = 1 - confidence;
  const double k = static_cast<double>(successes);
  const double n = static_cast<double>(trials);
  Interval out;
  out.low = successes == 0 ? 0 : inverse_incomplete_beta(k, n - k + 1, alpha / 2);
  out.high = successes == trials ? 1 : inverse_incomplete_beta(k + 1, n - k, 1 - alpha / 2);
  return out;
}

}  // namespace hail
