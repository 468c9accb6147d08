// Latency histogram with HdrHistogram's layout (3 significant digits, nanosecond values), written
// here because Debian 12 packages no HdrHistogram_c (only the Java and Go ports).
// One writer: each worker's Recorder owns its histograms; the main thread merges them after join.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace hail {

// Layout: slot values are exact below 2048 ns (bucket 0, unit steps). Bucket b >= 1 covers
// [1024 << b, 2048 << b) in steps of 2^b, so a slot's width is at most 1/1024 of any value in it:
// the relative error bound. Bucket b stores only that upper half (its lower half is bucket b-1),
// which makes the flat index simply (b << 10) + (v >> b).
//
// This is exactly HdrHistogram's layout for (lowest discernible value 1, significant digits 3):
// unitMagnitude 0, subBucketCount 2048, subBucketHalfCountMagnitude 10, and index_of() is its
// countsArrayIndex(). Only the array length differs: HdrHistogram rounds the highest trackable
// value up to whole buckets, (buckets + 1) * 1024 slots (34,816 for 2^42, covering values below
// 2^43), while this array ends at the slot of highest_trackable_ns (33,793 slots for 2^42) and
// counts larger values in that slot as out_of_range(). Encoded counts (histogram_codec.h) only
// reach the slot of the maximum, so HdrHistogram reads ours; a foreign encoding with counts past
// our last slot is refused rather than guessed.
//
// Memory: the counts are mapped from the kernel on construction, so a page costs RAM only once a
// count in it is written: 264 KiB of address space per default histogram, and at most 8 KiB
// resident per doubling of latency its values span (one bucket), e.g. ~50 KiB for 20 us to 2 ms.
// Every walk (reset, merge, copy, percentiles, mean) covers only the slots between the minimum's
// and the maximum's, the only ones that can be non-zero, and writes only non-empty slots. One
// mapping per histogram: fine for the hundreds a run holds, not for keeping tens of thousands.
class Histogram {
 public:
  static constexpr int kSubBucketBits = 11;  // 2048 sub-buckets: smallest 2^k >= 2 * 10^3
  static constexpr uint64_t kSubBucketMask = (uint64_t{1} << kSubBucketBits) - 1;
  static constexpr uint64_t kDefaultHighestTrackableNs = uint64_t{1} << 42;  // 73 minutes

  explicit Histogram(uint64_t highest_trackable_ns = kDefaultHighestTrackableNs);
  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  // A moved-from histogram owns no counts: it reads as empty and may be assigned to or destroyed,
  // but not recorded into.
  Histogram(Histogram&& other) noexcept;
  Histogram& operator=(Histogram&& other) noexcept;
  ~Histogram();

  // Hot path: no allocation, no division. Values above highest_trackable_ns() land in the top slot
  // and are counted in out_of_range(); min() and max() still see the true value.
  void record(uint64_t value_ns) { add(value_ns, 1); }
  void record_n(uint64_t value_ns, uint64_t count) {
    if (count != 0) add(value_ns, count);
  }

  // Adds another histogram's data; both must have the same highest_trackable_ns (aborts otherwise).
  void merge(const Histogram& other);
  void reset();

  uint64_t count() const { return total_count_; }
  // Exact extremes of the recorded values; 0 when empty.
  uint64_t min() const { return total_count_ == 0 ? 0 : min_ns_; }
  uint64_t max() const { return max_ns_; }
  // Over slot midpoints, as HdrHistogram does; 0 when empty. stdev is the population deviation.
  double mean() const;
  double stdev() const;
  // The value at rank ceil(p/100 * count()) (at least 1) in sorted order: the highest value of its
  // slot, clamped to [min(), max()], so p0 is min() and p100 is max(). p is clamped to 0..100.
  uint64_t value_at_percentile(double percentile) const;
  uint64_t out_of_range() const { return out_of_range_; }
  uint64_t highest_trackable_ns() const { return highest_trackable_ns_; }
  // Address space reserved for the counts (resident memory is only the pages written).
  size_t memory_bytes() const { return sizeof(*this) + counts_length_ * sizeof(uint64_t); }

  // Calls f(value_ns, count) for every non-empty slot in increasing order; value_ns is the highest
  // value of the slot (the same value value_at_percentile() reports before clamping).
  template <class F>
  void for_each_recorded(F f) const {
    if (total_count_ == 0) return;
    for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
      if (counts_[i] != 0) f(highest_equivalent(i), counts_[i]);
    }
  }

  // Slot-level access, for the codec (histogram_codec.h) and other exact transforms.
  size_t counts_length() const { return counts_length_; }
  uint64_t count_at_index(size_t index) const { return counts_[index]; }
  // Calls f(index, count) for every non-empty slot in increasing index order.
  template <class F>
  void for_each_index(F f) const {
    if (total_count_ == 0) return;
    for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
      if (counts_[i] != 0) f(i, counts_[i]);
    }
  }
  // Adds `count` values to slot `index` (< counts_length()) without touching min() and max():
  // a decoder adds every slot, then calls widen_extremes() once with the extremes of what it added
  // (the exact ones when it has them, else the lowest and highest values of the outer slots, as
  // HdrHistogram does when it decodes counts). Until then the extremes do not cover the new slots.
  void add_at_index(size_t index, uint64_t count) {
    counts_[index] += count;
    total_count_ += count;
  }
  // min() and max() take in [min_ns, max_ns], and out_of_range() grows by out_of_range_count.
  void widen_extremes(uint64_t min_ns, uint64_t max_ns, uint64_t out_of_range_count) {
    min_ns_ = min_ns < min_ns_ ? min_ns : min_ns_;
    max_ns_ = max_ns > max_ns_ ? max_ns : max_ns_;
    out_of_range_ += out_of_range_count;
  }

  static size_t index_of(uint64_t value_ns) {
    // bucket = position of the highest set bit above the 11 bits of bucket 0.
    const int bucket = 64 - kSubBucketBits - std::countl_zero(value_ns | kSubBucketMask);
    return (static_cast<size_t>(bucket) << (kSubBucketBits - 1)) + (value_ns >> bucket);
  }
  static uint64_t lowest_equivalent(size_t index);
  static uint64_t highest_equivalent(size_t index);
  // The rank (1-based, at least 1) that value_at_percentile() reports for p of `total` values.
  static uint64_t rank_at_percentile(double percentile, uint64_t total);

 private:
  void add(uint64_t value_ns, uint64_t count) {
    min_ns_ = value_ns < min_ns_ ? value_ns : min_ns_;
    max_ns_ = value_ns > max_ns_ ? value_ns : max_ns_;
    if (value_ns > highest_trackable_ns_) [[unlikely]] {
      out_of_range_ += count;
      value_ns = highest_trackable_ns_;
    }
    counts_[index_of(value_ns)] += count;
    total_count_ += count;
  }

  // The slots that can be non-zero, [low_index(), high_index()]; only meaningful when count() > 0.
  size_t low_index() const {
    return index_of(min_ns_ < highest_trackable_ns_ ? min_ns_ : highest_trackable_ns_);
  }
  size_t high_index() const {
    return index_of(max_ns_ < highest_trackable_ns_ ? max_ns_ : highest_trackable_ns_);
  }
  static int bucket_of_index(size_t index);

  uint64_t highest_trackable_ns_;
  size_t counts_length_;
  uint64_t* counts_;  // counts_length_ slots from map_counts(); nullptr once moved from
  uint64_t total_count_ = 0;
  uint64_t out_of_range_ = 0;
  uint64_t min_ns_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ns_ = 0;
};

}  // namespace hail
