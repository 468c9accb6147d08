// HistogramSpan: the exact sum of a run of consecutive windows' histograms, for sliding-window
// SLOs: windows join at the back and leave at the front, and the span answers percentiles, mean and
// extremes exactly as a Histogram holding every value of its windows would.
// Owner: analysis (SloEvaluator). One thread at a time; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "stats/histogram.h"
#include "stats/histogram_codec.h"

namespace hail {

// Why counts are added and subtracted rather than each span merged anew: a span of k windows moves
// by one window at a time, so re-merging costs k decodes per window (a 1 h span of 1 s windows over
// a day: 3600 x 86,400 decodes), where adding the new window and subtracting the oldest costs two.
// Memory: the windows' encoded histograms (kept for the subtraction; a few KB each, see
// time_series.h) plus one dense count array (8 bytes per slot: 264 KiB for the default layout,
// allocated by the first non-empty window and zero-filled, so all of it resident) and one scratch
// Histogram (address space only; its pages become resident as windows are decoded into it).
class HistogramSpan {
 public:
  HistogramSpan() = default;

  void push_back(const EncodedHistogram& window);
  // Removes the oldest window; no-op when empty.
  void pop_front();
  void clear();

  size_t windows() const { return windows_.size(); }
  uint64_t count() const { return total_; }
  // Exact extremes over the windows (0 when empty), as Histogram::min()/max().
  uint64_t min() const;
  uint64_t max() const;
  // Exactly Histogram::value_at_percentile() and Histogram::mean() of the windows merged.
  uint64_t value_at_percentile(double percentile) const;
  double mean() const;

 private:
  void apply(const EncodedHistogram& window, bool add);
  // Slot range that can hold counts, given the exact extremes (values past the layout sit in its
  // top slot, as Histogram keeps them).
  size_t low_index() const;
  size_t high_index() const;

  std::deque<EncodedHistogram> windows_;
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  uint64_t highest_trackable_ns_ = 0;  // the largest layout seen
  Histogram scratch_;                  // decodes one window at a time
};

}  // namespace hail
