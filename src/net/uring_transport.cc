#include "net/uring_transport.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "core/errno_reason.h"

namespace hail {

UringTransport::~UringTransport() {
  drop_chunks();
}

void UringTransport::attach(int fd) {
  drop_chunks();
  if (send_armed_) {
    // The last socket's send may still read its buffer (until its cancellation is submitted):
    // that buffer stays alive aside, and this connection starts with a new one.
    retired_ = std::move(sending_);
    sending_ = std::string();
  }
  sending_.clear();
  queued_.clear();
  sending_offset_ = 0;
  send_armed_ = false;
  recv_end_ = -1;
  send_error_ = 0;
  by_ring_ = true;
  discarded_ = false;
  shutdown_after_send_ = false;
  fd_ = fd;
  if (!io_->attach_stream(fd, this)) recv_end_ = EBADF;  // can't happen: connect registered fd
}

void UringTransport::detach() {
  if (fd_ < 0) return;
  // Bytes still queued (an HTTP/2 GOAWAY before a lingering close) leave before the fd does.
  if (send_armed_) io_->submit_now();
  io_->detach_stream(fd_);
  drop_chunks();
  fd_ = -1;
}

void UringTransport::drop_chunks() {
  while (chunk_count_ > 0) {
    io_->recycle(chunks_[chunk_head_].bid);
    chunk_head_ = (chunk_head_ + 1) & (chunks_.size() - 1);
    --chunk_count_;
  }
  chunk_head_ = 0;
  buffered_bytes_ = 0;
}

void UringTransport::on_received(uint16_t bid, const char* data, size_t len) {
  if (chunk_count_ == chunks_.size()) {
    std::vector<Chunk> bigger(std::max<size_t>(4, chunks_.size() * 2));
    for (size_t i = 0; i < chunk_count_; ++i) {
      bigger[i] = chunks_[(chunk_head_ + i) & (chunks_.size() - 1)];
    }
    chunks_.swap(bigger);
    chunk_head_ = 0;
  }
  chunks_[(chunk_head_ + chunk_count_) & (chunks_.size() - 1)] =
      Chunk{bid, data, static_cast<uint32_t>(len)};
  ++chunk_count_;
  buffered_bytes_ += len;
}

void UringTransport::on_recv_end(int err) {
  if (recv_end_ < 0) recv_end_ = err;
}

size_t UringTransport::take_chunks(char* out, size_t len) {
  size_t taken = 0;
  while (taken < len && chunk_count_ > 0) {
    Chunk& c = chunks_[chunk_head_];
    const size_t n = std::min<size_t>(len - taken, c.len);
    if (out != nullptr) std::memcpy(out + taken, c.data, n);
    taken += n;
    buffered_bytes_ -= n;
    c.data += n;
    c.len -= static_cast<uint32_t>(n);
    if (c.len == 0) {
      io_->recycle(c.bid);
      chunk_head_ = (chunk_head_ + 1) & (chunks_.size() - 1);
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
  const size_t held = sending_.size() - sending_offset_ + queued_.size();
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
      io_->send(fd_, sending_.data() + sending_offset_, sending_.size() - sending_offset_);
  if (!send_armed_) send_error_ = EBADF;  // can't happen: the fd is registered while attached
}

bool UringTransport::on_sent(int res) {
  send_armed_ = false;
  if (res < 0) {
    send_error_ = -res;
    return true;  // the writer learns it at its next write
  }
  sending_offset_ += static_cast<size_t>(res);
  if (sending_offset_ < sending_.size()) {
    if (res == 0) {
      send_error_ = EPIPE;  // the socket took nothing and will take nothing more
      return true;
    }
    start_send();  // a short send: the rest goes next
    return false;
  }
  sending_offset_ = 0;
  sending_.clear();
  if (!queued_.empty()) {
    sending_.swap(queued_);
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
