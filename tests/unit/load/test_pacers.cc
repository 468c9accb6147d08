// The load models' decisions (ClosedLoopPacer, RatePacer, RequestBudget) against a recording host:
// what a connection may send, when, with which ticket; budgets, warm-up, think time, connection
// targets and planned send times.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/clock.h"
#include "load/budget.h"
#include "load/closed_loop_pacer.h"
#include "load/rate_pacer.h"
#include "unit/load/pacer_test_host.h"

namespace hail {
namespace {

constexpr uint64_t kMs = kNsPerMs;

TEST(RequestBudget, TakesExactlyItsShareAndSaysWhenTheLastOutcomeIsIn) {
  RequestBudget unlimited;
  EXPECT_FALSE(unlimited.limited());
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(unlimited.take());
  EXPECT_FALSE(unlimited.on_outcome());
  EXPECT_TRUE(unlimited.room_for_connection(1'000'000));

  RequestBudget b(2);
  EXPECT_TRUE(b.room_for_connection(1));
  EXPECT_FALSE(b.room_for_connection(2));  // two connecting will take both
  EXPECT_TRUE(b.take());
  EXPECT_TRUE(b.take());
  EXPECT_FALSE(b.take());
  EXPECT_EQ(b.left(), 0u);
  EXPECT_FALSE(b.on_outcome());
  EXPECT_FALSE(b.done());
  EXPECT_TRUE(b.on_outcome());
  EXPECT_TRUE(b.done());

  RequestBudget zero(0);
  EXPECT_FALSE(zero.take());
  EXPECT_TRUE(zero.done());
}

ClosedLoopSettings closed(uint32_t connections, uint64_t measure_start_ns = 0) {
  ClosedLoopSettings s;
  s.connections = connections;
  s.measure_start_ns = measure_start_ns;
  return s;
}

TEST(ClosedLoopPacer, OpensItsConnectionsAndFillsThem) {
  PacerTestHost host(3);
  ClosedLoopPacer pacer(host, closed(3));
  pacer.start(0);
  EXPECT_EQ(host.opened, (std::vector<uint32_t>{0, 1, 2}));
  // A fresh connection fills at once; after responses, at the end of the batch.
  EXPECT_EQ(pacer.on_ready(0, 5, 0, true).next, Next::kFill);
  EXPECT_EQ(pacer.on_ready(0, 5, 0, false).next, Next::kFillAtBatchEnd);
  EXPECT_EQ(pacer.on_ready(0, 5, 3, false).next, Next::kFillAtBatchEnd);  // pipelined
  Ticket t;
  EXPECT_EQ(pacer.acquire(1, 77, &t), Grant::kSend);
  EXPECT_EQ(t.planned_ns, 77u);  // closed loop: planned when asked
  EXPECT_TRUE(t.counted);
  EXPECT_TRUE(pacer.keeps(2));
  EXPECT_TRUE(pacer.wants_open(2));
  EXPECT_EQ(pacer.reconnect_delay_ns(0), 0u);
  EXPECT_EQ(pacer.backlog(), 0u);
}

TEST(ClosedLoopPacer, WarmUpRequestsAreNotCountedAndSpendNoBudget) {
  PacerTestHost host(1);
  ClosedLoopSettings s = closed(1, 1000);
  s.budget = RequestBudget(2);
  ClosedLoopPacer pacer(host, s);
  pacer.start(0);
  Ticket warm, a, b, c;
  ASSERT_EQ(pacer.acquire(0, 999, &warm), Grant::kSend);
  EXPECT_FALSE(warm.counted);
  ASSERT_EQ(pacer.acquire(0, 1000, &a), Grant::kSend);
  ASSERT_EQ(pacer.acquire(0, 1001, &b), Grant::kSend);
  EXPECT_TRUE(a.counted);
  EXPECT_EQ(pacer.acquire(0, 1002, &c), Grant::kIdle);  // the share is spent
  EXPECT_FALSE(pacer.wants_open(0));
  pacer.on_outcome(0, warm);
  pacer.on_outcome(0, a);
  EXPECT_FALSE(host.finished());
  pacer.on_outcome(0, b);  // the last measured outcome ends the run
  EXPECT_TRUE(host.finished());
  EXPECT_EQ(pacer.acquire(0, 1003, &c), Grant::kIdle);
}

TEST(ClosedLoopPacer, AZeroShareOfTheBudgetEndsTheWorkerAtOnce) {
  PacerTestHost host(2);
  ClosedLoopSettings s = closed(2);
  s.budget = RequestBudget(0);
  ClosedLoopPacer pacer(host, s);
  pacer.start(0);
  EXPECT_TRUE(host.finished());
  EXPECT_TRUE(host.opened.empty());
}

TEST(ClosedLoopPacer, ThinkTimePausesAfterTheLastResponse) {
  PacerTestHost host(1);
  ClosedLoopSettings s = closed(1);
  s.think_ns = 20 * kMs;
  ClosedLoopPacer pacer(host, s);
  pacer.start(0);
  EXPECT_EQ(pacer.on_ready(0, 100, 0, true).next, Next::kFill);  // the first request at once
  const Readiness r = pacer.on_ready(0, 100, 0, false);
  EXPECT_EQ(r.next, Next::kPauseUntil);
  EXPECT_EQ(r.at_ns, 100 + 20 * kMs);
  // With requests still in flight (pipelining) the pause waits for the last response.
  EXPECT_EQ(pacer.on_ready(0, 100, 2, false).next, Next::kWaitForResponses);
  // Without keep-alive the pause comes before the next connect.
  EXPECT_EQ(pacer.reconnect_delay_ns(0), 20 * kMs);
}

TEST(ClosedLoopPacer, ConnectionTargetsOpenAndCloseConnectionsOnTime) {
  PacerTestHost host(4);
  const uint64_t t0 = host.loop().refresh_now_ns();
  // Hold 4 connections for 20 ms, then 1: over two workers this worker (slice 0) keeps 2, then 1.
  std::vector<Stage> stages = {{20 * kMs, 4, true}, {10 * kMs, 1, true}};
  ClosedLoopSettings s = closed(2);
  s.targets.emplace(StageCurve(stages, 0), t0);
  s.slice = WorkerSlice{0, 2};
  ClosedLoopPacer pacer(host, s);
  pacer.start(t0);
  EXPECT_EQ(host.opened, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(pacer.keeps(1));
  host.run_for_ns(40 * kMs);  // the target drops to 1 at 20 ms
  EXPECT_FALSE(pacer.keeps(1));
  EXPECT_TRUE(pacer.keeps(0));
  EXPECT_EQ(host.closed, (std::vector<uint32_t>{1}));
  // A connection above the target closes once its requests are answered.
  EXPECT_EQ(pacer.on_ready(1, t0, 1, false).next, Next::kWaitForResponses);
  EXPECT_EQ(pacer.on_ready(1, t0, 0, false).next, Next::kClose);
  Ticket t;
  EXPECT_EQ(pacer.acquire(1, t0, &t), Grant::kClose);
  EXPECT_FALSE(pacer.wants_open(1));
}

RateSchedule fixed_rate(double per_s, uint64_t start_ns) {
  RateScheduleOptions o;
  return RateSchedule(per_s, start_ns, o, std::mt19937_64{});
}

TEST(RatePacer, PlannedRequestsGoOutInOrderWithTheirPlannedTimes) {
  PacerTestHost host(8);
  const uint64_t t0 = host.loop().refresh_now_ns();
  RateSettings s;
  s.connections = 2;
  RatePacer pacer(host, s, fixed_rate(1000, t0 - 100 * kMs));  // 100 requests already due
  // A woken connection takes one request, then is busy (one request in flight at a time).
  std::vector<Ticket> sent;
  host.on_wake = [&](uint32_t c) {
    Ticket t;
    if (pacer.acquire(c, t0, &t) == Grant::kSend) sent.push_back(t);
    host.set_ready(c, false);
  };
  pacer.start(t0);
  EXPECT_EQ(host.opened, (std::vector<uint32_t>{0, 1}));
  // Nothing planned yet: the connection waits to be woken.
  Ticket t;
  EXPECT_EQ(pacer.on_ready(0, t0, 0, true).next, Next::kFill);
  EXPECT_EQ(pacer.acquire(0, t0, &t), Grant::kWait);
  host.set_ready(0, true);
  host.run_for_ns(2 * kMs);  // the schedule timer plans what is due and dispatches it
  ASSERT_EQ(host.woken, (std::vector<uint32_t>{0}));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].planned_ns, t0 - 100 * kMs);  // the oldest first, with its planned time
  EXPECT_TRUE(sent[0].counted);
  // Requests waiting for connections open more of them, up to the cap (8 slots).
  EXPECT_EQ(host.opened.size(), 8u);
  // The rest wait in order, 1 ms apart.
  ASSERT_EQ(pacer.acquire(1, t0, &t), Grant::kSend);
  EXPECT_EQ(t.planned_ns, t0 - 99 * kMs);
  ASSERT_EQ(pacer.acquire(1, t0, &t), Grant::kSend);
  EXPECT_EQ(t.planned_ns, t0 - 98 * kMs);
  EXPECT_GE(pacer.backlog(), 97u);
}

TEST(RatePacer, BudgetPlansExactlyItsShareOfMeasuredRequests) {
  PacerTestHost host(4);
  const uint64_t t0 = host.loop().refresh_now_ns();
  RateSettings s;
  s.connections = 1;
  s.measure_start_ns = t0 - 50 * kMs;  // the first 50 planned requests are warm-up
  s.budget = RequestBudget(10);
  RatePacer pacer(host, s, fixed_rate(1000, t0 - 100 * kMs));
  pacer.start(t0);
  host.run_for_ns(2 * kMs);
  EXPECT_EQ(pacer.backlog(), 60u);  // 50 warm-up + exactly 10 measured
  Ticket t;
  std::vector<Ticket> measured;
  while (pacer.acquire(0, t0, &t) == Grant::kSend) {
    if (t.counted)
      measured.push_back(t);
    else
      pacer.on_outcome(0, t);
  }
  ASSERT_EQ(measured.size(), 10u);
  for (size_t i = 0; i + 1 < measured.size(); ++i) pacer.on_outcome(0, measured[i]);
  EXPECT_FALSE(host.finished());
  pacer.on_outcome(0, measured.back());
  EXPECT_TRUE(host.finished());
}

TEST(RatePacer, StaleIdleConnectionsAreSkipped) {
  PacerTestHost host(2);
  const uint64_t t0 = host.loop().refresh_now_ns();
  RateSettings s;
  s.connections = 2;
  RatePacer pacer(host, s, fixed_rate(100, t0 + 5 * kMs));
  host.on_wake = [&](uint32_t c) {
    Ticket t;
    EXPECT_EQ(pacer.acquire(c, t0, &t), Grant::kSend);
    host.set_ready(c, false);
  };
  pacer.start(t0);
  Ticket t;
  EXPECT_EQ(pacer.acquire(0, t0, &t), Grant::kWait);
  EXPECT_EQ(pacer.acquire(1, t0, &t), Grant::kWait);
  host.set_ready(0, true);
  host.set_ready(1, false);  // connection 1 closed or filled up meanwhile
  host.run_for_ns(8 * kMs);  // one request planned at t0 + 5 ms
  EXPECT_EQ(host.woken, (std::vector<uint32_t>{0}));
  EXPECT_EQ(pacer.backlog(), 0u);
}

// The scheduler measures its thread's CPU time: a worker with room to spare wakes for each planned
// request instead of grouping them.
TEST(RatePacer, AnIdleWorkerWakesForEachPlannedRequest) {
  PacerTestHost host(1);
  const uint64_t t0 = host.loop().refresh_now_ns();
  RateSettings s;
  s.connections = 1;
  RatePacer pacer(host, s, fixed_rate(2000, t0));
  EXPECT_EQ(pacer.wake_gap_ns(), WakeGap::kMaxGapNs);
  pacer.start(t0);
  host.cpu_time_ns = 0;  // the host's thread uses no CPU
  host.run_for_ns(60 * kMs);
  EXPECT_EQ(pacer.wake_gap_ns(), WakeGap::kMinGapNs);
  EXPECT_GE(pacer.backlog(), 100u);  // nobody takes the requests: they wait, in plan order
}

}  // namespace
}  // namespace hail
