// WakeGap: how far apart the rate scheduler's wake-ups must be. Requests planned closer together
// than the gap go out together at the later wake-up: each wake-up costs the kernel more than a
// request, so grouping keeps a busy worker able to hold its rate, while a worker with room to
// spare wakes for each request and sends it on time. Pure (fed the clock and the thread's CPU
// time); owned by one RatePacer, its worker's thread only.
#pragma once

#include <cstdint>

#include "core/clock.h"

namespace hail {

class WakeGap {
 public:
  static constexpr uint64_t kMinGapNs = 10 * kNsPerUs;
  static constexpr uint64_t kMaxGapNs = 50 * kNsPerUs;
  // The busy share (CPU time / wall time) is estimated over periods of this length.
  static constexpr uint64_t kSampleNs = 10 * kNsPerMs;
  // Below the first share the gap is the smallest, above the second the largest, linear between:
  // a gradual rise, so that the extra wake-ups and the busy share settle instead of swinging.
  static constexpr double kRoomyBusy = 0.6;
  static constexpr double kBusyBusy = 0.9;

  uint64_t gap_ns() const { return gap_ns_; }
  double busy() const { return busy_; }
  // Whether sample() wants a new reading (reading the thread's CPU time is a system call).
  bool sample_due(uint64_t now_ns) const { return now_ns >= next_sample_ns_; }
  // The thread's CPU time (any origin, monotonic) at now_ns.
  void sample(uint64_t now_ns, uint64_t cpu_ns);

 private:
  uint64_t gap_ns_ = kMaxGapNs;  // until a period has been measured, the cautious choice
  double busy_ = 1.0;
  bool primed_ = false;
  uint64_t last_now_ns_ = 0;
  uint64_t last_cpu_ns_ = 0;
  uint64_t next_sample_ns_ = 0;
};

}  // namespace hail
