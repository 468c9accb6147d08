#include "load/rate_pacer.h"

#include <algorithm>

#include "core/clock.h"

namespace hail {

namespace {
constexpr size_t kInitialQueue = 1024;
}  // namespace

RatePacer::RatePacer(PacerHost& host, RateSettings settings, RateSchedule schedule,
                     RateScheduleOptions options, std::mt19937_64 rng)
    : host_(host),
      settings_(std::move(settings)),
      schedule_(std::move(schedule)),
      schedule_options_(options),
      rng_(rng),
      budget_requests_(settings_.budget.left()),
      queue_(kInitialQueue),
      listed_(host.connection_count(), false) {
  idle_.reserve(host.connection_count());
  schedule_timer_.fn = &RatePacer::on_schedule_timer;
  schedule_timer_.ctx = this;
}

RatePacer::~RatePacer() {
  if (schedule_timer_.armed()) host_.loop().cancel(schedule_timer_);
}

void RatePacer::start(uint64_t /*now_ns*/) {
  if (settings_.budget.limited() && budget_requests_ == 0) {
    host_.finish();
    return;
  }
  const uint32_t initial = std::min(settings_.connections, host_.connection_count());
  for (; started_ < initial && !host_.finished(); ++started_) host_.open(started_);
  if (!host_.finished()) host_.loop().arm(schedule_timer_, schedule_.next_planned_ns());
}

Readiness RatePacer::on_ready(uint32_t /*c*/, uint64_t /*now_ns*/, uint32_t /*in_flight*/,
                              bool /*fresh*/) {
  // A planned request that is due goes out at once; otherwise acquire() puts the connection on
  // the idle list.
  return {Next::kFill};
}

Grant RatePacer::acquire(uint32_t c, uint64_t /*now_ns*/, Ticket* ticket) {
  if (host_.finished()) return Grant::kIdle;
  if (queue_size_ == 0) {
    if (!listed_[c]) {
      listed_[c] = true;
      idle_.push_back(c);
    }
    return Grant::kWait;
  }
  ticket->planned_ns = pop_planned();
  ticket->counted = ticket->planned_ns >= settings_.measure_start_ns;
  // Planning stops at the budget, so a measured request planned always finds its share.
  if (ticket->counted) settings_.budget.take();
  return Grant::kSend;
}

void RatePacer::retarget(double rate_per_s, uint64_t now_ns) {
  if (host_.finished()) return;
  // A new level replaces the plan: requests planned at the old one and still waiting for a
  // connection are dropped (never attempted, so the accounting is untouched). Kept, an overloaded
  // level's backlog would be sent at the next level and measured as its latency.
  queue_head_ = 0;
  queue_size_ = 0;
  // A fresh generator per level (drawn from the run's): Poisson gaps stay independent.
  schedule_ = RateSchedule(rate_per_s, now_ns, schedule_options_, std::mt19937_64(rng_()));
  if (schedule_timer_.armed()) host_.loop().cancel(schedule_timer_);
  if (schedule_.next_planned_ns() != kNoMoreRequests) {
    host_.loop().arm(schedule_timer_, schedule_.next_planned_ns());
  }
}

void RatePacer::on_outcome(uint32_t /*c*/, const Ticket& ticket) {
  if (ticket.counted && settings_.budget.on_outcome()) host_.finish();
}

void RatePacer::push_planned(uint64_t planned_ns) {
  if (queue_size_ == queue_.size()) {
    // The backlog outgrew the ring: double it (rare; the steady state allocates nothing).
    std::vector<uint64_t> bigger(queue_.size() * 2);
    for (size_t i = 0; i < queue_size_; ++i) bigger[i] = queue_[(queue_head_ + i) % queue_.size()];
    queue_.swap(bigger);
    queue_head_ = 0;
  }
  queue_[(queue_head_ + queue_size_) & (queue_.size() - 1)] = planned_ns;
  ++queue_size_;
}

uint64_t RatePacer::pop_planned() {
  const uint64_t planned_ns = queue_[queue_head_];
  queue_head_ = (queue_head_ + 1) & (queue_.size() - 1);
  --queue_size_;
  return planned_ns;
}

void RatePacer::plan_due(uint64_t now_ns) {
  while (schedule_.next_planned_ns() <= now_ns) {
    const uint64_t planned_ns = schedule_.next_planned_ns();
    if (planned_ns >= settings_.end_ns) return;
    if (settings_.budget.limited() && planned_ns >= settings_.measure_start_ns) {
      // -n with -R: exactly this worker's share of measured requests is planned, no more.
      if (budget_planned()) return;
      ++counted_planned_;
    }
    push_planned(planned_ns);
    schedule_.advance();
  }
}

void RatePacer::dispatch() {
  while (queue_size_ > 0 && !idle_.empty() && !host_.finished()) {
    const uint32_t c = idle_.back();
    const size_t waiting = queue_size_;
    if (host_.can_send(c)) host_.wake(c);
    // A connection that could not send (or took nothing when woken) leaves the list, so the loop
    // always progresses; it is listed again when it next asks.
    if (queue_size_ == waiting || !host_.can_send(c)) {
      if (!idle_.empty() && idle_.back() == c) idle_.pop_back();
      listed_[c] = false;
    }
  }
  // Requests wait for a connection: open more, up to the cap, instead of letting them queue.
  while (queue_size_ > idle_.size() + host_.connecting() && started_ < host_.connection_count() &&
         !host_.finished()) {
    host_.open(started_++);
  }
}

void RatePacer::on_schedule_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<RatePacer*>(ctx);
  if (self->host_.finished()) return;
  EventLoop& loop = self->host_.loop();
  self->plan_due(loop.refresh_now_ns());
  self->dispatch();
  const uint64_t now_ns = loop.now_ns();
  if (self->wake_gap_.sample_due(now_ns)) self->wake_gap_.sample(now_ns, self->host_.cpu_ns());
  const uint64_t next_ns = self->schedule_.next_planned_ns();
  if (next_ns < self->settings_.end_ns && !self->budget_planned()) {
    // Requests planned less than the gap after this wake-up go out together at the next one (the
    // lag distribution reports what that costs in timing).
    loop.arm(self->schedule_timer_, std::max(next_ns, now_ns + self->wake_gap_.gap_ns()));
  }
}

}  // namespace hail
