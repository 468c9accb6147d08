#include "net/uring_io.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/clock.h"
#include "net/event_loop.h"

namespace hail {

namespace {
// Submission slots (a full queue is submitted early) and completion slots (beyond them the
// kernel keeps completions on its overflow list: slower, never lost); small, since the kernel
// walks both round and round and every page of them ends up resident.
constexpr unsigned kRingEntries = 256;
constexpr unsigned kCompletionEntries = 1024;
// Provided receive buffers, shared by every stream of the loop: a small response fills one, and
// a stream hands its buffer back as soon as it has copied it out, and large bodies bypass the ring
// (UringTransport::discard). The kernel takes them round the ring, so every buffer provided gets
// touched: the loop starts with 32 and provides 32 more after each batch that ran dry, up to
// 128 x 2 KiB (a 1 KiB response with its head fits one), so that a run with few connections
// (50: 64 buffers) does not keep 256 KiB resident. A connection has no receive buffer of its own;
// a turn that needs more re-arms the receives that ran dry.
constexpr unsigned kBufferCount = 128;  // the ring's capacity
constexpr unsigned kBufferStep = 32;    // provided at the start, and added each time they run out
constexpr uint16_t kBufferGroup = 0;
constexpr uint64_t kOpMask = 7;
constexpr uint64_t kIgnore = 0;  // cancellations' own completions

// Debian 12's liburing 2.3 declares io_uring_enable_rings but does not export it.
void enable_rings(io_uring* ring) {
  syscall(__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0);
}

std::string probe_uring() {
  io_uring ring;
  io_uring_params params{};
  const int err = io_uring_queue_init_params(4, &ring, &params);
  if (err < 0) return std::string("io_uring_setup: ") + std::strerror(-err);
  std::string why;
  // Multishot receive with provided buffer rings, and waits with a timeout in one call.
  if (!(params.features & IORING_FEAT_EXT_ARG)) why = "kernel too old (no IORING_FEAT_EXT_ARG)";
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  if (probe == nullptr) {
    why = "io_uring probe failed";
  } else {
    for (int op : {IORING_OP_RECV, IORING_OP_SEND, IORING_OP_POLL_ADD, IORING_OP_ASYNC_CANCEL}) {
      if (!io_uring_opcode_supported(probe, op)) why = "kernel lacks a needed io_uring operation";
    }
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  return why;
}
}  // namespace

const std::string& UringIo::unavailable_reason() {
  static const std::string reason = probe_uring();
  return reason;
}

Result<std::unique_ptr<UringIo>> UringIo::create(int wake_fd) {
  if (!unavailable_reason().empty()) return make_error("io_uring: " + unavailable_reason());
  std::unique_ptr<UringIo> io(new UringIo(wake_fd));
  io_uring_params params{};
  // One thread submits and reaps (the loop's), and completions are processed only when it waits:
  // no interrupting task work while it dispatches. Older kernels refuse the flags: plain ring.
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED |
                 IORING_SETUP_CQSIZE;
  params.cq_entries = kCompletionEntries;
  int err = io_uring_queue_init_params(kRingEntries, &io->ring_, &params);
  io->deferred_ = true;
  if (err == -EINVAL) {
    params = io_uring_params{};
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = kCompletionEntries;
    err = io_uring_queue_init_params(kRingEntries, &io->ring_, &params);
    io->enabled_ = true;
    io->deferred_ = false;
  }
  if (err < 0) return make_error(std::string("io_uring_setup: ") + std::strerror(-err));
  io->ring_ok_ = true;
  // The provided-buffer ring: its entries, then the buffers, in one anonymous mapping.
  const size_t entries_bytes = kBufferCount * sizeof(io_uring_buf);
  io->ring_bytes_ = entries_bytes + kBufferCount * kBufferBytes;
  void* mem =
      mmap(nullptr, io->ring_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) return make_error(std::string("mmap: ") + std::strerror(errno));
  io->buf_ring_ = static_cast<io_uring_buf_ring*>(mem);
  io->buffers_ = static_cast<char*>(mem) + entries_bytes;
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(mem);
  reg.ring_entries = kBufferCount;
  reg.bgid = kBufferGroup;
  err = io_uring_register_buf_ring(&io->ring_, &reg, 0);
  if (err < 0) return make_error(std::string("io_uring buffer ring: ") + std::strerror(-err));
  io_uring_buf_ring_init(io->buf_ring_);
  io->provide_more_buffers();
  io->arm_wake();
  return io;
}

UringIo::~UringIo() {
  if (ring_ok_) io_uring_queue_exit(&ring_);  // the kernel cancels what is still in flight
  if (buf_ring_ != nullptr) munmap(buf_ring_, ring_bytes_);
}

io_uring_sqe* UringIo::sqe() {
  io_uring_sqe* s = io_uring_get_sqe(&ring_);
  if (s != nullptr) return s;
  // The submission queue is full: hand it to the kernel and take a fresh slot. A ring still
  // disabled is enabled here: this is the loop's thread opening its connections before it runs
  // (nothing else queues requests).
  if (!enabled_) {
    enable_rings(&ring_);
    enabled_ = true;
  }
  io_uring_submit(&ring_);
  s = io_uring_get_sqe(&ring_);
  if (s == nullptr) std::abort();
  return s;
}

void UringIo::arm_wake() {
  io_uring_sqe* s = sqe();
  io_uring_prep_poll_multishot(s, wake_fd_, POLLIN);
  io_uring_sqe_set_data64(s, kOpWake);
}

void UringIo::arm_poll(Reg* r) {
  io_uring_sqe* s = sqe();
  // Multishot poll reports each wake-up of the socket, as edge-triggered epoll does.
  io_uring_prep_poll_multishot(s, r->fd, r->events & ~static_cast<uint32_t>(EPOLLET));
  io_uring_sqe_set_data64(s, reinterpret_cast<uint64_t>(r) | kOpPoll);
  r->poll_armed = true;
  ++r->ops;
}

void UringIo::arm_recv(Reg* r) {
  io_uring_sqe* s = sqe();
  io_uring_prep_recv_multishot(s, r->fd, nullptr, 0, 0);
  s->flags |= IOSQE_BUFFER_SELECT;
  s->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(s, reinterpret_cast<uint64_t>(r) | kOpRecv);
  r->recv_armed = true;
  ++r->ops;
}

void UringIo::cancel(Reg* r, Op op) {
  io_uring_sqe* s = sqe();
  io_uring_prep_cancel64(s, reinterpret_cast<uint64_t>(r) | op, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(s, kIgnore);
  inline_pending_ += 2;  // the cancellation's completion and its target's last one
}

int UringIo::add(int fd, uint32_t events, IoHandler* handler) {
  if (fd < 0) return EBADF;
  if (static_cast<size_t>(fd) >= by_fd_.size()) by_fd_.resize(static_cast<size_t>(fd) * 3 / 2 + 64);
  if (by_fd_[fd] != nullptr) return EEXIST;
  Reg* r = nullptr;
  if (!free_regs_.empty()) {
    r = free_regs_.back();
    free_regs_.pop_back();
  } else {
    r = &regs_.emplace_back();
  }
  *r = Reg{};  // freed = false
  r->fd = fd;
  r->handler = handler;
  r->events = events;
  by_fd_[fd] = r;
  arm_poll(r);
  return 0;
}

void UringIo::remove(int fd) {
  Reg* r = reg_of(fd);
  if (r == nullptr) return;
  by_fd_[fd] = nullptr;
  r->handler = nullptr;
  r->stream = nullptr;
  // By user data, never by fd: the fd number may be reused before the cancellation is submitted,
  // and the ring's requests keep the old socket open until they end.
  if (r->poll_armed) cancel(r, kOpPoll);
  if (r->recv_armed) cancel(r, kOpRecv);
  if (r->send_armed) cancel(r, kOpSend);
  release_if_done(r);
}

void UringIo::release_if_done(Reg* r) {
  if (r->handler == nullptr && r->ops == 0 && !r->rearm_listed && !r->notify_listed && !r->freed) {
    r->freed = true;
    free_regs_.push_back(r);
  }
}

bool UringIo::attach_stream(int fd, UringStream* stream) {
  Reg* r = reg_of(fd);
  if (r == nullptr) return false;
  r->stream = stream;
  receive_by_ring(fd);
  return true;
}

void UringIo::detach_stream(int fd) {
  Reg* r = reg_of(fd);
  if (r != nullptr) r->stream = nullptr;
}

void UringIo::receive_by_ring(int fd) {
  Reg* r = reg_of(fd);
  if (r == nullptr) return;
  r->receiving = true;
  if (r->poll_armed) {
    cancel(r, kOpPoll);
    r->poll_armed = false;  // its last completion (ECANCELED) only counts down ops
  }
  if (!r->recv_armed) arm_recv(r);
}

void UringIo::receive_by_readiness(int fd) {
  Reg* r = reg_of(fd);
  if (r == nullptr) return;
  r->receiving = false;
  if (r->recv_armed) {
    // Submitted before the next wait, so the ring takes no more bytes from the socket: with
    // deferred task work it receives only inside that wait, after its submissions.
    cancel(r, kOpRecv);
    r->recv_armed = false;
  }
  r->events = EPOLLIN | EPOLLRDHUP;
  if (!r->poll_armed) arm_poll(r);
}

bool UringIo::send(int fd, const char* data, size_t len) {
  Reg* r = reg_of(fd);
  if (r == nullptr || r->send_armed) return false;
  io_uring_sqe* s = sqe();
  io_uring_prep_send(s, fd, data, len, MSG_NOSIGNAL | MSG_WAITALL);
  io_uring_sqe_set_data64(s, reinterpret_cast<uint64_t>(r) | kOpSend);
  ++inline_pending_;
  r->send_armed = true;
  ++r->ops;
  return true;
}

void UringIo::retire_send_buffer(int fd, std::unique_ptr<char[]> buffer) {
  Reg* r = reg_of(fd);
  if (r == nullptr || !r->send_armed) return;  // nothing reads it any more: freed here
  r->retired_buffer = true;
  retired_.emplace_back(r, std::move(buffer));
}

void UringIo::provide_more_buffers() {
  const unsigned count = std::min(kBufferStep, kBufferCount - buffers_provided_);
  const int mask = io_uring_buf_ring_mask(kBufferCount);
  for (unsigned i = 0; i < count; ++i) {
    const unsigned bid = buffers_provided_ + i;
    io_uring_buf_ring_add(buf_ring_, buffers_ + static_cast<size_t>(bid) * kBufferBytes,
                          kBufferBytes, static_cast<uint16_t>(bid), mask, static_cast<int>(i));
  }
  io_uring_buf_ring_advance(buf_ring_, static_cast<int>(count));
  buffers_provided_ += count;
}

void UringIo::recycle(uint16_t bid) {
  io_uring_buf_ring_add(buf_ring_, buffers_ + static_cast<size_t>(bid) * kBufferBytes, kBufferBytes,
                        bid, io_uring_buf_ring_mask(kBufferCount), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
}

void UringIo::submit_now() {
  if (!enabled_) return;
  io_uring_submit(&ring_);
  // Their completions are in the queue now (counted there by the next wait), not due on the
  // next submission.
  inline_pending_ = 0;
}

bool UringIo::has_new_completions() {
  // Deferred task work: completions are posted only when this thread asks.
  if (io_uring_cq_ready(&ring_) <= inline_done_) io_uring_get_events(&ring_);
  return io_uring_cq_ready(&ring_) > inline_done_;
}

bool UringIo::wait(uint64_t now_ns, uint64_t deadline_ns, uint32_t completions) {
  if (!enabled_) {
    enable_rings(&ring_);
    enabled_ = true;
  }
  end_batch();
  // Sends and cancellations complete as they are submitted: they are not what the loop waits
  // for, so the count asked for is on top of them (and of what is already ready).
  inline_done_ = io_uring_cq_ready(&ring_) + inline_pending_;
  const unsigned wait_nr = inline_done_ + completions;
  inline_pending_ = 0;
  io_uring_cqe* cqe = nullptr;
  int err = 0;
  if (deadline_ns == UINT64_MAX) {
    err = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_nr, nullptr, nullptr);
  } else {
    const uint64_t wait_ns = deadline_ns > now_ns ? deadline_ns - now_ns : 0;
    __kernel_timespec ts{static_cast<int64_t>(wait_ns / kNsPerSec),
                         static_cast<long long>(wait_ns % kNsPerSec)};
    if (wait_ns == 0) {
      err = io_uring_submit(&ring_);
      io_uring_get_events(&ring_);
    } else {
      err = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_nr, &ts, nullptr);
    }
  }
  if (err == -EINTR) return false;
  if (err < 0 && err != -ETIME && err != -EBUSY && err != -EAGAIN) {
    std::abort();  // can't happen: the ring and its queues are ours and valid
  }
  return true;
}

bool UringIo::reap() {
  bool woke = false;
  io_uring_cqe* cqe = nullptr;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    const io_uring_cqe c = *cqe;
    const uint64_t data = c.user_data;
    if (data == kIgnore || data == LIBURING_UDATA_TIMEOUT) continue;
    if (data == kOpWake) {
      woke = true;
      if (!(c.flags & IORING_CQE_F_MORE)) arm_wake();
      continue;
    }
    Reg* r = reinterpret_cast<Reg*>(data & ~kOpMask);
    switch (data & kOpMask) {
      case kOpPoll:
        on_poll(r, c);
        break;
      case kOpRecv:
        on_recv(r, c);
        break;
      case kOpSend:
        on_send(r, c);
        break;
      default:
        std::abort();  // can't happen: every request's user data is one of the above
    }
  }
  io_uring_cq_advance(&ring_, seen);
  return woke;
}

void UringIo::notify(const bool* stopping, void (*between)(void*), void* ctx) {
  size_t i = 0;
  for (; i < notify_.size() && !*stopping; ++i) {
    Reg* r = notify_[i];
    const uint32_t events = r->pending_events;
    r->pending_events = 0;
    r->notify_listed = false;
    if (r->handler != nullptr && events != 0) r->handler->on_io(events);
    release_if_done(r);
    if (between != nullptr) between(ctx);
  }
  for (; i < notify_.size(); ++i) {  // the loop stops: what was not delivered is dropped
    notify_[i]->pending_events = 0;
    notify_[i]->notify_listed = false;
    release_if_done(notify_[i]);
  }
  notify_.clear();
}

void UringIo::post_events(Reg* r, uint32_t events) {
  if (r->handler == nullptr) return;
  r->pending_events |= static_cast<uint16_t>(events);
  if (!r->notify_listed) {
    r->notify_listed = true;
    notify_.push_back(r);
  }
}

void UringIo::on_poll(Reg* r, const io_uring_cqe& c) {
  if (!(c.flags & IORING_CQE_F_MORE)) {
    --r->ops;
    // A poll ends on cancellation, or when the kernel could not keep it armed: arm it again.
    if (r->poll_armed && c.res != -ECANCELED) {
      r->poll_armed = false;
      if (r->handler != nullptr) arm_poll(r);
    }
  }
  if (c.res != -ECANCELED) post_events(r, c.res < 0 ? EPOLLERR : static_cast<uint32_t>(c.res));
  release_if_done(r);
}

void UringIo::on_recv(Reg* r, const io_uring_cqe& c) {
  const bool more = (c.flags & IORING_CQE_F_MORE) != 0;
  if (!more) {
    --r->ops;
    if (c.res != -ECANCELED) r->recv_armed = false;  // a cancelled one was unmarked already
  }
  uint32_t events = EPOLLIN;
  if (c.flags & IORING_CQE_F_BUFFER) {
    const auto bid = static_cast<uint16_t>(c.flags >> IORING_CQE_BUFFER_SHIFT);
    if (r->stream != nullptr && c.res > 0) {
      r->stream->on_received(bid, buffers_ + static_cast<size_t>(bid) * kBufferBytes,
                             static_cast<size_t>(c.res));
    } else {
      recycle(bid);
    }
  }
  bool ended = false;
  if (c.res == 0) {
    ended = true;
    events |= EPOLLRDHUP;
    if (r->stream != nullptr) r->stream->on_recv_end(0);
  } else if (c.res == -ENOBUFS) {
    ran_dry_ = true;
  } else if (c.res < 0 && c.res != -ECANCELED) {
    ended = true;
    events |= EPOLLERR;
    if (r->stream != nullptr) r->stream->on_recv_end(-c.res);
  }
  // Out of buffers (or ended by the kernel for another reason): armed again once this batch has
  // handed its buffers back.
  if (!more && !ended && c.res != -ECANCELED && r->stream != nullptr && !r->rearm_listed) {
    r->rearm_listed = true;
    rearm_.push_back(r);
  }
  if (r->stream != nullptr && c.res != -ENOBUFS && c.res != -ECANCELED) post_events(r, events);
  release_if_done(r);
}

void UringIo::on_send(Reg* r, const io_uring_cqe& c) {
  --r->ops;
  r->send_armed = false;
  if (r->retired_buffer) {
    r->retired_buffer = false;
    std::erase_if(retired_, [r](const auto& entry) { return entry.first == r; });
  }
  if (r->stream != nullptr && r->stream->on_sent(c.res)) {
    post_events(r, c.res < 0 ? EPOLLOUT | EPOLLERR : EPOLLOUT);
  }
  release_if_done(r);
}

void UringIo::end_batch() {
  if (ran_dry_) {
    ran_dry_ = false;
    if (buffers_provided_ < kBufferCount) provide_more_buffers();
  }
  for (Reg* r : rearm_) {
    r->rearm_listed = false;
    if (r->handler != nullptr && r->stream != nullptr && r->receiving && !r->recv_armed) {
      arm_recv(r);
    }
    release_if_done(r);
  }
  rearm_.clear();
}

}  // namespace hail
