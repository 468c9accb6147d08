#include "script/stats_view.h"

#include <algorithm>
#include <cmath>

namespace hail {

HistogramStatsView::HistogramStatsView(const Histogram& histogram, double divisor)
    : histogram_(histogram), divisor_(divisor > 0 ? divisor : 1) {}

double HistogramStatsView::whole_units(uint64_t value) const {
  return std::floor(static_cast<double>(value) / divisor_);
}

double HistogramStatsView::min() const {
  return whole_units(histogram_.min());
}

double HistogramStatsView::max() const {
  return whole_units(histogram_.max());
}

double HistogramStatsView::mean() const {
  return histogram_.mean() / divisor_;
}

double HistogramStatsView::stdev() const {
  return histogram_.stdev() / divisor_;
}

double HistogramStatsView::percentile(double percentile) const {
  return whole_units(histogram_.value_at_percentile(percentile));
}

size_t HistogramStatsView::distinct() const {
  return values().size();
}

std::pair<double, uint64_t> HistogramStatsView::at(size_t index) const {
  const auto& all = values();
  if (index >= all.size()) return {0, 0};
  return all[index];
}

const std::vector<std::pair<double, uint64_t>>& HistogramStatsView::values() const {
  if (values_built_) return values_;
  values_built_ = true;
  if (histogram_.count() == 0) return values_;
  const uint64_t lowest = histogram_.min();
  const uint64_t highest = histogram_.max();
  histogram_.for_each_recorded([&](uint64_t value, uint64_t count) {
    // Clamped like value_at_percentile(), so at() never reports beyond min()..max(); several slots
    // can then share one whole unit and are merged.
    const double unit = whole_units(std::clamp(value, lowest, highest));
    if (!values_.empty() && values_.back().first == unit) {
      values_.back().second += count;
    } else {
      values_.emplace_back(unit, count);
    }
  });
  return values_;
}

}  // namespace hail
