// Latency histogram with HdrHistogram's layout (3 significant digits, nanosecond values), written
// here because Debian 12 packages no HdrHistogram_c (only the Java and Go ports).
// One writer: each worker's Recorder owns its histograms; the main thread merges them after join.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hail {

// Layout: slot values are exact below 2048 ns (bucket 0, unit steps). Bucket b >= 1 covers
// [1024 << b, 2048 << b) in steps of 2^b, so a slot's width is at most 1/1024 of any value in it:
// the relative error bound. Bucket b stores only that upper half (its lower half is bucket b-1),
// which makes the flat index simply (b << 10) + (v >> b).
class Histogram {
 public:
  static constexpr int kSubBucketBits = 11;  // 2048 sub-buckets: smallest 2^k >= 2 * 10^3
  static constexpr uint64_t kSubBucketMask = (uint64_t{1} << kSubBucketBits) - 1;

  explicit Histogram(uint64_t highest_trackable_ns = uint64_t{1} << 42);

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
  size_t memory_bytes() const { return sizeof(*this) + counts_.capacity() * sizeof(uint64_t); }

  // Calls f(value_ns, count) for every non-empty slot in increasing order; value_ns is the highest
  // value of the slot (the same value value_at_percentile() reports before clamping).
  template <class F>
  void for_each_recorded(F f) const {
    for (size_t i = 0; i < counts_.size(); ++i) {
      if (counts_[i] != 0) f(highest_equivalent(i), counts_[i]);
    }
  }

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

  static size_t index_of(uint64_t value_ns) {
    // bucket = position of the highest set bit above the 11 bits of bucket 0.
    const int bucket = 64 - kSubBucketBits - std::countl_zero(value_ns | kSubBucketMask);
    return (static_cast<size_t>(bucket) << (kSubBucketBits - 1)) + (value_ns >> bucket);
  }
  static int bucket_of_index(size_t index);
  static uint64_t lowest_equivalent(size_t index);
  static uint64_t highest_equivalent(size_t index);

  uint64_t highest_trackable_ns_;
  std::vector<uint64_t> counts_;
  uint64_t total_count_ = 0;
  uint64_t out_of_range_ = 0;
  uint64_t min_ns_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ns_ = 0;
};

}  // namespace hail
