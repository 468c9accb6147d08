// Time sources. Hot-path code takes `now_ns` values as arguments (so pure code never reads a
// clock); the event loop reads MonotonicClock once per wake-up. ManualClock drives tests. Stateless
// / single-owner: any thread.
#pragma once

#include <time.h>

#include <cstdint>

namespace hail {

inline constexpr uint64_t kNsPerUs = 1000;
inline constexpr uint64_t kNsPerMs = 1000 * kNsPerUs;
inline constexpr uint64_t kNsPerSec = 1000 * kNsPerMs;

// CLOCK_MONOTONIC through the vDSO: ~20 ns, nanosecond resolution, never jumps with wall-clock
// changes.
inline uint64_t mono_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}

// CLOCK_REALTIME: only to stamp when a run started, so that server logs can be lined up with it.
inline uint64_t unix_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}

// A clock that only moves when told to: for schedulers and timers under test.
class ManualClock {
 public:
  explicit ManualClock(uint64_t start_ns = 0) : now_ns_(start_ns) {}
  uint64_t now_ns() const { return now_ns_; }
  void advance_ns(uint64_t delta_ns) { now_ns_ += delta_ns; }
  void set_ns(uint64_t now_ns) { now_ns_ = now_ns; }

 private:
  uint64_t now_ns_;
};

}  // namespace hail
