// WakeGap: the rate scheduler's wake-up spacing follows the worker's measured busy share — the
// smallest gap with room to spare, the largest when busy, gradual between — and starts cautious.
#include <gtest/gtest.h>

#include "core/clock.h"
#include "load/wake_gap.h"

namespace hail {
namespace {

constexpr uint64_t kPeriod = WakeGap::kSampleNs;

// Feeds `periods` sampling periods in which the thread used `share` of the wall time.
void feed(WakeGap& gap, uint64_t* now_ns, uint64_t* cpu_ns, double share, int periods) {
  for (int i = 0; i < periods; ++i) {
    *now_ns += kPeriod;
    *cpu_ns += static_cast<uint64_t>(share * static_cast<double>(kPeriod));
    ASSERT_TRUE(gap.sample_due(*now_ns));
    gap.sample(*now_ns, *cpu_ns);
  }
}

TEST(WakeGap, StartsAtTheLargestGapUntilAPeriodIsMeasured) {
  WakeGap gap;
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMaxGapNs);
  EXPECT_TRUE(gap.sample_due(0));
  gap.sample(1000 * kPeriod, 5 * kNsPerSec);  // the first reading only starts a period
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMaxGapNs);
  EXPECT_FALSE(gap.sample_due(1000 * kPeriod + kPeriod - 1));
  EXPECT_TRUE(gap.sample_due(1000 * kPeriod + kPeriod));
}

// A WakeGap whose first reading has been taken at now_ns (1 s), CPU time 0.
struct Primed {
  WakeGap gap;
  uint64_t now_ns = kNsPerSec;
  uint64_t cpu_ns = 0;
  Primed() { gap.sample(now_ns, cpu_ns); }
  void feed_share(double share, int periods) { feed(gap, &now_ns, &cpu_ns, share, periods); }
};

TEST(WakeGap, ARoomyWorkerWakesForEachRequest) {
  Primed p;
  WakeGap& gap = p.gap;
  p.feed_share(0.4, 20);
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMinGapNs);
  EXPECT_NEAR(gap.busy(), 0.4, 0.01);
}

TEST(WakeGap, ABusyWorkerGroupsItsWakeUps) {
  Primed p;
  WakeGap& gap = p.gap;
  p.feed_share(0.3, 20);
  ASSERT_EQ(gap.gap_ns(), WakeGap::kMinGapNs);
  // Saturated: the estimate moves gradually (a few periods), then the gap is the largest.
  p.feed_share(1.0, 1);
  EXPECT_LT(gap.gap_ns(), WakeGap::kMaxGapNs);
  p.feed_share(1.0, 20);
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMaxGapNs);
  // CPU time counted above the wall time (another thread's clock, a coarse one) counts as busy.
  p.feed_share(1.5, 5);
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMaxGapNs);
  EXPECT_LE(gap.busy(), 1.0);
}

TEST(WakeGap, BetweenTheThresholdsTheGapIsProportional) {
  Primed p;
  WakeGap& gap = p.gap;
  const double mid = (WakeGap::kRoomyBusy + WakeGap::kBusyBusy) / 2;
  p.feed_share(mid, 60);
  const double want = (WakeGap::kMinGapNs + WakeGap::kMaxGapNs) / 2.0;
  EXPECT_NEAR(static_cast<double>(gap.gap_ns()), want, 0.05 * want);
}

TEST(WakeGap, AReadingThatGoesBackwardsOnlyRestartsThePeriod) {
  WakeGap gap;
  uint64_t now_ns = kNsPerSec, cpu_ns = kNsPerSec;
  gap.sample(now_ns, cpu_ns);
  feed(gap, &now_ns, &cpu_ns, 0.2, 20);
  ASSERT_EQ(gap.gap_ns(), WakeGap::kMinGapNs);
  gap.sample(now_ns + kPeriod, 0);  // CPU time behind the last reading
  EXPECT_EQ(gap.gap_ns(), WakeGap::kMinGapNs);
  EXPECT_NEAR(gap.busy(), 0.2, 0.01);
  gap.sample(now_ns + kPeriod, 0);  // no time has passed
  EXPECT_NEAR(gap.busy(), 0.2, 0.01);
}

}  // namespace
}  // namespace hail
