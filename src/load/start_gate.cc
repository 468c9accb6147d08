#include "load/start_gate.h"

namespace hail {

StartGate::StartGate(std::unique_ptr<Pacer> inner, PacerHost& host, uint64_t start_ns)
    : inner_(std::move(inner)), host_(host), start_ns_(start_ns) {
  timer_.fn = &StartGate::on_start_timer;
  timer_.ctx = this;
}

StartGate::~StartGate() {
  if (timer_.armed()) host_.loop().cancel(timer_);
}

void StartGate::start(uint64_t now_ns) {
  // The wrapped model opens its first connections now; its own timers are absolute (the plan's
  // times start at start_ns), so they already wait for the start.
  inner_->start(now_ns);
  if (now_ns >= start_ns_) {
    opened_ = true;
  } else if (!host_.finished()) {
    host_.loop().arm(timer_, start_ns_);
  }
}

void StartGate::on_start_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<StartGate*>(ctx);
  const uint64_t now_ns = self->host_.loop().now_ns();
  self->opened_ = true;
  self->late_ns_ = now_ns > self->start_ns_ ? now_ns - self->start_ns_ : 0;
}

Readiness StartGate::on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) {
  // Opened before the start: wait for it, and its connect belongs to no request.
  if (now_ns < start_ns_) return {Next::kHoldUntil, start_ns_};
  return inner_->on_ready(c, now_ns, in_flight, fresh);
}

Grant StartGate::acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) {
  if (now_ns < start_ns_) return Grant::kWait;  // the held connections fill at the start
  return inner_->acquire(c, now_ns, ticket);
}

}  // namespace hail
