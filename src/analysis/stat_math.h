// Special functions behind the probe judge's confidence intervals: log-gamma, the regularized
// incomplete beta function and the quantiles built on it (normal, Student t, binomial via
// Clopper-Pearson). Owner: analysis. Pure functions, no global state (no lgamma/signgam): any
// thread.
#pragma once

#include <cstdint>

namespace hail {

// A closed interval [low, high] of a quantity (here a proportion or a mean).
struct Interval {
  double low = 0;
  double high = 0;
};

// ln Gamma(x) for x > 0 (Lanczos, g = 607/128, 15 terms: relative error ~1e-15). Own rather than
// std::lgamma because glibc's lgamma writes the global signgam, a data race between threads.
double log_gamma(double x);

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]: the CDF of
// Beta(a, b) at x. Continued fraction (modified Lentz), evaluated on whichever side of the mean
// converges fast; accurate to ~1e-13 relative for the a, b a probe produces (up to ~1e9).
double regularized_incomplete_beta(double a, double b, double x);

// The x with I_x(a, b) = p (p in [0, 1]), by bisection on [0, 1] to the double's resolution.
double inverse_incomplete_beta(double a, double b, double p);

// Phi^-1(p): the standard normal quantile, p in (0, 1) (bisection on erfc, to ~1e-15).
double normal_quantile(double p);

// The quantile of Student's t with dof > 0 degrees of freedom, p in (0, 1).
double student_t_quantile(double p, double dof);

// Clopper-Pearson ("exact") two-sided interval for a binomial proportion: `successes` of `trials`
// at `confidence` (e.g. 0.95: each side errs with probability at most 0.025). Its coverage is at
// least the nominal for every true proportion, which is why it is used here rather than Wilson's
// (which undercovers near 0, where tail percentiles live). trials == 0 gives [0, 1].
Interval clopper_pearson(uint64_t successes, uint64_t trials, double confidence);

}  // namespace hail
