#include "load/closed_loop_pacer.h"

#include <algorithm>

#include "core/clock.h"
#include "script/script.h"

namespace hail {

ClosedLoopPacer::ClosedLoopPacer(PacerHost& host, ClosedLoopSettings settings)
    : host_(host), settings_(std::move(settings)) {
  pauses_ =
      settings_.think_ns != 0 || (settings_.script != nullptr && settings_.script->has_delay());
  target_timer_.fn = &ClosedLoopPacer::on_target_timer;
  target_timer_.ctx = this;
}

ClosedLoopPacer::~ClosedLoopPacer() {
  if (target_timer_.armed()) host_.loop().cancel(target_timer_);
}

void ClosedLoopPacer::start(uint64_t now_ns) {
  uint32_t initial = settings_.connections;
  if (settings_.targets) {
    target_ = share_of(settings_.targets->target_at(now_ns));
    initial = std::min(initial, target_);
    const uint64_t next_ns = settings_.targets->next_change_ns(now_ns);
    if (next_ns != kNoMoreRequests) host_.loop().arm(target_timer_, next_ns);
  }
  // A worker whose share of -n is zero (fewer requests than threads) has nothing to do.
  if (settings_.budget.limited() && settings_.budget.left() == 0) {
    host_.finish();
    return;
  }
  for (uint32_t i = 0; i < initial && !host_.finished(); ++i) host_.open(i);
}

Readiness ClosedLoopPacer::on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) {
  if (!keeps(c)) {
    // The connection target shrank: its last request answered, the connection closes.
    return {in_flight == 0 ? Next::kClose : Next::kWaitForResponses};
  }
  if (fresh) return {Next::kFill};
  if (!pauses_) return {Next::kFillAtBatchEnd};
  if (in_flight == 0) {
    const uint64_t think_ns = next_think_ns();
    if (host_.finished()) return {Next::kWaitForResponses};
    if (think_ns != 0) return {Next::kPauseUntil, now_ns + think_ns};
  } else if (pauses_) {
    return {Next::kWaitForResponses};  // the pause comes once the last request is answered
  }
  return {Next::kFillAtBatchEnd};
}

Grant ClosedLoopPacer::acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) {
  if (host_.finished()) return Grant::kIdle;
  if (!keeps(c)) return Grant::kClose;
  ticket->planned_ns = now_ns;
  ticket->counted = now_ns >= settings_.measure_start_ns;
  if (ticket->counted && !settings_.budget.take()) return Grant::kIdle;
  return Grant::kSend;
}

void ClosedLoopPacer::on_outcome(uint32_t /*c*/, const Ticket& ticket) {
  if (ticket.counted && settings_.budget.on_outcome()) host_.finish();
}

uint64_t ClosedLoopPacer::reconnect_delay_ns(uint32_t /*c*/) {
  return next_think_ns();
}

uint64_t ClosedLoopPacer::next_think_ns() {
  ThreadScript* script = settings_.script;
  if (script == nullptr || !script->has_delay()) return settings_.think_ns;
  auto ms = script->delay_ms();
  if (!ms) {
    host_.stop_for_script(ms.error().message);
    return 0;
  }
  // wrk takes delay()'s milliseconds as a whole number; negative or NaN means none.
  const double v = *ms;
  return v > 0 && v < 3.6e6 ? static_cast<uint64_t>(v) * kNsPerMs : 0;
}

void ClosedLoopPacer::retarget(double connections, uint64_t /*now_ns*/) {
  if (host_.finished()) return;
  // A level set by hand replaces any stage curve from here on.
  if (target_timer_.armed()) host_.loop().cancel(target_timer_);
  settings_.targets.reset();
  const auto total = static_cast<uint64_t>(connections > 0 ? connections : 0);
  apply_target(share_of(total));
}

uint32_t ClosedLoopPacer::share_of(uint64_t total) const {
  const uint64_t n = settings_.slice.count, i = settings_.slice.index;
  const uint64_t share = total / n + (i < total % n ? 1 : 0);
  return static_cast<uint32_t>(std::min<uint64_t>(share, host_.connection_count()));
}

void ClosedLoopPacer::apply_target(uint32_t target) {
  const uint32_t old = target_;
  target_ = target;
  for (uint32_t i = old; i < target && !host_.finished(); ++i) {
    if (host_.is_closed(i) && wants_open(i)) host_.open(i);
  }
  for (uint32_t i = target; i < old; ++i) host_.close_when_idle(i);
}

void ClosedLoopPacer::on_target_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<ClosedLoopPacer*>(ctx);
  if (self->host_.finished()) return;
  const uint64_t now_ns = self->host_.loop().refresh_now_ns();
  self->apply_target(self->share_of(self->settings_.targets->target_at(now_ns)));
  const uint64_t next_ns = self->settings_.targets->next_change_ns(now_ns);
  if (next_ns != kNoMoreRequests) self->host_.loop().arm(self->target_timer_, next_ns);
}

}  // namespace hail
