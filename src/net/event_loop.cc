#include "net/event_loop.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/clock.h"
#include "net/uring_io.h"

namespace hail {

namespace {
constexpr int kMaxEvents = 512;

// The mailbox's IoHandler is the loop itself, marked by this sentinel pointer value.
IoHandler* const kWakeHandler = reinterpret_cast<IoHandler*>(uintptr_t{1});
}  // namespace

const char* io_backend_name(IoBackend backend) {
  return backend == IoBackend::kUring ? "uring" : "epoll";
}

const std::string& uring_unavailable_reason() {
  return UringIo::unavailable_reason();
}

namespace {
IoChoice g_auto_io = IoChoice::kAuto;
}  // namespace

std::optional<IoChoice> parse_io_choice(std::string_view text) {
  if (text == "auto") return IoChoice::kAuto;
  if (text == "epoll") return IoChoice::kEpoll;
  if (text == "uring") return IoChoice::kUring;
  return std::nullopt;
}

void set_auto_io(IoChoice choice) {
  g_auto_io = choice;
}

Result<IoBackend> resolve_io(IoChoice choice, uint32_t connections_per_loop) {
  if (choice == IoChoice::kAuto) choice = g_auto_io;
  if (choice == IoChoice::kEpoll) return IoBackend::kEpoll;
  if (choice == IoChoice::kAuto && connections_per_loop > kUringAutoMaxConnections) {
    return IoBackend::kEpoll;
  }
  const std::string& why = UringIo::unavailable_reason();
  if (why.empty()) return IoBackend::kUring;
  if (choice == IoChoice::kAuto) return IoBackend::kEpoll;
  return make_error("--io uring: io_uring is not available here (" + why + ")");
}

Result<EventLoop*> EventLoop::create(IoBackend backend) {
  int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd < 0) return make_error(std::string("eventfd: ") + std::strerror(errno));
  if (backend == IoBackend::kUring) {
    auto uring = UringIo::create(wake_fd);
    if (!uring) {
      close(wake_fd);
      return uring.error();
    }
    auto* loop = new EventLoop(-1, wake_fd);
    loop->uring_ = std::move(uring.value());
    return loop;
  }
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) {
    int err = errno;
    close(wake_fd);
    return make_error(std::string("epoll_create1: ") + std::strerror(err));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = kWakeHandler;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev) != 0) {
    int err = errno;
    close(epoll_fd);
    close(wake_fd);
    return make_error(std::string("epoll_ctl: ") + std::strerror(err));
  }
  return new EventLoop(epoll_fd, wake_fd);
}

EventLoop::EventLoop(int epoll_fd, int wake_fd)
    : epoll_fd_(epoll_fd), wake_fd_(wake_fd), now_ns_(mono_now_ns()), events_(kMaxEvents) {
  heap_.reserve(64);
}

EventLoop::~EventLoop() {
  for (Timer* t : heap_) t->heap_index = Timer::kNotArmed;
  uring_.reset();
  close(wake_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

int EventLoop::add(int fd, uint32_t events, IoHandler* handler) {
  if (uring_) return uring_->add(fd, events, handler);
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = handler;
  return epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : errno;
}

void EventLoop::remove(int fd, IoHandler* handler) {
  if (uring_) {
    uring_->remove(fd);
    return;
  }
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  forget(handler);
}

void EventLoop::forget(IoHandler* handler) {
  // Closing is rare next to reading, so a scan of the rest of the batch is cheaper than any
  // generation scheme on the hot path.
  for (int i = batch_next_; i < batch_size_; ++i) {
    if (batch_[i].data.ptr == handler) batch_[i].data.ptr = nullptr;
  }
}

void EventLoop::close_fd(int fd, IoHandler* handler) {
  if (uring_) {
    uring_->remove(fd);
  } else {
    forget(handler);  // close() drops the epoll registration; this drops the batch's events
  }
  ::close(fd);
}

uint64_t EventLoop::refresh_now_ns() {
  now_ns_ = mono_now_ns();
  return now_ns_;
}

void EventLoop::arm(Timer& timer, uint64_t deadline_ns) {
  timer.deadline_ns = deadline_ns;
  if (timer.armed()) {
    heap_up(timer.heap_index);
    heap_down(timer.heap_index);
    return;
  }
  timer.heap_index = static_cast<uint32_t>(heap_.size());
  heap_.push_back(&timer);
  heap_up(timer.heap_index);
}

void EventLoop::cancel(Timer& timer) {
  if (!timer.armed()) return;
  heap_remove(timer.heap_index);
}

void EventLoop::heap_up(uint32_t i) {
  Timer* t = heap_[i];
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (heap_[parent]->deadline_ns <= t->deadline_ns) break;
    heap_[i] = heap_[parent];
    heap_[i]->heap_index = i;
    i = parent;
  }
  heap_[i] = t;
  t->heap_index = i;
}

void EventLoop::heap_down(uint32_t i) {
  Timer* t = heap_[i];
  const uint32_t n = static_cast<uint32_t>(heap_.size());
  for (;;) {
    uint32_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_[child + 1]->deadline_ns < heap_[child]->deadline_ns) ++child;
    if (heap_[child]->deadline_ns >= t->deadline_ns) break;
    heap_[i] = heap_[child];
    heap_[i]->heap_index = i;
    i = child;
  }
  heap_[i] = t;
  t->heap_index = i;
}

