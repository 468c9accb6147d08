// RatePacer: the open-loop load models (-R, wrk2's constant throughput; with --stages a ramping
// arrival rate, k6's model): requests are planned at the times RateSchedule computes, whatever the
// server does, queue while no connection is free, and go out on the first connection with spare
// capacity. More connections are opened (up to the worker's cap) while planned requests wait.
// Latency counts from the planned time (coordinated-omission correction). Owned by one worker; its
// thread only.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "load/budget.h"
#include "load/pacer.h"
#include "load/schedule.h"
#include "load/wake_gap.h"
#include "net/event_loop.h"

namespace hail {

struct RateSettings {
  uint64_t measure_start_ns = 0;  // planned before this: warm-up (not counted)
  uint32_t connections = 1;       // opened at the start; the host's connection_count() is the cap
  RequestBudget budget;           // -n with -R: exactly this many measured requests are planned
  // The plan is half-open, [start, end): a request planned at the end (or after) is not sent,
  // though the schedule timer may fire before the worker's end timer at the same instant.
  uint64_t end_ns = kNoMoreRequests;
};

class RatePacer final : public Pacer {
 public:
  // options and rng: what the schedule was made with, to make the next one after retarget().
  RatePacer(PacerHost& host, RateSettings settings, RateSchedule schedule,
            RateScheduleOptions options = {}, std::mt19937_64 rng = std::mt19937_64{});
  ~RatePacer() override;

  void start(uint64_t now_ns) override;
  Readiness on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) override;
  Grant acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) override;
  void on_outcome(uint32_t c, const Ticket& ticket) override;
  uint64_t reconnect_delay_ns(uint32_t /*c*/) override { return 0; }
  bool keeps(uint32_t /*c*/) const override { return true; }
  bool wants_open(uint32_t /*c*/) const override {
    return !host_.finished() && settings_.budget.room_for_connection(host_.connecting());
  }
  uint64_t backlog() const override { return queue_size_; }
  uint64_t wake_gap_ns() const { return wake_gap_.gap_ns(); }
  // A new total rate from now_ns on: the plan restarts there at the new rate (this worker's
  // slice of it); requests already planned keep their times.
  void retarget(double rate_per_s, uint64_t now_ns) override;

 private:
  void plan_due(uint64_t now_ns);
  void dispatch();
  bool budget_planned() const {
    return settings_.budget.limited() && counted_planned_ == budget_requests_;
  }
  void push_planned(uint64_t planned_ns);
  uint64_t pop_planned();
  static void on_schedule_timer(Timer* timer, void* ctx);

  PacerHost& host_;
  RateSettings settings_;
  RateSchedule schedule_;
  RateScheduleOptions schedule_options_;
  std::mt19937_64 rng_;
  uint64_t budget_requests_ = 0;  // the -n share, fixed at construction
  uint64_t counted_planned_ = 0;  // measured-phase requests planned so far (-n with -R)
  std::vector<uint64_t> queue_;   // ring of planned send times, capacity a power of two
  size_t queue_head_ = 0;
  size_t queue_size_ = 0;
  std::vector<uint32_t> idle_;  // connections waiting for a planned request (may be stale)
  std::vector<bool> listed_;    // per connection: on idle_
  uint32_t started_ = 0;        // connections 0 .. started_-1 have been opened at least once
  WakeGap wake_gap_;
  Timer schedule_timer_;
};

}  // namespace hail
