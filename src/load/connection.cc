#include "load/connection.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/clock.h"
#include "load/worker.h"

namespace hail {

namespace {
// Bytes copied to user space per read while headers (or small bodies) are expected. Body bytes of a
// known length are discarded in the kernel with MSG_TRUNC instead, so a larger buffer would only
// add copying for big responses.
constexpr size_t kReadChunk = 16 * 1024;
// Upper bound for one MSG_TRUNC discard (it only frees socket buffers; the size is not copied).
constexpr size_t kMaxSkip = size_t{1} << 30;
constexpr uint32_t kMinBackoffMs = 5;

// recv(MSG_TRUNC) on TCP drops up to `len` received bytes without copying them anywhere. Issued as
// a raw syscall: sanitizers' recv interceptors would otherwise record a write of `len` bytes at
// the null buffer, a false data race between workers under ThreadSanitizer.
ssize_t discard(int fd, size_t len) {
  return syscall(SYS_recvfrom, fd, nullptr, len, MSG_TRUNC | MSG_DONTWAIT, nullptr, nullptr);
}
constexpr uint32_t kMaxBackoffMs = 1000;
// Edge-triggered with both directions from the start: no epoll_ctl is ever needed after the
// connection is registered (connect completion arrives as EPOLLOUT, responses as EPOLLIN).
constexpr uint32_t kEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
}  // namespace

void Connection::init(Worker* worker, uint32_t index) {
  worker_ = worker;
  index_ = index;
  timer_.fn = &Connection::on_timer;
  timer_.ctx = this;
}

void Connection::start() {
  connect_now();
}

void Connection::connect_now() {
  Worker& w = *worker_;
  const SocketAddress& addr = w.address_for(index_);
  state_ = State::kConnecting;
  w.on_connect_start();
  connect_start_ns_ = w.loop().refresh_now_ns();
  fd_ = socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    on_connect_failed(errno);
    return;
  }
  if (addr.family() != AF_UNIX) {
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  int rc = connect(fd_, reinterpret_cast<const sockaddr*>(&addr.storage), addr.len);
  if (rc != 0 && errno != EINPROGRESS) {
    on_connect_failed(errno);
    return;
  }
  if (int err = w.loop().add(fd_, kEvents, this); err != 0) {
    on_connect_failed(err);
    return;
  }
  // The connect deadline shares the request timeout.
  deadline_ns_ = connect_start_ns_ + w.config().timeout_ns;
  w.loop().arm(timer_, deadline_ns_);
}

void Connection::on_connect_failed(int err) {
  Worker& w = *worker_;
  close_fd();
  w.on_connect_end();
  if (!w.finished()) {
    const bool counted = w.loop().now_ns() >= w.config().measure_start_ns;
    if (counted) {
      w.recorder().on_error(ErrorClass::kConnect);
      w.recorder().on_error_reason(ErrorClass::kConnect, errno_reason(err));
    }
    w.window_error(counted, ErrorClass::kConnect);
  }
  w.on_connect_failed();
  if (w.finished()) return;
  // Back off so that a refusing server is not hammered in a tight loop (and the count of connect
  // errors means attempts a user can reason about), but come back fast once it is up again.
  backoff_ms_ = backoff_ms_ == 0 ? kMinBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
  state_ = State::kBackoff;
  w.loop().arm(timer_, w.loop().now_ns() + backoff_ms_ * kNsPerMs);
}

void Connection::on_connected(uint64_t now_ns) {
  Worker& w = *worker_;
  state_ = State::kOpen;
  backoff_ms_ = 0;
  w.on_connect_end();
  w.on_connect_ok();
  w.recorder().on_connection_opened();
  w.on_opened();
  opened_ = true;
  if (now_ns >= w.config().measure_start_ns) w.recorder().on_connect(now_ns - connect_start_ns_);
  become_ready(now_ns);
}

void Connection::become_ready(uint64_t now_ns) {
  if (worker_->rate_mode()) {
    worker_->on_idle(this);
  } else {
    send_request(now_ns, now_ns);
  }
}

void Connection::send_planned(uint64_t planned_ns) {
  send_request(worker_->loop().refresh_now_ns(), planned_ns);
}

void Connection::send_request(uint64_t now_ns, uint64_t planned_ns) {
  Worker& w = *worker_;
  if (!w.keeps(index_)) {
    retire();  // the connection target shrank while this one was connecting or waiting
    return;
  }
  if (!w.acquire_request(planned_ns, &counted_)) {
    state_ = State::kIdle;  // the plan is done with this connection
    return;
  }
  in_flight_ = true;
  thinking_ = false;
  first_byte_seen_ = false;
  send_ns_ = now_ns;
  planned_ns_ = planned_ns;
  write_offset_ = 0;
  parser_.begin_response(w.config().head_request);
  if (counted_) w.recorder().on_attempt();
  // Lazy timeout: only the deadline moves per request; the timer is re-armed when it fires early.
  deadline_ns_ = now_ns + w.config().timeout_ns;
  if (!timer_.armed()) w.loop().arm(timer_, deadline_ns_);
  flush_write();
}

bool Connection::flush_write() {
  Worker& w = *worker_;
  const std::string& req = w.config().request;
  while (write_offset_ < req.size()) {
    ssize_t n = send(fd_, req.data() + write_offset_, req.size() - write_offset_,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      write_offset_ += static_cast<size_t>(n);
      if (counted_) w.recorder().on_bytes_written(static_cast<uint64_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;  // EPOLLOUT resumes
    fail_request(ErrorClass::kWrite, errno_reason(errno));
    return false;
  }
  return true;
}

void Connection::on_io(uint32_t events) {
  Worker& w = *worker_;
  if (w.finished()) return;
  if (state_ == State::kConnecting) {
    if (events & (EPOLLERR | EPOLLHUP)) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
      on_connect_failed(err != 0 ? err : ECONNRESET);
      return;
    }
    if (!(events & EPOLLOUT)) return;
    on_connected(w.loop().refresh_now_ns());
    if (state_ != State::kOpen && state_ != State::kIdle) return;
  } else if ((events & EPOLLOUT) && in_flight_ && write_offset_ < w.config().request.size()) {
    if (!flush_write()) return;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(events);
}

void Connection::on_readable(uint32_t events) {
  Worker& w = *worker_;
  char* buf = w.read_buffer();
  // Edge-triggered: a short read normally means the socket is drained and new data will raise a
  // new edge. A close (FIN, RST) that arrived together with the data raises no further edge, so
  // when the event already reported one, read on until recv says EOF or EAGAIN.
  const bool peer_closed = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  for (;;) {
    size_t skip = in_flight_ ? parser_.skippable_body_bytes() : 0;
    if (skip > 0) {
      // Body bytes of known length: discard them in the kernel instead of copying them out.
      size_t want = std::min(skip, kMaxSkip);
      ssize_t n = discard(fd_, want);
      if (n > 0) {
        uint64_t now_ns = w.loop().refresh_now_ns();
        if (counted_) w.recorder().on_bytes_read(static_cast<uint64_t>(n));
        ParseResult r = parser_.skip_body(static_cast<size_t>(n));
        if (r.status == ParseStatus::kComplete) {
          if (!on_response_complete(now_ns, false)) return;
        }
        if (static_cast<size_t>(n) < want && !peer_closed) return;  // drained
        continue;
      }
      if (n == 0) {
        on_eof(w.loop().refresh_now_ns());
        return;
      }
    } else {
      ssize_t n = recv(fd_, buf, kReadChunk, MSG_DONTWAIT);
      if (n > 0) {
        uint64_t now_ns = w.loop().refresh_now_ns();
        if (!process(buf, static_cast<size_t>(n), now_ns)) return;
        if (static_cast<size_t>(n) < kReadChunk && !peer_closed) return;  // drained
        continue;
      }
      if (n == 0) {
        on_eof(w.loop().refresh_now_ns());
        return;
      }
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    // ECONNRESET and friends: the connection is gone.
    if (in_flight_) {
      fail_request(ErrorClass::kRead, errno_reason(errno));
    } else {
      reconnect();
    }
    return;
  }
}

bool Connection::process(const char* data, size_t len, uint64_t now_ns) {
  Worker& w = *worker_;
  if (!in_flight_) {
    // Bytes nobody asked for (a server's unsolicited 408 before closing an idle connection, or a
    // surplus response): the connection can no longer be trusted to frame the next response.
    reconnect();
    return false;
  }
  if (counted_) {
    w.recorder().on_bytes_read(len);
    if (!first_byte_seen_) w.recorder().on_first_byte(now_ns - send_ns_);
  }
  first_byte_seen_ = true;
  while (len > 0) {
    ParseResult r = parser_.feed(data, len);
    data += r.consumed;
    len -= r.consumed;
    if (r.status == ParseStatus::kNeedMore) return true;
    if (r.status == ParseStatus::kError) {
      fail_request(ErrorClass::kParse, parser_.error_reason());
      return false;
    }
    if (!on_response_complete(now_ns, len > 0)) return false;
  }
  return true;
}

bool Connection::on_response_complete(uint64_t now_ns, bool more_bytes_follow) {
  Worker& w = *worker_;
  in_flight_ = false;
  if (counted_) {
    Recorder& rec = w.recorder();
    if (w.rate_mode()) {
      rec.on_complete_planned(parser_.status(), planned_ns_, send_ns_, now_ns);
    } else {
      rec.on_complete(parser_.status(), now_ns - send_ns_);
    }
    for (uint32_t i = 0; i < parser_.interim_responses(); ++i) rec.on_interim();
  }
  w.window_complete(counted_, parser_.status(), now_ns - (w.rate_mode() ? planned_ns_ : send_ns_));
  w.on_outcome(counted_);
  if (w.finished()) return false;
  const uint64_t think_ns = w.config().think_ns;
  // A response that arrived before its request was fully written (a server answering early, e.g.
  // 413 to an upload) leaves the rest of that request unsent: the connection cannot be reused.
  const bool request_unsent = write_offset_ < w.config().request.size();
  if (more_bytes_follow || request_unsent || !parser_.keep_alive() || !w.config().keep_alive) {
    reconnect_after(think_ns);
    return false;
  }
  if (w.rate_mode()) {
    w.on_idle(this);  // the next planned request, if one is due, goes out at once
    return state_ == State::kOpen;
  }
  if (!w.keeps(index_)) {
    retire();  // the connection target shrank: this connection's last request is done
    return false;
  }
  if (think_ns != 0) {
    thinking_ = true;
    w.loop().arm(timer_, now_ns + think_ns);
    return true;
  }
  if (!send_deferred_) {
    send_deferred_ = true;
    w.defer_send(this);
  }
  return true;
}

void Connection::send_deferred() {
  if (!send_deferred_) return;
  send_deferred_ = false;
  // The connection may have been closed or reused since it was queued.
  if (state_ != State::kOpen || in_flight_) return;
  uint64_t now_ns = worker_->loop().refresh_now_ns();
  send_request(now_ns, now_ns);
}

void Connection::on_eof(uint64_t now_ns) {
  if (!in_flight_) {
    reconnect();  // the server closed an idle keep-alive connection: not an error
    return;
  }
  ParseResult r = parser_.on_eof();
  if (r.status == ParseStatus::kComplete) {
    // A body delimited by the close: complete; on_response_complete reconnects.
    on_response_complete(now_ns, false);
    if (state_ == State::kOpen) reconnect();
    return;
  }
  fail_request(ErrorClass::kRead, parse_error_kind_name(parser_.error_kind()));
}

void Connection::fail_request(ErrorClass error, const char* reason) {
  Worker& w = *worker_;
  in_flight_ = false;
  if (counted_) {
    w.recorder().on_error(error);
    if (reason != nullptr) w.recorder().on_error_reason(error, reason);
  }
  w.window_error(counted_, error);
  w.on_outcome(counted_);
  if (w.finished()) return;
  reconnect();
}

void Connection::close_fd() {
  send_deferred_ = false;
  thinking_ = false;
  if (opened_) {
    opened_ = false;
    worker_->on_open_closed();
  }
  if (fd_ >= 0) {
    // close() drops the epoll registration; forget() drops events of this batch still queued.
    worker_->loop().forget(this);
    ::close(fd_);
    fd_ = -1;
  }
}

void Connection::reconnect_after(uint64_t delay_ns) {
  Worker& w = *worker_;
  close_fd();
  in_flight_ = false;
  state_ = State::kClosed;
  if (w.finished() || !w.wants_more() || !w.keeps(index_)) {
    w.loop().cancel(timer_);
    return;
  }
  if (delay_ns != 0) {
    state_ = State::kBackoff;  // the backoff timer's path: connect when it fires
    w.loop().arm(timer_, w.loop().now_ns() + delay_ns);
    return;
  }
  connect_now();
}

void Connection::retire() {
  close_fd();
  in_flight_ = false;
  state_ = State::kClosed;
  worker_->loop().cancel(timer_);
}

void Connection::retire_if_idle() {
  if (in_flight_ || state_ == State::kConnecting || state_ == State::kClosed) return;
  retire();
}

void Connection::shutdown() {
  if (worker_ == nullptr) return;
  worker_->loop().cancel(timer_);
  close_fd();
  state_ = State::kClosed;
  in_flight_ = false;
}

void Connection::on_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Connection*>(ctx);
  Worker& w = *self->worker_;
  if (w.finished()) return;
  uint64_t now_ns = w.loop().now_ns();
  switch (self->state_) {
    case State::kBackoff:
      if (!w.keeps(self->index_)) {
        self->retire();
        return;
      }
      self->connect_now();
      return;
    case State::kConnecting:
      if (now_ns >= self->deadline_ns_) {
        self->on_connect_failed(ETIMEDOUT);
      } else {
        w.loop().arm(self->timer_, self->deadline_ns_);
      }
      return;
    case State::kOpen:
      if (!self->in_flight_) {
        if (self->thinking_) self->send_request(now_ns, now_ns);  // --think is over
        return;  // otherwise an idle keep-alive connection: nothing to time
      }
      if (now_ns >= self->deadline_ns_) {
        // A real timeout: the connection is closed and reopened, the late response never counted.
        self->fail_request(ErrorClass::kTimeout);
      } else {
        w.loop().arm(self->timer_, self->deadline_ns_);
      }
      return;
    case State::kClosed:
    case State::kIdle:
      return;
  }
}

}  // namespace hail
