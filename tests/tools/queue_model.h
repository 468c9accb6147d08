// The pure part of the test-only queueing server (queue_server.cc): a FIFO queue in front of K
// simulated servers (K = 1 by default), its service-time sampler (fixed, or exponential from a
// seeded generator), and a log-linear histogram for the server's own sojourn-time percentiles.
// No I/O, no clock: the caller passes times in (CLOCK_MONOTONIC ns). Owner: tests. Single thread.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace queue_server {

// xoshiro256** seeded through splitmix64: written out here (not std::mt19937 +
// std::exponential_distribution, whose output differs between standard libraries) so that
// --seed N gives the same service times everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    const uint64_t result = std::rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = std::rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_[4];
};

enum class ServiceKind { kFixed, kExponential };

// Service times S: fixed D, or exponential with mean D (inverse transform: -D ln(1 - U)).
// Capacity is mu = 1 / D either way.
class ServiceSampler {
 public:
  ServiceSampler(ServiceKind kind, uint64_t mean_ns, uint64_t seed)
      : kind_(kind), mean_ns_(mean_ns), rng_(seed) {}

  uint64_t next_ns() {
    if (kind_ == ServiceKind::kFixed) return mean_ns_;
    return static_cast<uint64_t>(
        std::llround(-static_cast<double>(mean_ns_) * std::log1p(-rng_.uniform())));
  }

 private:
  ServiceKind kind_;
  uint64_t mean_ns_;
  Rng rng_;
};

// Counts of values in buckets of relative width at most 2^-8 (0.4 %): values below 512 ns
// exactly, then 256 buckets per power of two. About 14,600 buckets cover 0..2^63 ns, so memory is
// fixed (115 KiB) however long the server runs. Percentiles report the middle of their bucket.
class LogHistogram {
 public:
  LogHistogram() : counts_(index_of(UINT64_MAX) + 1, 0) {}

  void record(uint64_t value) {
    ++counts_[index_of(value)];
    ++count_;
    sum_ += static_cast<double>(value);
    if (value > max_) max_ = value;
  }

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }

  // The value at quantile q (0 < q <= 1): the smallest bucket where the cumulative count reaches
  // ceil(q * count), reported as that bucket's middle (clamped to the exact max).
  uint64_t percentile(double q) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank && counts_[i] > 0) {
        const uint64_t middle = lowest_of(i) + width_of(i) / 2;
        return middle < max_ ? middle : max_;
      }
    }
    return max_;
  }

 private:
  static constexpr int kSubBits = 9;  // 512 exact values, then 256 buckets per power of two
  static constexpr uint64_t kExact = uint64_t{1} << kSubBits;
  static constexpr uint64_t kHalf = kExact / 2;

  // v >= 512: with shift = msb(v) - 8, the top nine bits (v >> shift) lie in [256, 511].
  static size_t index_of(uint64_t v) {
    if (v < kExact) return static_cast<size_t>(v);
    const int shift = (63 - std::countl_zero(v)) - (kSubBits - 1);
    return static_cast<size_t>(kExact + (static_cast<uint64_t>(shift) - 1) * kHalf +
                               ((v >> shift) - kHalf));
  }
  static uint64_t lowest_of(size_t i) {
    if (i < kExact) return i;
    const uint64_t shift = (i - kExact) / kHalf + 1;
    return (kHalf + (i - kExact) % kHalf) << shift;
  }
  static uint64_t width_of(size_t i) {
    return i < kExact ? 1 : uint64_t{1} << ((i - kExact) / kHalf + 1);
  }

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0;
  uint64_t max_ = 0;
};

// One FIFO queue in front of K identical servers (K = 1: the single server of M/M/1, D/D/1),
// work-conserving: jobs start in arrival order, each on the server that frees up first, at
// max(arrival, that server's free time), and complete S later. With K = 1 completions are
// non-decreasing in arrival order; with K > 1 a short job can overtake a long one, so the jobs
// waiting for their completion are kept in a min-heap (ties in admission order).
struct Job {
  uint64_t conn_id;
  uint64_t seq;  // the request's place on its connection (responses leave in that order)
  uint64_t arrival_ns;
  uint64_t service_ns;
  uint64_t completion_ns;
  bool waited;         // found every server busy (queued before its service started)
  uint32_t in_system;  // jobs in the system just after this arrival, this one included
  uint64_t order;      // admission number: breaks ties between equal completion times
};

class FifoStation {
 public:
  explicit FifoStation(unsigned servers = 1) : free_at_ns_(servers == 0 ? 1 : servers, 0) {}

  unsigned servers() const { return static_cast<unsigned>(free_at_ns_.size()); }

  Job admit(uint64_t conn_id, uint64_t seq, uint64_t arrival_ns, uint64_t service_ns) {
    // The server that frees up first (free_at_ns_ is a min-heap).
    std::pop_heap(free_at_ns_.begin(), free_at_ns_.end(), std::greater<>());
    const uint64_t free_ns = free_at_ns_.back();
    const bool waited = arrival_ns < free_ns;
    const uint64_t completion_ns = (waited ? free_ns : arrival_ns) + service_ns;
    free_at_ns_.back() = completion_ns;
    std::push_heap(free_at_ns_.begin(), free_at_ns_.end(), std::greater<>());

    // In the system at this arrival: the jobs not yet complete in model time (whether or not
    // their responses have gone out), plus this one.
    while (!in_system_ns_.empty() && in_system_ns_.top() <= arrival_ns) in_system_ns_.pop();
    in_system_ns_.push(completion_ns);

    const Job job{conn_id, seq, arrival_ns, service_ns, completion_ns, waited,
                  static_cast<uint32_t>(in_system_ns_.size()), next_order_++};
    due_.push_back(job);
    std::push_heap(due_.begin(), due_.end(), Later());
    return job;
  }

  bool empty() const { return due_.empty(); }
  size_t size() const { return due_.size(); }
  // The job due first (smallest completion time, then earliest admitted).
  const Job& front() const { return due_.front(); }
  Job pop() {
    std::pop_heap(due_.begin(), due_.end(), Later());
    Job job = due_.back();
    due_.pop_back();
    return job;
  }

 private:
  struct Later {
    bool operator()(const Job& a, const Job& b) const {
      return a.completion_ns != b.completion_ns ? a.completion_ns > b.completion_ns
                                                : a.order > b.order;
    }
  };

  std::vector<uint64_t> free_at_ns_;  // one entry per server
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> in_system_ns_;
  std::vector<Job> due_;  // heap ordered by Later
  uint64_t next_order_ = 0;
};

}  // namespace queue_server
