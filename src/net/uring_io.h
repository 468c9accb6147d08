// UringIo: the io_uring half of an EventLoop built with IoBackend::kUring. It stands in for epoll
// (a multishot poll per registered fd gives the same readiness edges) and carries the bytes of
// plain streams itself: multishot receives into provided buffers, sends queued and submitted
// together at the loop's next wait, so a turn of the loop costs one system call for all of them.
// Owned by its EventLoop; only the loop's thread may touch it.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace hail {

class IoHandler;

// What the ring delivers to a stream attached with UringIo::attach_stream (a UringTransport).
class UringStream {
 public:
  // Bytes received into provided buffer `bid`: the stream copies them out, then gives the buffer
  // back with UringIo::recycle().
  virtual void on_received(uint16_t bid, const char* data, size_t len) = 0;
  // The receive side ended: 0 for the peer's FIN, else an errno value.
  virtual void on_recv_end(int err) = 0;
  // A queued send completed: bytes sent, or -errno. True when the writer should hear EPOLLOUT
  // (room again after a refused write, or a failure it has yet to find).
  virtual bool on_sent(int res) = 0;

 protected:
  ~UringStream() = default;
};

class UringIo {
 public:
  // Size of each provided receive buffer: a received chunk is never longer.
  static constexpr size_t kBufferBytes = 2048;

  // Why io_uring cannot serve here (a kernel without it, a seccomp filter, io_uring_disabled), or
  // empty when it can. Probed once per process by creating and dropping a small ring.
  static const std::string& unavailable_reason();
  static Result<std::unique_ptr<UringIo>> create(int wake_fd);
  // Receive buffers handed to the kernel so far: 32 at the start, 32 more after each batch in
  // which a receive found none, at most 128.
  unsigned buffers_provided() const { return buffers_provided_; }
  ~UringIo();
  UringIo(const UringIo&) = delete;
  UringIo& operator=(const UringIo&) = delete;

  // epoll's calls: 0 or an errno value. Removing cancels whatever the ring still has on the fd.
  int add(int fd, uint32_t events, IoHandler* handler);
  void remove(int fd);

  // From here on the ring receives fd's bytes for `stream` instead of reporting readiness; the
  // handler gets EPOLLIN (with EPOLLRDHUP / EPOLLERR at the end) after each delivery.
  bool attach_stream(int fd, UringStream* stream);
  void detach_stream(int fd);
  // An attached stream that drops a large body with recv(MSG_TRUNC) stops the ring's receives
  // (which would copy it) and is told of readiness instead, until it asks for the ring again.
  void receive_by_readiness(int fd);
  void receive_by_ring(int fd);
  // Queues a send of [data, data + len) on fd: `data` must stay valid until on_sent.
  bool send(int fd, const char* data, size_t len);
  void recycle(uint16_t bid);
  const char* buffer(uint16_t bid) const {
    return buffers_ + static_cast<size_t>(bid) * kBufferBytes;
  }
  // The send buffer of a stream detached from fd while its send may still be reading it: kept
  // until that send completes.
  void retire_send_buffer(int fd, std::unique_ptr<char[]> buffer);
  // True when the ring's receives run only inside this thread's calls into the ring (deferred
  // task work): between two turns, the socket's bytes are the application's to drop.
  bool receives_deferred() const { return deferred_; }
  // Submits what is queued at once (before a shutdown() that must follow the queued bytes).
  void submit_now();

  // Loop turn: submits everything queued and waits until `completions` more have come (besides
  // those of sends and cancellations, which complete on submission) or deadline_ns (UINT64_MAX:
  // no limit, now_ns or earlier: do not wait). Returns false on EINTR.
  bool wait(uint64_t now_ns, uint64_t deadline_ns, uint32_t completions);
  // After wait(): whether anything besides the submissions' own completions is ready.
  bool has_new_completions();
  // A turn's two phases. reap() takes every completion there is: received bytes go to their
  // streams, so that a stream holds all the ring has of its socket before any handler runs (and
  // nothing more arrives until the next wait). It returns true when the loop's wake fd fired (the
  // caller drains its mailbox). notify() then calls each handler once with its events, until
  // *stopping, and `between(ctx)` (if given) after each handler.
  bool reap();
  void notify(const bool* stopping, void (*between)(void*) = nullptr, void* ctx = nullptr);
  // After a batch: re-arms receives that ran out of buffers or ended early.
  void end_batch();

 private:
  enum Op : uint64_t { kOpPoll = 1, kOpRecv = 2, kOpSend = 3, kOpWake = 4 };
  // One per registered fd (32 bytes: there are as many as connections).
  struct Reg {
    int fd = -1;
    uint32_t events = 0;
    IoHandler* handler = nullptr;  // null once removed
    UringStream* stream = nullptr;
    uint16_t ops = 0;             // requests whose final completion has not come
    uint16_t pending_events = 0;  // for the next notify() (poll bits: 16 are enough)
    bool poll_armed : 1 = false;
    bool recv_armed : 1 = false;
    bool send_armed : 1 = false;
    bool rearm_listed : 1 = false;
    bool notify_listed : 1 = false;
    bool receiving : 1 = false;  // a stream receiving through the ring (not by readiness)
    bool freed : 1 = false;
    bool retired_buffer : 1 = false;  // a detached stream's send buffer waits for the send
  };

  explicit UringIo(int wake_fd) : wake_fd_(wake_fd) {}
  io_uring_sqe* sqe();
  void arm_poll(Reg* r);
  void arm_recv(Reg* r);
  void arm_wake();
  void cancel(Reg* r, Op op);
  void release_if_done(Reg* r);
  Reg* reg_of(int fd) const {
    return fd >= 0 && static_cast<size_t>(fd) < by_fd_.size() ? by_fd_[fd] : nullptr;
  }
  void post_events(Reg* r, uint32_t events);
  void on_poll(Reg* r, const io_uring_cqe& cqe);
  void on_recv(Reg* r, const io_uring_cqe& cqe);
  void on_send(Reg* r, const io_uring_cqe& cqe);
  // Hands the kernel the next step of receive buffers (the ring's capacity bounds them).
  void provide_more_buffers();

  io_uring ring_{};
  bool ring_ok_ = false;
  bool enabled_ = false;
  bool deferred_ = false;  // rings start disabled so the thread that runs the loop owns them
  int wake_fd_;
  io_uring_buf_ring* buf_ring_ = nullptr;
  char* buffers_ = nullptr;
  size_t ring_bytes_ = 0;
  unsigned buffers_provided_ = 0;
  bool ran_dry_ = false;         // a receive found no buffer in this batch
  unsigned inline_pending_ = 0;  // queued requests that complete on submission
  unsigned inline_done_ = 0;     // completions ready, or due on submission, at the last wait
  std::deque<Reg> regs_;         // stable addresses, no allocation per registration
  std::vector<std::pair<Reg*, std::unique_ptr<char[]>>> retired_;
  std::vector<Reg*> free_regs_;
  std::vector<Reg*> by_fd_;
  std::vector<Reg*> rearm_;
  std::vector<Reg*> notify_;
};

}  // namespace hail
