// WakeCoalescer: how long a worker's event loop may nap before it blocks in epoll, so that one
// wake-up reads several responses instead of one. Owned by one Worker; its thread only. Pure: fed
// response latencies and the number of requests in flight, no clock and no system calls.
//
// Why: whoever queues data on a socket whose reader sleeps in epoll pays for waking it. On
// loopback that is the server (and on a VM a cross-CPU interrupt, an exit to the hypervisor, per
// wake-up): a client that is quick and goes back to sleep after every response makes a saturated
// server spend more per request on it than a slower client would. A reader that naps on its own
// timer is not in epoll's wait queue, so responses arriving meanwhile wake nobody. The price is
// that a response is read up to one nap late, so naps are kept to a small share of the latency
// being measured and are only taken when several responses are due within one.
#pragma once

#include <cstdint>

namespace hail {

class WakeCoalescer {
 public:
  static constexpr uint64_t kMaxNapNs = 50'000;
  // Shorter naps save too few wake-ups to pay for their own timer interrupt.
  static constexpr uint64_t kMinNapNs = 10'000;
  // A nap is at most this fraction (1/N) of the smoothed latency.
  static constexpr uint64_t kLatencyShare = 32;
  // Responses expected during one nap (in flight x nap / latency) for the nap to be worth it.
  static constexpr uint64_t kMinResponsesPerNap = 2;

  explicit WakeCoalescer(bool enabled) : enabled_(enabled) {}

  // Service time of each response (send -> complete), warm-up included.
  void on_response(uint64_t latency_ns) {
    if (smoothed_ns_ == 0) {
      smoothed_ns_ = latency_ns;
      return;
    }
    // Exponential average over ~16 responses: follows the load's changes within a few batches.
    const int64_t delta = static_cast<int64_t>(latency_ns) - static_cast<int64_t>(smoothed_ns_);
    smoothed_ns_ = static_cast<uint64_t>(static_cast<int64_t>(smoothed_ns_) + delta / 16);
  }

  // The nap to take before the next blocking wait (0: none), given the requests in flight now.
  uint64_t nap_ns(uint64_t in_flight) const {
    if (!enabled_ || in_flight < kMinResponsesPerNap || smoothed_ns_ == 0) return 0;
    uint64_t nap = smoothed_ns_ / kLatencyShare;
    if (nap > kMaxNapNs) nap = kMaxNapNs;
    if (nap < kMinNapNs) return 0;
    if (in_flight * nap < kMinResponsesPerNap * smoothed_ns_) return 0;
    return nap;
  }

  // io_uring: the kernel counts completions and wakes the loop once `in_flight` have come, so a
  // bounded wait costs no timer of its own unless it runs out and no wake-up per response. It is
  // worth taking whenever two or more responses are due; the bound is the same share of latency.
  uint64_t batch_wait_ns(uint64_t in_flight) const {
    if (!enabled_ || in_flight < kMinResponsesPerNap || smoothed_ns_ == 0) return 0;
    return smoothed_ns_ / kLatencyShare < kMaxNapNs ? smoothed_ns_ / kLatencyShare : kMaxNapNs;
  }

  uint64_t smoothed_latency_ns() const { return smoothed_ns_; }

 private:
  bool enabled_;
  uint64_t smoothed_ns_ = 0;
};

}  // namespace hail
