// Unit tests of tests/tools/queue_model.h, the pure part of the queueing test server: FIFO
// completion times worked out by hand, the seeded samplers, and the sojourn histogram.
// Owner: tests. Single-threaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tools/queue_model.h"

namespace queue_server {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(QueueModelFifoStation, SingleServerCompletionTimesByHand) {
  FifoStation station;  // one server
  // Service 10 ms each. Arrivals 0, 5, 6 queue up; 40 finds the server idle again.
  const Job a = station.admit(1, 0, 0 * kMs + 1, 10 * kMs);
  const Job b = station.admit(2, 0, 5 * kMs, 10 * kMs);
  const Job c = station.admit(1, 1, 6 * kMs, 10 * kMs);
  const Job d = station.admit(3, 0, 40 * kMs, 10 * kMs);
  EXPECT_EQ(a.completion_ns, 10 * kMs + 1);
  EXPECT_EQ(b.completion_ns, 20 * kMs + 1);  // waits for a
  EXPECT_EQ(c.completion_ns, 30 * kMs + 1);  // waits for a and b
  EXPECT_EQ(d.completion_ns, 50 * kMs);      // idle server: arrival + service
  EXPECT_FALSE(a.waited);
  EXPECT_TRUE(b.waited);
  EXPECT_TRUE(c.waited);
  EXPECT_FALSE(d.waited);
  EXPECT_EQ(a.in_system, 1u);
  EXPECT_EQ(b.in_system, 2u);
  EXPECT_EQ(c.in_system, 3u);
  EXPECT_EQ(d.in_system, 1u);  // a, b, c all complete by 40 ms
  EXPECT_EQ(c.conn_id, 1u);
  EXPECT_EQ(c.seq, 1u);

