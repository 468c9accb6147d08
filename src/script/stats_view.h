// Read-only statistics handed to a script's done(latency, requests): the numbers behind wrk's
// `latency`/`requests` userdata. Built by the run's driver after the workers are joined and only
// read during MainScript::done(), on the main thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "stats/histogram.h"

namespace hail {

// Values are in the view's reporting unit (microseconds for latency, requests/s for rates).
class StatsView {
 public:
  virtual ~StatsView() = default;
  virtual double min() const = 0;
  virtual double max() const = 0;
  virtual double mean() const = 0;
  virtual double stdev() const = 0;
  virtual double percentile(double percentile) const = 0;  // 0..100
  // Number of distinct recorded values (wrk's `#latency`), and the i-th of them in increasing order
  // with its count (wrk's `latency(i + 1)`); {0, 0} when i >= distinct().
  virtual size_t distinct() const = 0;
  virtual std::pair<double, uint64_t> at(size_t index) const = 0;
};

// A StatsView over a hail::Histogram. Histogram values are divided by `divisor` (1000 turns
// nanoseconds into microseconds) and rounded down to whole units, as wrk's integer statistics are;
// mean and stdev keep their fraction. Percentiles, mean and stdev are the histogram's own, so the
// script sees the numbers hail's report prints. The histogram must outlive the view.
class HistogramStatsView : public StatsView {
 public:
  HistogramStatsView(const Histogram& histogram, double divisor);

  double min() const override;
  double max() const override;
  double mean() const override;
  double stdev() const override;
  double percentile(double percentile) const override;
  size_t distinct() const override;
  std::pair<double, uint64_t> at(size_t index) const override;

 private:
  double whole_units(uint64_t value) const;
  const std::vector<std::pair<double, uint64_t>>& values() const;

  const Histogram& histogram_;
  double divisor_;
  // Filled on the first distinct()/at(): scripts walk `for i = 1, #latency` and each step must not
  // rescan the histogram's ~45k slots.
  mutable std::vector<std::pair<double, uint64_t>> values_;
  mutable bool values_built_ = false;
};

}  // namespace hail
