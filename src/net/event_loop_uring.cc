// EventLoop's turn with the io_uring backend (the epoll one is in event_loop.cc): the same
// timers, mailbox, batch-end hook and idle naps, with completions in place of epoll events.
#include <algorithm>

#include "core/clock.h"
#include "net/event_loop.h"
#include "net/uring_io.h"

namespace hail {

void EventLoop::run_uring() {
  UringIo& io = *uring_;
  while (!stopping_) {
    const uint64_t deadline_ns = heap_.empty() ? UINT64_MAX : heap_[0]->deadline_ns;
    bool waited = true;
    if (idle_nap_ns_ != 0 && nap_expected_ > 0) {
      // The nap as one wait: for the responses in flight, at most nap_ns.
      now_ns_ = mono_now_ns();
      const uint64_t nap_end_ns = std::min(deadline_ns, now_ns_ + idle_nap_ns_);
      waited = io.wait(now_ns_, nap_end_ns, nap_expected_);
      ++naps_;
      if (waited && !io.has_new_completions() && nap_end_ns < deadline_ns) {
        now_ns_ = mono_now_ns();
        waited = io.wait(now_ns_, deadline_ns, 1);
      }
    } else {
      waited = io.wait(now_ns_, deadline_ns, 1);
    }
    now_ns_ = mono_now_ns();
    if (!waited) continue;  // EINTR
    if (io.reap()) drain_mailbox();
    io.notify(&stopping_, timely_timers_ ? &EventLoop::fire_due_timers : nullptr, this);
    if (stopping_) break;
    if (batch_end_fn_ != nullptr) batch_end_fn_(batch_end_ctx_);
    fire_timers();
  }
}

}  // namespace hail
