#include "net/uring_transport.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "core/errno_reason.h"

namespace hail {

namespace {
// Capacity for at least `len` bytes, double the current one if that is more. Small sizes fill
// their allocation exactly (malloc hands out 16-byte multiples, 8 of them its own): a connection's
// buffer usually holds one request, and there are as many buffers as connections.
uint32_t grown_capacity(uint32_t capacity, size_t len) {
  const size_t fitted = ((len + 8 + 15) & ~size_t{15}) - 8;
  return static_cast<uint32_t>(std::max<size_t>(fitted, size_t{capacity} * 2));
}
}  // namespace

void UringTransport::Bytes::assign(const char* from, size_t len) {
  size = 0;
  append(from, len);
}

void UringTransport::Bytes::append(const char* from, size_t len) {
  if (len == 0) return;
  if (size + len > capacity) {
    capacity = grown_capacity(capacity, size + len);
    std::unique_ptr<char[]> bigger(new char[capacity]);
    if (size > 0) std::memcpy(bigger.get(), data.get(), size);
    data = std::move(bigger);
  }
  std::memcpy(data.get() + size, from, len);
  size += static_cast<uint32_t>(len);
}

UringTransport::~UringTransport() {
  drop_chunks();
}

void UringTransport::attach(int fd) {
  detach();  // (a connection detaches before it reconnects: this is a net)
  sending_.size = 0;
  queued_.size = 0;
  sending_offset_ = 0;
  recv_end_ = -1;
  send_error_ = 0;
  by_ring_ = true;
  discarded_ = false;
  shutdown_after_send_ = false;
  want_writable_ = false;
  fd_ = fd;
  if (!io_->attach_stream(fd, this)) recv_end_ = EBADF;  // can't happen: connect registered fd
}

void UringTransport::detach() {
  if (fd_ < 0) return;
  if (send_armed_) {
    // Bytes still queued (an HTTP/2 GOAWAY before a lingering close) leave before the fd does.
    io_->submit_now();
    // The send may still read its buffer until its completion (the fd's cancellation comes with
    // the next submission): the ring keeps the buffer until then, and this connection will start
    // with a new one.
    io_->retire_send_buffer(fd_, std::move(sending_.data));
    sending_ = Bytes{};
    send_armed_ = false;
  }
  io_->detach_stream(fd_);
  drop_chunks();
  fd_ = -1;
}

void UringTransport::drop_chunks() {
  while (chunk_count_ > 0) {
    io_->recycle(chunks()[chunk_head_].bid);
    chunk_head_ = static_cast<uint16_t>((chunk_head_ + 1) & (chunk_capacity_ - 1));
    --chunk_count_;
  }
  chunk_head_ = 0;
  buffered_bytes_ = 0;
}

void UringTransport::on_received(uint16_t bid, const char* data, size_t len) {
  if (chunk_count_ == chunk_capacity_) {
    const auto capacity = static_cast<uint16_t>(chunk_capacity_ * 2);
    std::unique_ptr<Chunk[]> bigger(new Chunk[capacity]);
    Chunk* old = chunks();
    for (uint16_t i = 0; i < chunk_count_; ++i) {
      bigger[i] = old[(chunk_head_ + i) & (chunk_capacity_ - 1)];
    }
    heap_chunks_ = std::move(bigger);
    chunk_capacity_ = capacity;
    chunk_head_ = 0;
  }
  const auto offset = static_cast<uint16_t>(data - io_->buffer(bid));
  chunks()[(chunk_head_ + chunk_count_) & (chunk_capacity_ - 1)] =
      Chunk{bid, offset, static_cast<uint16_t>(len)};
  ++chunk_count_;
  buffered_bytes_ += static_cast<uint32_t>(len);
}

void UringTransport::on_recv_end(int err) {
  if (recv_end_ < 0) recv_end_ = static_cast<int16_t>(err);
}

size_t UringTransport::take_chunks(char* out, size_t len) {
  size_t taken = 0;
  while (taken < len && chunk_count_ > 0) {
    Chunk& c = chunks()[chunk_head_];
    const size_t n = std::min<size_t>(len - taken, c.len);
    if (out != nullptr) std::memcpy(out + taken, io_->buffer(c.bid) + c.offset, n);
    taken += n;
    buffered_bytes_ -= static_cast<uint32_t>(n);
    c.offset = static_cast<uint16_t>(c.offset + n);
    c.len = static_cast<uint16_t>(c.len - n);
    if (c.len == 0) {
      io_->recycle(c.bid);
      chunk_head_ = static_cast<uint16_t>((chunk_head_ + 1) & (chunk_capacity_ - 1));
      --chunk_count_;
    }
  }
  return taken;
}

IoResult UringTransport::read(char* buf, size_t len) {
  // Fills as much of buf as the chunks allow, so that a short read means "drained", as it does
  // for recv() on a socket.
  const size_t copied = take_chunks(buf, len);
  if (copied > 0) return IoResult{IoStatus::kOk, copied, nullptr};
  // (A failed send is the writer's to find, with EPOLLOUT: the receive side reports its own end.)
  if (recv_end_ == 0) return IoResult{IoStatus::kEof, 0, nullptr};
  if (recv_end_ > 0) return IoResult{IoStatus::kError, 0, errno_reason(recv_end_)};
  if (!by_ring_) {
    // After a discarded body the socket is read directly. Once it is drained with no body
    // discarded since it was last drained, the responses are small again: back to the ring.
    // (Large ones keep the connection here, saving two switches per response.)
    const IoResult r = recv_from_socket(fd_, buf, len);
    if (r.status == IoStatus::kWouldBlock) {
      if (!discarded_) {
        io_->receive_by_ring(fd_);
        by_ring_ = true;
      }
      discarded_ = false;
    }
    return r;
  }
  return IoResult{IoStatus::kWouldBlock, 0, nullptr};
}

IoResult UringTransport::discard(size_t len) {
  if (len > kRingBodyBytes) {
    // A large body: the ring would copy it all into its buffers (it receives whatever the socket
    // holds at each turn). It stands aside: the rest is dropped from the socket uncopied.
    discarded_ = true;
    if (by_ring_) {
      io_->receive_by_readiness(fd_);
      by_ring_ = false;
    }
  }
  const size_t skipped = take_chunks(nullptr, len);
  if (recv_end_ >= 0) {  // the end, in order
    return skipped > 0 ? IoResult{IoStatus::kOk, skipped, nullptr} : read(nullptr, 0);
  }
  if (skipped == len) return IoResult{IoStatus::kOk, skipped, nullptr};
  // The ring holds nothing more of this socket (UringIo::reap): what comes next is the socket's,
  // dropped without a copy while the ring stands aside.
  if (by_ring_) {
    io_->receive_by_readiness(fd_);
    by_ring_ = false;
  }
  const IoResult r = discard_from_socket(fd_, len - skipped);
  if (skipped == 0) return r;
  // Only bytes count here: a would-block or an end is met again on the next call.
  return IoResult{IoStatus::kOk, skipped + (r.status == IoStatus::kOk ? r.bytes : 0), nullptr};
}

IoResult UringTransport::write(const char* data, size_t len) {
  if (send_error_ != 0) return IoResult{IoStatus::kError, 0, errno_reason(send_error_)};
  if (fd_ < 0) return IoResult{IoStatus::kError, 0, errno_reason(EBADF)};
  // The transport holds at most kMaxQueuedBytes, in the send in the kernel's hands and queued
  // behind it, as a socket buffer would: beyond that the writer waits for EPOLLOUT, which a
  // send's completion brings. (So a large body is taken a piece at a time, and a server that
  // answers before reading it all finds the rest unsent, as with epoll.)
  if (!send_armed_) {
    const size_t take = std::min(len, kMaxQueuedBytes);
    sending_.assign(data, take);
    sending_offset_ = 0;
    start_send();
    return IoResult{IoStatus::kOk, take, nullptr};
  }
  const size_t held = sending_.size - sending_offset_ + queued_.size;
  if (held >= kMaxQueuedBytes) {
    want_writable_ = true;
    return IoResult{IoStatus::kWouldBlock, 0, nullptr};
  }
  const size_t take = std::min(len, kMaxQueuedBytes - held);
  queued_.append(data, take);
  return IoResult{IoStatus::kOk, take, nullptr};
}

void UringTransport::start_send() {
  send_armed_ =
      io_->send(fd_, sending_.data.get() + sending_offset_, sending_.size - sending_offset_);
  if (!send_armed_) send_error_ = EBADF;  // can't happen: the fd is registered while attached
}

bool UringTransport::on_sent(int res) {
  send_armed_ = false;
  if (res < 0) {
    send_error_ = static_cast<int16_t>(-res);
    return true;  // the writer learns it at its next write
  }
  sending_offset_ += static_cast<uint32_t>(res);
  if (sending_offset_ < sending_.size) {
    if (res == 0) {
      send_error_ = EPIPE;  // the socket took nothing and will take nothing more
      return true;
    }
    start_send();  // a short send: the rest goes next
    return false;
  }
  sending_offset_ = 0;
  sending_.size = 0;
  if (queued_.size > 0) {
    std::swap(sending_, queued_);
    start_send();
  } else if (shutdown_after_send_) {
    shutdown_after_send_ = false;
    ::shutdown(fd_, SHUT_WR);
  }
  const bool wake_writer = want_writable_;
  want_writable_ = false;
  return wake_writer;
}

void UringTransport::shutdown_write() {
  if (fd_ < 0) return;
  if (send_armed_) {
    shutdown_after_send_ = true;
    return;
  }
  ::shutdown(fd_, SHUT_WR);
}

}  // namespace hail
