#include "analysis/histogram_span.h"

#include <algorithm>
#include <limits>

namespace hail {

void HistogramSpan::apply(const EncodedHistogram& window, bool add) {
  if (window.count() == 0) return;
  if (scratch_.highest_trackable_ns() != window.highest_trackable_ns()) {
    scratch_ = Histogram(window.highest_trackable_ns());
  }
  scratch_.reset();
  window.add_to(scratch_);
  if (counts_.size() < scratch_.counts_length()) counts_.resize(scratch_.counts_length(), 0);
  highest_trackable_ns_ = std::max(highest_trackable_ns_, window.highest_trackable_ns());
  if (add) {
    scratch_.for_each_index([this](size_t i, uint64_t n) { counts_[i] += n; });
    total_ += window.count();
  } else {
    scratch_.for_each_index([this](size_t i, uint64_t n) { counts_[i] -= n; });
    total_ -= window.count();
  }
}

void HistogramSpan::push_back(const EncodedHistogram& window) {
  apply(window, true);
  windows_.push_back(window);
}

void HistogramSpan::pop_front() {
  if (windows_.empty()) return;
  apply(windows_.front(), false);
  windows_.pop_front();
}

void HistogramSpan::clear() {
  windows_.clear();
  std::fill(counts_.begin(), counts_.end(), uint64_t{0});
  total_ = 0;
}

uint64_t HistogramSpan::min() const {
  uint64_t lowest = std::numeric_limits<uint64_t>::max();
  for (const EncodedHistogram& w : windows_) {
    if (w.count() != 0) lowest = std::min(lowest, w.min());
  }
  return total_ == 0 ? 0 : lowest;
}

uint64_t HistogramSpan::max() const {
  uint64_t highest = 0;
  for (const EncodedHistogram& w : windows_) highest = std::max(highest, w.max());
  return highest;
}

size_t HistogramSpan::low_index() const {
  return Histogram::index_of(std::min(min(), highest_trackable_ns_));
}

size_t HistogramSpan::high_index() const {
  return Histogram::index_of(std::min(max(), highest_trackable_ns_));
}

uint64_t HistogramSpan::value_at_percentile(double percentile) const {
  if (total_ == 0) return 0;
  // The same walk as Histogram::value_at_percentile, over the same counts and extremes.
  const uint64_t rank = Histogram::rank_at_percentile(percentile, total_);
  const uint64_t lowest = min(), highest = max();
  if (rank == 1) return lowest;
  if (rank >= total_) return highest;
  uint64_t seen = 0;
  for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(Histogram::highest_equivalent(i), lowest, highest);
  }
  return highest;
}

double HistogramSpan::mean() const {
  if (total_ == 0) return 0;
  // Slot midpoints, summed in index order: the same arithmetic as Histogram::mean.
  double sum = 0;
  for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
    if (counts_[i] == 0) continue;
    const uint64_t low = Histogram::lowest_equivalent(i);
    const uint64_t width = Histogram::highest_equivalent(i) - low + 1;
    sum += static_cast<double>(low + (width >> 1)) * static_cast<double>(counts_[i]);
  }
  return sum / static_cast<double>(total_);
}

}  // namespace hail
