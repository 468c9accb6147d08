#include "load/window_recorder.h"

namespace hail {

WindowRecorder::WindowRecorder(WindowSettings settings) : settings_(std::move(settings)) {
  intervals_.set_open_loop(settings_.open_loop);
  steps_.set_open_loop(settings_.open_loop);
  interval_timer_.fn = &WindowRecorder::on_interval_timer;
  interval_timer_.ctx = this;
  step_timer_.fn = &WindowRecorder::on_step_timer;
  step_timer_.ctx = this;
}

WindowRecorder::~WindowRecorder() {
  if (loop_ == nullptr) return;
  loop_->cancel(interval_timer_);
  loop_->cancel(step_timer_);
}

void WindowRecorder::start(EventLoop& loop, uint64_t now_ns, const uint64_t* open_connections) {
  loop_ = &loop;
  open_connections_ = open_connections;
  const WindowSettings& s = settings_;
  if (s.interval_ns != 0) {
    interval_warmup_ = s.start_ns < s.measure_start_ns;
    intervals_.begin(s.start_ns, interval_warmup_);
    loop.arm(interval_timer_,
             next_interval_boundary(now_ns, s.start_ns, s.measure_start_ns, s.interval_ns));
  }
  const std::vector<uint64_t>& steps = s.step_boundaries_ns;
  if (steps.size() >= 2) {
    steps_.begin(steps[0], false);
    next_step_ = 1;
    // The last boundary is the end of the run: stop() closes the last step.
    if (steps.size() > 2) loop.arm(step_timer_, steps[1]);
  }
}

void WindowRecorder::stop(uint64_t now_ns) {
  const uint64_t open = open_connections_ != nullptr ? *open_connections_ : 0;
  if (intervals_.active()) intervals_.close_window(now_ns, open, false, true);
  if (steps_.active()) steps_.close_window(now_ns, open, false, true);
  if (loop_ != nullptr) {
    loop_->cancel(interval_timer_);
    loop_->cancel(step_timer_);
  }
}

void WindowRecorder::roll_to_measured() {
  // The first measured outcome arrived before the interval timer at the start of measuring fired:
  // switch windows now, so that no measured request lands in a warm-up window.
  interval_warmup_ = false;
  intervals_.close_window(settings_.measure_start_ns, *open_connections_, false, false);
}

void WindowRecorder::on_interval_timer(Timer* timer, void* ctx) {
  auto* self = static_cast<WindowRecorder*>(ctx);
  const WindowSettings& s = self->settings_;
  const uint64_t boundary_ns = timer->deadline_ns;
  if (s.end_ns != 0 && boundary_ns >= s.end_ns) return;  // stop() closes the last window
  if (boundary_ns > self->intervals_.current_start_ns()) {
    self->interval_warmup_ = boundary_ns < s.measure_start_ns;
    self->intervals_.close_window(boundary_ns, *self->open_connections_, self->interval_warmup_,
                                  false);
  }
  self->loop_->arm(
      self->interval_timer_,
      next_interval_boundary(boundary_ns, s.start_ns, s.measure_start_ns, s.interval_ns));
}

void WindowRecorder::on_step_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<WindowRecorder*>(ctx);
  const std::vector<uint64_t>& steps = self->settings_.step_boundaries_ns;
  self->steps_.close_window(steps[self->next_step_], *self->open_connections_, false, false);
  ++self->next_step_;
  if (self->next_step_ + 1 < steps.size())
    self->loop_->arm(self->step_timer_, steps[self->next_step_]);
}

}  // namespace hail
