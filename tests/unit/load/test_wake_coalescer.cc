#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "core/clock.h"
#include "load/wake_coalescer.h"

namespace hail {
namespace {

WakeCoalescer settled(uint64_t latency_ns, bool enabled = true) {
  WakeCoalescer c(enabled);
  for (int i = 0; i < 100; ++i) c.on_response(latency_ns);
  return c;
}

TEST(WakeCoalescer, NoNapWithoutASignal) {
  EXPECT_EQ(WakeCoalescer(true).nap_ns(1000), 0u);           // no response seen yet
  EXPECT_EQ(settled(5 * kNsPerMs, false).nap_ns(1000), 0u);  // --no-coalesce
  EXPECT_EQ(settled(5 * kNsPerMs).nap_ns(1), 0u);  // one request in flight: a nap is pure delay
  EXPECT_EQ(settled(5 * kNsPerMs).nap_ns(0), 0u);
}

TEST(WakeCoalescer, NapIsAShareOfTheLatencyWithinBounds) {
  struct Row {
    uint64_t latency_ns, in_flight, nap_ns;
  };
  const Row rows[] = {
      // Fast responses: 1/32 of the latency is under the 10 us floor, never worth a timer.
      {30 * kNsPerUs, 1000, 0},
      {319 * kNsPerUs, 1000, 0},
      {320 * kNsPerUs, 1000, 10 * kNsPerUs},
      // 1/32 of the latency, while at least two responses are due within the nap.
      {640 * kNsPerUs, 64, 20 * kNsPerUs},  // 64 x 20 us = 2 x 640 us
      {640 * kNsPerUs, 63, 0},
      {1600 * kNsPerUs, 64, 50 * kNsPerUs},
      // Capped at 50 us.
      {4800 * kNsPerUs, 500, 50 * kNsPerUs},  // 5.2 responses per nap
      {4800 * kNsPerUs, 192, 50 * kNsPerUs},
      {4800 * kNsPerUs, 191, 0},           // 1.99 responses per nap
      {kNsPerSec, 100000, 50 * kNsPerUs},  // 5 responses per nap
      {60 * kNsPerSec, 100000, 0},         // 0.08 responses per nap: nothing to gather
  };
  for (const Row& r : rows) {
    EXPECT_EQ(settled(r.latency_ns).nap_ns(r.in_flight), r.nap_ns)
        << r.latency_ns << " ns, " << r.in_flight << " in flight";
  }
}

TEST(WakeCoalescer, NeverMoreThanAThirtySecondOfTheSmoothedLatency) {
  std::mt19937_64 rng(7);
  WakeCoalescer c(true);
  for (int i = 0; i < 100000; ++i) {
    c.on_response(rng() % (20 * kNsPerMs));
    const uint64_t nap = c.nap_ns(rng() % 5000);
    ASSERT_LE(nap, WakeCoalescer::kMaxNapNs);
    ASSERT_LE(nap * WakeCoalescer::kLatencyShare, c.smoothed_latency_ns());
    if (nap != 0) {
      ASSERT_GE(nap, WakeCoalescer::kMinNapNs);
    }
  }
}

TEST(WakeCoalescer, FollowsAChangeOfLatencyWithinAFewBatches) {
  WakeCoalescer c = settled(10 * kNsPerMs);
  EXPECT_EQ(c.smoothed_latency_ns(), 10 * kNsPerMs);
  for (int i = 0; i < 200; ++i) c.on_response(100 * kNsPerUs);
  // The server got fast: 200 responses later the average is within 1 % of the new latency...
  EXPECT_NEAR(static_cast<double>(c.smoothed_latency_ns()), 100e3, 1e3);
  // ... and no nap is taken any more.
  EXPECT_EQ(c.nap_ns(1000), 0u);
  for (int i = 0; i < 200; ++i) c.on_response(3 * kNsPerMs);
  EXPECT_EQ(c.nap_ns(1000), 50 * kNsPerUs);
}

}  // namespace
}  // namespace hail