void EventLoop::heap_remove(uint32_t i) {
  Timer* removed = heap_[i];
  Timer* last = heap_.back();
  heap_.pop_back();
  removed->heap_index = Timer::kNotArmed;
  if (last == removed) return;
  heap_[i] = last;
  last->heap_index = i;
  heap_up(i);
  heap_down(last->heap_index);
}

void EventLoop::fire_timers() {
  while (!heap_.empty() && heap_[0]->deadline_ns <= now_ns_) {
    Timer* t = heap_[0];
    heap_remove(0);
    t->fn(t, t->ctx);
    if (stopping_) return;
  }
}

void EventLoop::fire_due_timers(void* self) {
  auto* loop = static_cast<EventLoop*>(self);
  if (loop->heap_.empty() || loop->stopping_) return;
  const uint64_t now_ns = mono_now_ns();
  if (loop->heap_[0]->deadline_ns > now_ns) return;
  loop->now_ns_ = now_ns;
  loop->fire_timers();
  // What the timers queued must not wait for the rest of the batch.
  if (loop->uring_) loop->uring_->submit_now();
}

void EventLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mailbox_mutex_);
    stop_requested_ = true;
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
}

void EventLoop::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mailbox_mutex_);
    mailbox_.push_back(std::move(fn));
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
}

void EventLoop::drain_mailbox() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = read(wake_fd_, &count, sizeof count);
  std::vector<std::function<void()>> work;
  {
    std::lock_guard<std::mutex> lock(mailbox_mutex_);
    work.swap(mailbox_);
    if (stop_requested_) stopping_ = true;
  }
  for (auto& fn : work) fn();
}

int EventLoop::wait(uint64_t deadline_ns) {
  uint64_t wait_ns = 0;
  if (deadline_ns == UINT64_MAX) {
    wait_ns = UINT64_MAX;
  } else if (deadline_ns > now_ns_) {
    wait_ns = deadline_ns - now_ns_;
  }
  if (have_pwait2_) {
    // epoll_pwait2 takes a nanosecond timeout: timers are not rounded up to whole milliseconds.
    timespec timeout;
    timespec* timeout_ptr = nullptr;
    if (wait_ns != UINT64_MAX) {
      timeout.tv_sec = static_cast<time_t>(wait_ns / kNsPerSec);
      timeout.tv_nsec = static_cast<long>(wait_ns % kNsPerSec);
      timeout_ptr = &timeout;
    }
    int n = epoll_pwait2(epoll_fd_, events_.data(), kMaxEvents, timeout_ptr, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    // Kernels before 5.11 (and valgrind) lack it: fall back to millisecond epoll_wait for good.
    have_pwait2_ = false;
  }
  int timeout_ms = -1;
  if (wait_ns != UINT64_MAX) {
    // Rounded up, so that a timer is never found early and re-polled in a busy loop.
    uint64_t ms = (wait_ns + kNsPerMs - 1) / kNsPerMs;
    timeout_ms = ms > INT32_MAX ? INT32_MAX : static_cast<int>(ms);
  }
  return epoll_wait(epoll_fd_, events_.data(), kMaxEvents, timeout_ms);
}

int EventLoop::nap_then_wait(uint64_t deadline_ns) {
  now_ns_ = mono_now_ns();  // the batch took time: the next timer is nearer than at the wake-up
  // Whatever is ready already is dispatched at once (a deadline of now: epoll without waiting),
  // so a nap only ever replaces a sleep.
  int n = wait(now_ns_);
  if (n != 0) return n;
  uint64_t nap_ns = idle_nap_ns_;
  if (deadline_ns != UINT64_MAX) {
    if (deadline_ns <= now_ns_) return 0;
    nap_ns = std::min(nap_ns, deadline_ns - now_ns_);
  }
  timespec nap{static_cast<time_t>(nap_ns / kNsPerSec), static_cast<long>(nap_ns % kNsPerSec)};
  // EINTR only shortens the nap.
  clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, nullptr);
  ++naps_;
  now_ns_ = mono_now_ns();  // so that the wait below still ends at the timer's deadline
  return wait(deadline_ns);
}

void EventLoop::run() {
  stopping_ = false;
  // Work posted before run() (and a stop() that raced ahead of it) is honoured before any wait.
  drain_mailbox();
  if (uring_) {
    run_uring();
    return;
  }
  while (!stopping_) {
    const uint64_t deadline_ns = heap_.empty() ? UINT64_MAX : heap_[0]->deadline_ns;
    int n = idle_nap_ns_ != 0 ? nap_then_wait(deadline_ns) : wait(deadline_ns);
    int wait_errno = errno;
    now_ns_ = mono_now_ns();
    if (n < 0) {
      if (wait_errno == EINTR) continue;
      std::abort();  // can't happen: the epoll fd and the event buffer are ours and valid
    }
    batch_ = events_.data();
    batch_size_ = n;
    for (batch_next_ = 0; batch_next_ < batch_size_ && !stopping_;) {
      epoll_event& ev = batch_[batch_next_++];
      IoHandler* handler = static_cast<IoHandler*>(ev.data.ptr);
      if (handler == nullptr) continue;
      if (handler == kWakeHandler) {
        drain_mailbox();
        continue;
      }
      handler->on_io(ev.events);
      if (timely_timers_) fire_due_timers(this);
    }
    batch_size_ = 0;
    batch_next_ = 0;
    if (stopping_) break;
    if (batch_end_fn_ != nullptr) batch_end_fn_(batch_end_ctx_);
    fire_timers();
  }
}

}  // namespace hail
