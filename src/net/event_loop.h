// EventLoop: one epoll instance or one io_uring (net/uring_io.h), its timers and a cross-thread
// mailbox. Owned by exactly one thread (a load worker or a server reactor); only post() and stop()
// may be called from other threads. Timers are intrusive (embedded in their owner) so arming one
// never allocates.
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace hail {

class UringIo;

// How a loop waits for its sockets: epoll readiness, or io_uring, which also carries the bytes of
// plain streams (UringTransport) so that one system call per turn submits and reaps them all.
enum class IoBackend : uint8_t { kEpoll, kUring };
const char* io_backend_name(IoBackend backend);
// --io: a backend, or auto (io_uring where this kernel and its seccomp filter allow it and it is
// the faster: see resolve_io).
enum class IoChoice : uint8_t { kAuto, kEpoll, kUring };
// The most connections one loop may hold for auto to choose io_uring. Beyond its completion queue
// (1024) a turn's completions overflow to the kernel's list and its shared receive buffers run
// dry every turn: at 3,000 connections a loop costs 1.1-1.8x epoll's CPU per request, at 10,000
// 3.6x (bench/RESULTS.md); at 500 they are even.
inline constexpr uint32_t kUringAutoMaxConnections = 1024;
// The backend for a choice: an error names why io_uring cannot be had when it was asked for.
// auto weighs the connections one loop holds (kUringAutoMaxConnections): io_uring up to them,
// with a connection per request too (on Linux 6.18 0.90x epoll's CPU per request there, every
// repetition below 1; bench/RESULTS.md).
Result<IoBackend> resolve_io(IoChoice choice, uint32_t connections_per_loop = 0);
// "auto", "epoll", "uring" (--io, HAIL_IO); nullopt for anything else.
std::optional<IoChoice> parse_io_choice(std::string_view text);
// What --io auto resolves through in this process (HAIL_IO). Set once at startup, before any
// thread runs.
void set_auto_io(IoChoice choice);
// Why io_uring cannot serve on this machine, or empty when it can (probed once per process).
const std::string& uring_unavailable_reason();

// Receives readiness for one registered fd. `events` is the epoll mask (EPOLLIN, EPOLLOUT,
// EPOLLERR, EPOLLHUP, EPOLLRDHUP).
class IoHandler {
 public:
  virtual void on_io(uint32_t events) = 0;

 protected:
  ~IoHandler() = default;
};

// An intrusive timer. The owner embeds it, sets `fn`/`ctx` once, then arms and cancels it through
// the loop. A timer must be cancelled (or have fired) before its owner is destroyed.
struct Timer {
  static constexpr uint32_t kNotArmed = UINT32_MAX;
  using Fn = void (*)(Timer* timer, void* ctx);

  Fn fn = nullptr;
  void* ctx = nullptr;
  uint64_t deadline_ns = 0;
  uint32_t heap_index = kNotArmed;

  bool armed() const { return heap_index != kNotArmed; }
};

class EventLoop {
 public:
  // Caller owns (delete); Result because epoll, io_uring or eventfd can fail.
  static Result<EventLoop*> create(IoBackend backend = IoBackend::kEpoll);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // fd registration; return 0 or an errno value.
  int add(int fd, uint32_t events, IoHandler* handler);
  // Deregisters fd and drops any event for `handler` still pending in the batch being dispatched,
  // so a handler may close its fd (or be destroyed) from inside on_io.
  void remove(int fd, IoHandler* handler);
  // Drops pending events of this batch for `handler` without touching epoll (after close(fd), which
  // removes the registration in the kernel already).
  void forget(IoHandler* handler);
  // Deregisters and closes fd (forget() and close() for epoll; io_uring cancels its requests).
  void close_fd(int fd, IoHandler* handler);

  IoBackend backend() const { return uring_ ? IoBackend::kUring : IoBackend::kEpoll; }
  UringIo* uring() { return uring_.get(); }  // null for epoll

  // Timers fire from run() at or after deadline_ns (CLOCK_MONOTONIC). Re-arming an armed timer
  // moves it.
  void arm(Timer& timer, uint64_t deadline_ns);
  void cancel(Timer& timer);
  size_t armed_timers() const { return heap_.size(); }

  // Runs until stop(). Each wake-up reads the clock once; now_ns() is that reading.
  void run();
  // Thread-safe: ask run() to return after the current batch.
  void stop();
  // Loop thread only: return from run() before dispatching anything else.
  void quit() { stopping_ = true; }
  // Thread-safe: run `fn` on the loop's thread at its next wake-up.
  void post(std::function<void()> fn);

  // Called once after each batch of events has been dispatched (before timers and the next wait):
  // lets an owner gather work that its handlers deferred during the batch.
  void set_batch_end_hook(void (*fn)(void* ctx), void* ctx) {
    batch_end_fn_ = fn;
    batch_end_ctx_ = ctx;
  }

  // When nothing is ready, sleep up to nap_ns (never past the next timer) before blocking in
  // epoll: data arriving during the nap wakes nobody, and is read after it (see WakeCoalescer).
  // 0: block at once. With io_uring the nap is a wait for `expected` completions (the responses
  // in flight) bounded by nap_ns, which the kernel ends early, and without a wake-up per
  // completion, when they have all come. Loop thread only.
  void set_idle_nap_ns(uint64_t nap_ns, uint32_t expected = 0) {
    idle_nap_ns_ = nap_ns;
    nap_expected_ = expected;
  }
  uint64_t naps() const { return naps_; }
  // Open-loop runs: a timer that falls due while a long batch is being dispatched fires between
  // two handlers (and io_uring's queued sends go out at once), not after the batch, so a planned
  // send waits for one handler at most. Costs a clock read per handler. Loop thread only.
  void set_timely_timers(bool on) { timely_timers_ = on; }

  uint64_t now_ns() const { return now_ns_; }
  uint64_t refresh_now_ns();

 private:
  EventLoop(int epoll_fd, int wake_fd);
  void drain_mailbox();
  void run_uring();                // event_loop_uring.cc
  int wait(uint64_t deadline_ns);  // epoll wait until deadline_ns (UINT64_MAX: no timer)
  int nap_then_wait(uint64_t deadline_ns);
  void fire_timers();
  static void fire_due_timers(void* self);  // between two handlers, with timely timers
  void heap_up(uint32_t i);
  void heap_down(uint32_t i);
  void heap_remove(uint32_t i);

  int epoll_fd_;  // -1 with io_uring
  int wake_fd_;
  std::unique_ptr<UringIo> uring_;
  bool stopping_ = false;
  bool have_pwait2_ = true;
  bool timely_timers_ = false;
  void (*batch_end_fn_)(void*) = nullptr;
  void* batch_end_ctx_ = nullptr;
  uint64_t now_ns_ = 0;
  uint64_t idle_nap_ns_ = 0;
  uint32_t nap_expected_ = 0;
  uint64_t naps_ = 0;
  std::vector<Timer*> heap_;
  epoll_event* batch_ = nullptr;  // events of the batch being dispatched
  int batch_next_ = 0;
  int batch_size_ = 0;
  std::vector<epoll_event> events_;

  std::mutex mailbox_mutex_;
  std::vector<std::function<void()>> mailbox_;
  bool stop_requested_ = false;  // guarded by mailbox_mutex_
};

}  // namespace hail
