#include "stats/histogram.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <utility>

namespace hail {

namespace {
// ceil(p/100 * n), where p came from decimal text: 99.9 is not exact in binary, so 99.9% of 1000
// computes as 999.0000000000001 and would become rank 1000. x carries at most ~3 roundings
// (< 4e-16 relative), so a value within 1e-15 relative of an integer is that integer; real
// fractions are far larger unless n exceeds ~1e10 with 3-decimal percentiles.
uint64_t rank_for(double percentile, uint64_t total) {
  const double x = percentile * static_cast<double>(total) / 100.0;
  const double nearest = std::round(x);
  if (std::fabs(x - nearest) <= 1e-15 * std::max(1.0, x)) return static_cast<uint64_t>(nearest);
  return static_cast<uint64_t>(std::ceil(x));
}

// Zeroed counts straight from the kernel: untouched pages cost no RAM. Not calloc: once a larger
// block has been freed, glibc raises its mmap threshold and serves calloc from its heap, clearing
// the block with memset, which makes every page resident.
uint64_t* map_counts(size_t length) {
  void* p = mmap(nullptr, length * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<uint64_t*>(p);
}

void unmap_counts(uint64_t* counts, size_t length) {
  if (counts != nullptr) munmap(counts, length * sizeof(uint64_t));
}
}  // namespace

Histogram::Histogram(uint64_t highest_trackable_ns)
    : highest_trackable_ns_(highest_trackable_ns),
      counts_length_(index_of(highest_trackable_ns) + 1),
      counts_(map_counts(counts_length_)) {}

Histogram::Histogram(const Histogram& other)
    : highest_trackable_ns_(other.highest_trackable_ns_),
      counts_length_(other.counts_length_),
      counts_(map_counts(counts_length_)) {
  merge(other);
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this == &other) return *this;
  if (counts_ == nullptr || highest_trackable_ns_ != other.highest_trackable_ns_) {
    uint64_t* fresh = map_counts(other.counts_length_);
    unmap_counts(counts_, counts_length_);
    counts_ = fresh;
    counts_length_ = other.counts_length_;
    highest_trackable_ns_ = other.highest_trackable_ns_;
    total_count_ = 0;
    out_of_range_ = 0;
    min_ns_ = std::numeric_limits<uint64_t>::max();
    max_ns_ = 0;
  } else {
    reset();
  }
  merge(other);
  return *this;
}

Histogram::Histogram(Histogram&& other) noexcept
    : highest_trackable_ns_(other.highest_trackable_ns_),
      counts_length_(other.counts_length_),
      counts_(std::exchange(other.counts_, nullptr)),
      total_count_(std::exchange(other.total_count_, 0)),
      out_of_range_(std::exchange(other.out_of_range_, 0)),
      min_ns_(std::exchange(other.min_ns_, std::numeric_limits<uint64_t>::max())),
      max_ns_(std::exchange(other.max_ns_, 0)) {}

Histogram& Histogram::operator=(Histogram&& other) noexcept {
  if (this == &other) return *this;
  unmap_counts(counts_, counts_length_);
  highest_trackable_ns_ = other.highest_trackable_ns_;
  counts_length_ = other.counts_length_;
  counts_ = std::exchange(other.counts_, nullptr);
  total_count_ = std::exchange(other.total_count_, 0);
  out_of_range_ = std::exchange(other.out_of_range_, 0);
  min_ns_ = std::exchange(other.min_ns_, std::numeric_limits<uint64_t>::max());
  max_ns_ = std::exchange(other.max_ns_, 0);
  return *this;
}

Histogram::~Histogram() {
  unmap_counts(counts_, counts_length_);
}

// Slots [0, 2048) are bucket 0; after that each run of 1024 slots is one bucket.
int Histogram::bucket_of_index(size_t index) {
  const auto bucket = static_cast<int>(index >> (kSubBucketBits - 1)) - 1;
  return bucket < 0 ? 0 : bucket;
}

uint64_t Histogram::lowest_equivalent(size_t index) {
  const int bucket = bucket_of_index(index);
  const uint64_t sub_bucket = index - (static_cast<size_t>(bucket) << (kSubBucketBits - 1));
  return sub_bucket << bucket;
}

uint64_t Histogram::highest_equivalent(size_t index) {
  return lowest_equivalent(index) + ((uint64_t{1} << bucket_of_index(index)) - 1);
}

uint64_t Histogram::rank_at_percentile(double percentile, uint64_t total) {
  if (!(percentile > 0)) percentile = 0;  // also catches NaN
  if (percentile > 100) percentile = 100;
  return std::max<uint64_t>(1, rank_for(percentile, total));
}

void Histogram::merge(const Histogram& other) {
  // A shape mismatch is a programming error, and adding arrays of different lengths would corrupt
  // memory, so this check stays on in release builds.
  if (other.highest_trackable_ns_ != highest_trackable_ns_) std::abort();
  if (other.total_count_ == 0) return;
  // Empty slots are skipped rather than added: writing a zero would make its page resident.
  for (size_t i = other.low_index(), end = other.high_index(); i <= end; ++i) {
    if (other.counts_[i] != 0) counts_[i] += other.counts_[i];
  }
  total_count_ += other.total_count_;
  out_of_range_ += other.out_of_range_;
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

void Histogram::reset() {
  // Only the non-empty slots are written: between far-apart extremes (1 us and 10 s) a memset
  // would make every page of the range resident, where reading an untouched page costs nothing.
  if (total_count_ != 0) {
    for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
      if (counts_[i] != 0) counts_[i] = 0;
    }
  }
  total_count_ = 0;
  out_of_range_ = 0;
  min_ns_ = std::numeric_limits<uint64_t>::max();
  max_ns_ = 0;
}

double Histogram::mean() const {
  if (total_count_ == 0) return 0;
  double sum = 0;
  for_each_index([&sum](size_t i, uint64_t count) {
    const uint64_t midpoint = lowest_equivalent(i) + ((uint64_t{1} << bucket_of_index(i)) >> 1);
    sum += static_cast<double>(midpoint) * static_cast<double>(count);
  });
  return sum / static_cast<double>(total_count_);
}

double Histogram::stdev() const {
  if (total_count_ == 0) return 0;
  const double average = mean();
  double sum_squares = 0;
  for_each_index([&](size_t i, uint64_t count) {
    const uint64_t midpoint = lowest_equivalent(i) + ((uint64_t{1} << bucket_of_index(i)) >> 1);
    const double deviation = static_cast<double>(midpoint) - average;
    sum_squares += deviation * deviation * static_cast<double>(count);
  });
  return std::sqrt(sum_squares / static_cast<double>(total_count_));
}

uint64_t Histogram::value_at_percentile(double percentile) const {
  if (total_count_ == 0) return 0;
  const uint64_t rank = rank_at_percentile(percentile, total_count_);
  // The extreme ranks are known exactly, whatever the slot width.
  if (rank == 1) return min();
  if (rank >= total_count_) return max_ns_;
  uint64_t seen = 0;
  for (size_t i = low_index(), end = high_index(); i <= end; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(highest_equivalent(i), min(), max_ns_);
  }
  return max_ns_;  // unreachable: the counts sum to total_count_
}

}  // namespace hail
