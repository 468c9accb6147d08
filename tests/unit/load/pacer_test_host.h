// A PacerHost for load-model tests: connections are flags (open, closed, able to send), every call
// a pacer makes is recorded, and the event loop is real but runs only when a test asks
// (run_for_ns), so timers fire at their deadlines. Test thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "load/pacer.h"
#include "net/event_loop.h"

namespace hail {

class PacerTestHost final : public PacerHost {
 public:
  explicit PacerTestHost(uint32_t connections) : open_(connections, false), ready_(connections) {
    auto loop = EventLoop::create();
    loop_.reset(loop.value());
    quit_timer_.fn = [](Timer*, void* ctx) { static_cast<EventLoop*>(ctx)->quit(); };
    quit_timer_.ctx = loop_.get();
  }
  ~PacerTestHost() { loop_->cancel(quit_timer_); }

  EventLoop& loop() override { return *loop_; }
  uint32_t connection_count() const override { return static_cast<uint32_t>(open_.size()); }
  uint32_t connecting() const override { return connecting_count; }
  bool is_closed(uint32_t c) const override { return !open_[c]; }
  bool can_send(uint32_t c) const override { return open_[c] && ready_[c]; }
  void open(uint32_t c) override {
    open_[c] = true;
    opened.push_back(c);
  }
  void wake(uint32_t c) override {
    woken.push_back(c);
    if (on_wake) on_wake(c);
  }
  void close_when_idle(uint32_t c) override {
    open_[c] = false;
    closed.push_back(c);
  }
  void finish() override { finished_ = true; }
  uint64_t cpu_ns() const override { return cpu_time_ns; }
  void stop_for_script(const std::string& error) override {
    script_error = error;
    finished_ = true;
  }

  void set_ready(uint32_t c, bool ready) { ready_[c] = ready; }
  // Runs the loop (its timers) for about duration_ns of real time.
  void run_for_ns(uint64_t duration_ns) {
    loop_->arm(quit_timer_, loop_->refresh_now_ns() + duration_ns);
    loop_->run();
  }

  // What a woken connection does (a real one takes requests until it is full); nothing if unset.
  std::function<void(uint32_t)> on_wake;
  std::vector<uint32_t> opened;
  std::vector<uint32_t> woken;
  std::vector<uint32_t> closed;
  std::string script_error;
  uint32_t connecting_count = 0;
  uint64_t cpu_time_ns = 0;  // what cpu_ns() answers

 private:
  std::unique_ptr<EventLoop> loop_;
  std::vector<bool> open_;
  std::vector<bool> ready_;
  Timer quit_timer_;
};

}  // namespace hail
