#include "load/wake_gap.h"

#include <algorithm>

namespace hail {

namespace {
// Weight of the newest period in the busy estimate: one period is a few hundred requests, too
// few to trust alone (a batch landing on either side of a boundary moves it by several percent).
constexpr double kNewWeight = 0.25;
}  // namespace

void WakeGap::sample(uint64_t now_ns, uint64_t cpu_ns) {
  next_sample_ns_ = now_ns + kSampleNs;
  if (!primed_ || now_ns <= last_now_ns_ || cpu_ns < last_cpu_ns_) {
    // The first reading (or one that went backwards: a new thread, a clock we cannot compare)
    // only starts a period.
    primed_ = true;
    last_now_ns_ = now_ns;
    last_cpu_ns_ = cpu_ns;
    return;
  }
  const double period = static_cast<double>(now_ns - last_now_ns_);
  const double share = std::min(1.0, static_cast<double>(cpu_ns - last_cpu_ns_) / period);
  busy_ = busy_ + kNewWeight * (share - busy_);
  last_now_ns_ = now_ns;
  last_cpu_ns_ = cpu_ns;
  const double t = std::clamp((busy_ - kRoomyBusy) / (kBusyBusy - kRoomyBusy), 0.0, 1.0);
  gap_ns_ = kMinGapNs + static_cast<uint64_t>(t * static_cast<double>(kMaxGapNs - kMinGapNs));
}

}  // namespace hail
