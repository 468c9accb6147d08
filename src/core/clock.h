// Time sources. Hot-path code takes `now_ns` values as arguments (so pure code never reads a
// clock, and tests pass any time they like); the event loop reads the monotonic clock once per
// wake-up. Stateless: any thread.
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

}  // namespace hail
