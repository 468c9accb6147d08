// Planners of when load changes: RateSchedule plans one worker's request send times for open-loop
// rate mode (wrk2 -R with coordinated-omission correction, k6 ramping-arrival-rate); and
// ConnectionTargetSchedule gives closed-loop connection targets over stages. Owned by one worker
// thread each; pure: the current time is always passed in, never read.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "load/stage_spec.h"

namespace hail {

inline constexpr uint64_t kNoMoreRequests = UINT64_MAX;
inline constexpr uint64_t kUnlimitedCount = UINT64_MAX;

enum class Arrival {
  kFixed,    // evenly spaced (wrk2)
  kPoisson,  // exponential gaps with mean 1/rate(t) (--arrival poisson)
};

// Which part of the total plan this worker owns: slice i of n takes the requests i, i+n, i+2n, ...
// of the one global plan, so the slices' plans interleave to exactly the plan of a single worker
// at the full rate (and a total count N splits into N/n, plus one for the first N%n slices). For
// Poisson arrivals every slice walks the one seeded global process (same rng seed on every slice)
// and keeps its arrivals: n exponential draws per request of its own, i.e. each slice draws the
// whole test's arrivals (a few ns each), and the union of the slices is that one process exactly.
// The slices of a sharded run are its shards' workers (RunPlan::slice).
struct WorkerSlice {
  uint64_t index = 0;
  uint64_t count = 1;
};

struct RateScheduleOptions {
  Arrival arrival = Arrival::kFixed;
  WorkerSlice slice;
  uint64_t total_count = kUnlimitedCount;  // -n with -R: exactly this many over all workers
};

// Semantics (request k = this plan's k-th request, 0-based, cumulative count C(t) = integral of
// the rate from the start):
//  - Fixed, constant rate R: t_k = start + round(k * 1e9 / R) ns, computed from k each time (no
//    accumulated interval, so no drift), in long double: exact to the ns rounding for any run.
//    The first request goes at start, as in wrk2.
//  - Fixed, stage curve: t_k is the instant C starts exceeding k (StageCurve::crossing_ns), rounded
//    to the nearest ns. For a constant curve this is the same t_k as above; a ramp from 0 sends its
//    first request at its start; a zero-rate stretch sends nothing and the next request waits for
//    its end. Only instants before the curve's end count: a ramp 0->100/s over 10 s plans
//    exactly 500 requests (C = 500 at the very end, which is excluded).
//  - Poisson: the k-th arrival is where C reaches E_1 + ... + E_(k+1), E_i independent Exp(1)
//    (the time-change of a unit Poisson process: exact for any rate curve, no thinning). The first
//    arrival is one exponential gap after start.
// The plan ends (kNoMoreRequests) when this worker's count is reached or the curve is over; a
// constant rate without a count never ends (the run's duration stops it). A rate of 0 plans
// nothing.
class RateSchedule {
 public:
  RateSchedule(double rate_per_sec, uint64_t start_ns, const RateScheduleOptions& options,
               std::mt19937_64 rng = std::mt19937_64{});
  RateSchedule(StageCurve rate_curve, uint64_t start_ns, const RateScheduleOptions& options,
               std::mt19937_64 rng = std::mt19937_64{});

  // The planned send time of the next request; kNoMoreRequests when the plan is exhausted.
  uint64_t next_planned_ns() const { return next_ns_; }
  // Consume the next request (no-op once exhausted).
  void advance();

  // Requests consumed so far by this worker, and this worker's share of the total count.
  uint64_t planned_count() const { return consumed_; }
  uint64_t count_limit() const { return limit_; }

 private:
  void plan_next();
  double exp1();

  std::optional<StageCurve> curve_;  // nullopt: constant rate_per_sec_
  double rate_per_sec_ = 0;
  uint64_t start_ns_;
  Arrival arrival_;
  WorkerSlice slice_;
  uint64_t limit_;
  std::mt19937_64 rng_;
  uint64_t consumed_ = 0;
  double poisson_sum_ = 0;      // Poisson: sum of the global process's Exp(1) draws so far
  uint64_t poisson_drawn_ = 0;  // how many global arrivals were drawn
  uint64_t next_ns_ = kNoMoreRequests;
};

// Closed-loop mode with stages: how many connections should be open at time t. The target is
// floor(curve value), with a 1e-12 relative slack so float rounding (2.9999999999999996) still
// counts as 3: a ramp 0->10 over 10 s adds a connection at each whole second, and drops happen
// as soon as the curve falls below a whole number (1 ns after it passes it). Times are absolute;
// before start_ns the curve's value at 0 applies.
class ConnectionTargetSchedule {
 public:
  ConnectionTargetSchedule(StageCurve curve, uint64_t start_ns);

  uint64_t target_at(uint64_t now_ns) const;
  // The earliest time > now_ns at which target_at differs from target_at(now_ns), so the worker
  // arms one timer per change; kNoMoreRequests (UINT64_MAX) if the target never changes again.
  uint64_t next_change_ns(uint64_t now_ns) const;
  uint64_t end_ns() const { return start_ns_ + curve_.total_duration_ns(); }
  const StageCurve& curve() const { return curve_; }

 private:
  uint64_t target_at_elapsed(uint64_t elapsed_ns) const;

  StageCurve curve_;
  uint64_t start_ns_;
};

}  // namespace hail