  // Due in completion order, which for one server is arrival order.
  ASSERT_EQ(station.size(), 4u);
  std::vector<uint64_t> order;
  while (!station.empty()) order.push_back(station.pop().completion_ns);
  EXPECT_EQ(order, (std::vector<uint64_t>{10 * kMs + 1, 20 * kMs + 1, 30 * kMs + 1, 50 * kMs}));
}

TEST(QueueModelFifoStation, EqualCompletionsLeaveInAdmissionOrder) {
  FifoStation station;
  for (uint64_t i = 0; i < 5; ++i) station.admit(i, 0, 100, 0);  // zero service, same instant
  for (uint64_t i = 0; i < 5; ++i) {
    ASSERT_FALSE(station.empty());
    EXPECT_EQ(station.front().conn_id, i);
    EXPECT_EQ(station.pop().completion_ns, 100u);
  }
}

TEST(QueueModelFifoStation, ClosedLoopOfFourIsPacedByTheService) {
  // Four clients, each sending its next request the moment its response is due: the server is
  // never idle, so completions are exactly one service time apart and each request waits for
  // the three ahead of it (sojourn 4 x service): capacity by construction.
  FifoStation station;
  for (uint64_t c = 0; c < 4; ++c) station.admit(c, 0, 1000, kMs);
  std::vector<uint64_t> seq(4, 1);
  uint64_t last_ns = 0;
  for (int i = 0; i < 400; ++i) {
    const Job done = station.pop();
    if (i > 0) {
      EXPECT_EQ(done.completion_ns - last_ns, kMs);
    }
    last_ns = done.completion_ns;
    const Job next = station.admit(done.conn_id, seq[done.conn_id]++, done.completion_ns, kMs);
    if (i >= 4) {
      EXPECT_EQ(next.completion_ns - next.arrival_ns, 4 * kMs);
      EXPECT_EQ(next.in_system, 4u);
      EXPECT_TRUE(next.waited);
    }
  }
}

TEST(QueueModelFifoStation, TwoServersServeInParallelAndShortJobsOvertake) {
  FifoStation station(2);
  EXPECT_EQ(station.servers(), 2u);
  const Job a = station.admit(1, 0, 0, 50 * kMs);
  const Job b = station.admit(2, 0, 0, 10 * kMs);
  const Job c = station.admit(3, 0, 1 * kMs, 10 * kMs);  // both busy: starts when b ends, at 10
  const Job d = station.admit(4, 0, 60 * kMs, 5 * kMs);  // both idle again
  EXPECT_EQ(a.completion_ns, 50 * kMs);
  EXPECT_EQ(b.completion_ns, 10 * kMs);
  EXPECT_FALSE(b.waited);  // the second server was free
  EXPECT_EQ(c.completion_ns, 20 * kMs);
  EXPECT_TRUE(c.waited);
  EXPECT_EQ(c.in_system, 3u);
  EXPECT_EQ(d.completion_ns, 65 * kMs);
  EXPECT_FALSE(d.waited);
  EXPECT_EQ(d.in_system, 1u);
  // b and c overtake a.
  EXPECT_EQ(station.pop().conn_id, 2u);
  EXPECT_EQ(station.pop().conn_id, 3u);
  EXPECT_EQ(station.pop().conn_id, 1u);
  EXPECT_EQ(station.pop().conn_id, 4u);
  EXPECT_TRUE(station.empty());
}

TEST(QueueModelServiceSampler, FixedIsExactlyTheMean) {
  ServiceSampler fixed(ServiceKind::kFixed, 1234, 99);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(fixed.next_ns(), 1234u);
}

TEST(QueueModelServiceSampler, ExponentialMeanAndShapeWithAFixedSeed) {
  constexpr int kSamples = 200'000;
  constexpr double kMean = 1e6;
  ServiceSampler exp(ServiceKind::kExponential, static_cast<uint64_t>(kMean), 42);
  std::vector<double> v(kSamples);
  double sum = 0, sum_sq = 0;
  for (double& x : v) {
    x = static_cast<double>(exp.next_ns());
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / kSamples;
  const double sd = std::sqrt(sum_sq / kSamples - mean * mean);
  // Standard error of the mean is kMean / sqrt(200000) = 0.22 %: 1 % is 4.5 sigma.
  EXPECT_NEAR(mean, kMean, 0.01 * kMean);
  EXPECT_NEAR(sd, kMean, 0.02 * kMean);  // exponential: sd = mean
  // The shape, not only the moments: P(S > t) = exp(-t / mean) at the median and at p99.
  std::sort(v.begin(), v.end());
  EXPECT_NEAR(v[kSamples / 2], std::log(2.0) * kMean, 0.02 * kMean);
  EXPECT_NEAR(v[kSamples * 99 / 100], std::log(100.0) * kMean, 0.05 * kMean);
}

TEST(QueueModelServiceSampler, SameSeedSameSequenceOtherSeedOtherSequence) {
  ServiceSampler a(ServiceKind::kExponential, 1000, 7);
  ServiceSampler b(ServiceKind::kExponential, 1000, 7);
  ServiceSampler c(ServiceKind::kExponential, 1000, 8);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next_ns();
    EXPECT_EQ(x, b.next_ns());
    if (x != c.next_ns()) ++differ;
  }
  EXPECT_GT(differ, 900);
}

TEST(QueueModelRng, KnownFirstOutputsPinTheAlgorithm) {
  // The point of the hand-written generator is the same stream on every platform and standard
  // library. These are xoshiro256** seeded through splitmix64, as computed by an independent
  // (Python) transcription of the reference algorithms: a change of algorithm is caught.
  Rng zero(0);
  EXPECT_EQ(zero.next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(zero.next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(zero.next(), 0x1a5f849d4933e6e0ULL);
  Rng other(12345);
  EXPECT_EQ(other.next(), 0xbe6a36374160d49bULL);
  EXPECT_EQ(other.next(), 0x214aaa0637a688c6ULL);
  EXPECT_EQ(other.next(), 0xf69d16de9954d388ULL);
  // Uniform in [0, 1): mean 1/2.
  Rng u(3);
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    const double x = u.uniform();
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    sum += x;
  }
  EXPECT_NEAR(sum / 100'000, 0.5, 0.005);
}

TEST(QueueModelLogHistogram, PercentilesWithinTheBucketWidth) {
  LogHistogram h;
  EXPECT_EQ(h.percentile(0.5), 0u);
  for (uint64_t v = 1; v <= 100'000; ++v) h.record(v * 1000);  // 1 us .. 100 ms
  EXPECT_EQ(h.count(), 100'000u);
  EXPECT_EQ(h.max(), 100'000'000u);
  EXPECT_NEAR(h.mean(), 50'000'500.0, 1.0);
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) {
    const double exact = std::ceil(q * 100'000) * 1000;
    EXPECT_NEAR(static_cast<double>(h.percentile(q)), exact, exact / 256) << q;
  }
  EXPECT_EQ(h.percentile(1.0), 100'000'000u);
}

TEST(QueueModelLogHistogram, SmallValuesAreExact) {
  LogHistogram h;
  for (uint64_t v : {3u, 3u, 7u, 511u}) h.record(v);
  EXPECT_EQ(h.percentile(0.5), 3u);
  EXPECT_EQ(h.percentile(0.75), 7u);
  EXPECT_EQ(h.percentile(1.0), 511u);
}

}  // namespace
}  // namespace queue_server
