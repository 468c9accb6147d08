#include "load/connection.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/clock.h"
#include "core/errno_reason.h"
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
constexpr uint32_t kMaxBackoffMs = 1000;
// Edge-triggered with both directions from the start: no epoll_ctl is ever needed after the
// connection is registered (connect completion arrives as EPOLLOUT, responses as EPOLLIN).
constexpr uint32_t kEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
}  // namespace

Connection::~Connection() = default;

void Connection::init(Worker* worker, uint32_t index) {
  worker_ = worker;
  index_ = index;
  timer_.fn = &Connection::on_timer;
  timer_.ctx = this;
  transport_ = worker->new_transport(index);
  const WorkerConfig& c = worker->config();
  const uint32_t depth = std::max({c.pipeline, c.h2.max_streams, 1u});
  h1_.configure(c.pipeline, c.http09);
  // Scripts' response(status, headers, body) needs the whole answer: no discarding in the kernel.
  // ab's report needs the first response's Server field and length: connection 0 looks once.
  if ((c.script != nullptr && c.script->wants_response()) ||
      (c.first_response_facts && index == 0)) {
    h1_.set_capture(true);
  }
  slots_.clear();
  slots_.resize(depth);
  free_slots_.clear();
  for (uint32_t i = depth; i > 0; --i) free_slots_.push_back(i - 1);
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
    on_connect_failed(errno_reason(errno));
    return;
  }
  if (addr.family() != AF_UNIX) {
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  int rc = connect(fd_, reinterpret_cast<const sockaddr*>(&addr.storage), addr.len);
  if (rc != 0 && errno != EINPROGRESS) {
    on_connect_failed(errno_reason(errno));
    return;
  }
  if (int err = w.loop().add(fd_, kEvents, this); err != 0) {
    on_connect_failed(errno_reason(err));
    return;
  }
  // The connect (and TLS handshake) deadline shares the request timeout.
  deadline_ns_ = connect_start_ns_ + w.config().timeout_ns;
  w.loop().arm(timer_, deadline_ns_);
}

void Connection::on_connect_failed(const char* reason) {
  Worker& w = *worker_;
  close_fd();
  w.on_connect_end();
  if (!w.finished()) {
    const bool counted = w.loop().now_ns() >= w.config().measure_start_ns;
    if (counted) {
      w.recorder().on_error(ErrorClass::kConnect);
      w.recorder().on_error_reason(ErrorClass::kConnect, reason);
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
  if (now_ns >= w.config().measure_start_ns) w.recorder().on_connect(now_ns - connect_start_ns_);
  transport_->attach(fd_);
  if (!transport_->is_tls()) {
    on_handshake_done(now_ns);
    return;
  }
  state_ = State::kHandshaking;
  handshake_start_ns_ = now_ns;
  drive_handshake(now_ns);
}

void Connection::drive_handshake(uint64_t now_ns) {
  IoResult r = transport_->handshake();
  if (r.status == IoStatus::kOk) {
    Worker& w = *worker_;
    now_ns = w.loop().refresh_now_ns();
    if (now_ns >= w.config().measure_start_ns) {
      w.recorder().on_tls_handshake(now_ns - handshake_start_ns_, transport_->tls_resumed());
    }
    on_handshake_done(now_ns);
    return;
  }
  if (r.status == IoStatus::kWouldBlock) return;  // the next edge drives it on
  on_connect_failed(r.status == IoStatus::kEof ? "TLS handshake: connection closed" : r.reason);
}

void Connection::on_handshake_done(uint64_t now_ns) {
  Worker& w = *worker_;
  state_ = State::kOpen;
  answered_ = false;  // the backoff is reset by the first response, not by the connect
  w.on_connect_end();
  w.on_connect_ok();
  fresh_ = true;
  connect_took_ns_ = now_ns - connect_start_ns_;
  w.recorder().on_connection_opened();
  w.on_opened();
  opened_ = true;
  const bool h2 = w.use_h2(transport_->alpn());
  if (h2 && !h2_) {
    h2_ = w.new_h2_session();
    if (w.script() != nullptr && w.script()->wants_response()) h2_->set_capture(true);
  }
  session_ = h2 && h2_ ? h2_.get() : static_cast<ClientSession*>(&h1_);
  w.recorder().on_protocol(h2 && h2_, transport_->tls_version(), transport_->tls_cipher());
  session_->reset();
  w.loop().cancel(timer_);
  become_ready(now_ns);
}

void Connection::become_ready(uint64_t now_ns) {
  if (worker_->rate_mode()) {
    if (!flush_write()) return;  // HTTP/2: the preface goes out at once
    worker_->on_idle(this);
    return;
  }
  fill(now_ns);
  flush_write();
}

bool Connection::submit(uint64_t now_ns, uint64_t planned_ns) {
  Worker& w = *worker_;
  if (!w.keeps(index_)) {
    // The connection target shrank while this one was connecting or waiting.
    if (in_flight_ == 0) retire();
    return false;
  }
  bool counted = false;
  if (free_slots_.empty() || !w.acquire_request(planned_ns, &counted)) {
    if (in_flight_ == 0) state_ = State::kIdle;  // the plan is done with this connection
    return false;
  }
  const uint32_t slot = free_slots_.back();
  Slot& s = slots_[slot];
  uint16_t tag = RequestSource::kNoTag;
  if (w.source().dynamic() && !s.own) s.own = std::make_unique<RequestTemplate>();
  const RequestTemplate* request = w.source().next(index_, w.group_of(index_), s.own.get(), &tag);
  if (request == nullptr) {
    // The script failed: the run stops (the acquired request was never attempted).
    w.stop_for_script(w.source().error());
    return false;
  }
  free_slots_.pop_back();
  s.send_ns = now_ns;
  s.planned_ns = planned_ns;
  s.busy = true;
  s.counted = counted;
  s.tag = tag;
  s.start_ns = fresh_ ? connect_start_ns_ : now_ns;
  s.connect_ns = fresh_ ? connect_took_ns_ : 0;
  s.first_byte_ns = 0;
  fresh_ = false;
  ++in_flight_;
  thinking_ = false;
  session_->submit(slot, *request);
  if (counted) w.recorder().on_attempt();
  // Lazy timeout: the timer is armed for the oldest request and re-armed when it fires early.
  if (!timer_.armed()) w.loop().arm(timer_, now_ns + w.config().timeout_ns);
  return true;
}

void Connection::fill(uint64_t now_ns) {
  while (state_ == State::kOpen && session_->capacity() > 0 && submit(now_ns, now_ns)) {
  }
}

void Connection::send_planned(uint64_t planned_ns) {
  if (submit(worker_->loop().refresh_now_ns(), planned_ns)) flush_write();
}

bool Connection::flush_write() {
  Worker& w = *worker_;
  for (;;) {
    std::string_view out = session_->pending_output();
    if (out.empty()) return true;
    IoResult r = transport_->write(out.data(), out.size());
    if (r.status == IoStatus::kOk) {
      session_->consume_output(r.bytes);
      if (w.loop().now_ns() >= w.config().measure_start_ns) {
        w.recorder().on_bytes_written(r.bytes);
      }
      // HTTP/0.9 (webbench -9): the request is all there will ever be on this connection, and
      // a half-close says so, as webbench does: a server that waits for more of a request head
      // answers (or closes) at once instead of at its header timeout.
      if (w.config().http09 && in_flight_ > 0 && !transport_->is_tls() &&
          session_->pending_output().empty()) {
        ::shutdown(fd_, SHUT_WR);
      }
      continue;
    }
    if (r.status == IoStatus::kWouldBlock) return true;  // EPOLLOUT resumes
    fail_all(ErrorClass::kWrite, r.reason);
    reconnect();
    return false;
  }
}

void Connection::on_io(uint32_t events) {
  Worker& w = *worker_;
  if (w.finished()) return;
  switch (state_) {
    case State::kConnecting: {
      if (events & (EPOLLERR | EPOLLHUP)) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
        on_connect_failed(errno_reason(err != 0 ? err : ECONNRESET));
        return;
      }
      if (!(events & EPOLLOUT)) return;
      on_connected(w.loop().refresh_now_ns());
      break;
    }
    case State::kHandshaking:
      drive_handshake(w.loop().refresh_now_ns());
      break;
    case State::kOpen:
    case State::kIdle:
      if ((events & EPOLLOUT) && !flush_write()) return;
      break;
    case State::kClosed:
    case State::kBackoff:
      return;
  }
  // Edge-triggered: bytes that came with this edge (or that TLS already decrypted) are read now,
  // whatever else this event did.
  if (state_ == State::kOpen || state_ == State::kIdle) on_readable(events);
}

void Connection::on_readable(uint32_t events) {
  Worker& w = *worker_;
  char* buf = w.read_buffer();
  // A short read normally means the socket is drained and new data will raise a new edge. A close
  // (FIN, RST) that arrived together with the data raises no further edge, so when the event
  // already reported one, read on until the transport says EOF or would-block.
  const bool peer_closed = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  const bool measuring_bytes = w.loop().now_ns() >= w.config().measure_start_ns;
  for (;;) {
    size_t skip = 0;
    if (in_flight_ > 0 && transport_->can_discard()) skip = session_->skippable_body_bytes();
    IoResult r;
    size_t want = 0;
    if (skip > 0) {
      // Body bytes nobody needs: discard them in the kernel instead of copying them out.
      want = std::min(skip, kMaxSkip);
      r = transport_->discard(want);
    } else {
      want = kReadChunk;
      r = transport_->read(buf, kReadChunk);
    }
    if (r.status == IoStatus::kOk) {
      w.loop().refresh_now_ns();
      if (measuring_bytes) w.recorder().on_bytes_read(r.bytes);
      SessionStatus st =
          skip > 0 ? session_->skip_body(r.bytes, *this) : session_->feed(buf, r.bytes, *this);
      if (w.finished()) return;
      if (st == SessionStatus::kError) {
        fail_all(session_->error(), session_->error_reason());
        reconnect();
        return;
      }
      if (!session_->reusable() && in_flight_ == 0) {
        reconnect_after(w.think_ns_next());
        return;
      }
      // A short plain-socket read means drained; TLS returns one record per read, so it reads
      // on until the transport would block.
      if (r.bytes < want && !peer_closed && !transport_->is_tls()) break;
      continue;
    }
    if (r.status == IoStatus::kWouldBlock) break;
    if (r.status == IoStatus::kEof) {
      session_->on_eof(*this);  // a body delimited by the close completes
      if (w.finished()) return;
      // Requests still in flight fail (a keep-alive connection the server closed just as a request
      // went out reads "closed before response"); an idle connection closed is not an error.
      if (in_flight_ > 0) fail_all(session_->error(), session_->error_reason());
      reconnect_after(reopen_delay_ns(session_->reusable() ? 0 : w.think_ns_next()));
      return;
    }
    // ECONNRESET and friends: the connection is gone.
    if (in_flight_ > 0) fail_all(ErrorClass::kRead, r.reason);
    reconnect_after(reopen_delay_ns(0));
    return;
  }
  // HTTP/2 answers what it read (SETTINGS and PING acknowledgements, WINDOW_UPDATE) at once.
  if (!flush_write()) return;
  after_responses(w.loop().now_ns());
}

void Connection::after_responses(uint64_t now_ns) {
  Worker& w = *worker_;
  if (state_ != State::kOpen || thinking_) return;
  if (!session_->reusable()) {
    if (in_flight_ == 0) reconnect_after(w.think_ns_next());
    return;
  }
  if (w.rate_mode()) {
    if (session_->capacity() > 0) w.on_idle(this);  // a planned request due now goes out at once
    return;
  }
  if (!w.keeps(index_)) {
    if (in_flight_ == 0) retire();  // the connection target shrank: its last request is done
    return;
  }
  if (session_->capacity() == 0) return;
  if (in_flight_ == 0) {
    const uint64_t think_ns = w.think_ns_next();
    if (w.finished()) return;
    if (think_ns != 0) {
      thinking_ = true;
      w.loop().arm(timer_, now_ns + think_ns);
      return;
    }
  } else if (w.config().think_ns != 0 || (w.script() != nullptr && w.script()->has_delay())) {
    return;  // the pause comes once the last request in flight is answered
  }
  if (!send_deferred_) {
    send_deferred_ = true;
    w.defer_send(this);
  }
}

void Connection::send_deferred() {
  if (!send_deferred_) return;
  send_deferred_ = false;
  // The connection may have been closed or filled since it was queued.
  if (state_ != State::kOpen) return;
  fill(worker_->loop().refresh_now_ns());
  if (state_ == State::kOpen) flush_write();
}

void Connection::on_first_byte(uint32_t slot) {
  Slot& s = slots_[slot];
  Worker& w = *worker_;
  s.first_byte_ns = w.loop().now_ns();
  if (s.counted) w.recorder().on_first_byte(s.first_byte_ns - s.send_ns);
}

void Connection::on_response_complete(uint32_t slot, int status, uint32_t interim) {
  Worker& w = *worker_;
  const Slot& s = slots_[slot];
  const uint64_t now_ns = w.loop().now_ns();
  if (s.counted) {
    Recorder& rec = w.recorder();
    if (w.rate_mode()) {
      rec.on_complete_planned(status, s.planned_ns, s.send_ns, now_ns);
    } else {
      rec.on_complete(status, now_ns - s.send_ns);
    }
    for (uint32_t i = 0; i < interim; ++i) rec.on_interim();
  }
  w.on_response_latency(now_ns - s.send_ns);
  const uint64_t latency_ns = now_ns - (w.rate_mode() ? s.planned_ns : s.send_ns);
  w.window_complete(s.counted, status, latency_ns);
  if (s.counted && s.tag != RequestSource::kNoTag) w.tags().on_complete(s.tag, status, latency_ns);
  if (s.counted && w.request_log_sink() != nullptr) log_request(s, status, now_ns);
  answered_ = true;
  backoff_ms_ = 0;
  finish_slot(slot);
  w.on_outcome(s.counted);
  if (stop_after_response_) {
    stop_after_response_ = false;
    w.stop_for_script(script_stop_);
  }
}

void Connection::on_request_failed(uint32_t slot, ErrorClass error, const char* reason) {
  Worker& w = *worker_;
  const Slot& s = slots_[slot];
  if (s.counted) {
    w.recorder().on_error(error);
    if (reason != nullptr && *reason != '\0') w.recorder().on_error_reason(error, reason);
    if (s.tag != RequestSource::kNoTag) w.tags().on_error(s.tag, error);
  }
  w.window_error(s.counted, error);
  finish_slot(slot);
  w.on_outcome(s.counted);
}

void Connection::finish_slot(uint32_t slot) {
  slots_[slot].busy = false;
  free_slots_.push_back(slot);
  --in_flight_;
}

void Connection::fail_all(ErrorClass error, const char* reason) {
  for (uint32_t i = 0; i < slots_.size() && in_flight_ > 0; ++i) {
    if (slots_[i].busy) on_request_failed(i, error, reason);
  }
}

uint32_t Connection::counted_in_flight() const {
  uint32_t n = 0;
  for (const Slot& s : slots_) n += s.busy && s.counted ? 1 : 0;
  return n;
}

void Connection::close_fd() {
  send_deferred_ = false;
  thinking_ = false;
  if (opened_) {
    opened_ = false;
    worker_->on_open_closed();
  }
  if (fd_ >= 0) {
    transport_->detach();
    // close() drops the epoll registration; forget() drops events of this batch still queued.
    worker_->loop().forget(this);
    ::close(fd_);
    fd_ = -1;
  }
}

void Connection::reconnect_after(uint64_t delay_ns) {
  Worker& w = *worker_;
  // Every request gets exactly one outcome: callers fail what is in flight first; this is a net.
  if (in_flight_ > 0 && !w.finished()) fail_all(ErrorClass::kRead, "connection closed");
  close_fd();
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

uint64_t Connection::reopen_delay_ns(uint64_t otherwise_ns) {
  if (answered_) return otherwise_ns;
  backoff_ms_ = backoff_ms_ == 0 ? kMinBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
  return std::max<uint64_t>(otherwise_ns, backoff_ms_ * kNsPerMs);
}

void Connection::retire() {
  if (in_flight_ > 0) fail_all(ErrorClass::kRead, "connection closed");
  close_fd();
  state_ = State::kClosed;
  worker_->loop().cancel(timer_);
}

void Connection::retire_if_idle() {
  if (in_flight_ > 0 || state_ == State::kConnecting || state_ == State::kHandshaking ||
      state_ == State::kClosed) {
    return;
  }
  retire();
}

void Connection::shutdown() {
  if (worker_ == nullptr) return;
  worker_->loop().cancel(timer_);
  close_fd();
  state_ = State::kClosed;
  for (Slot& s : slots_) s.busy = false;
  in_flight_ = 0;
}

void Connection::on_request_timer(uint64_t now_ns) {
  Worker& w = *worker_;
  const uint64_t timeout_ns = w.config().timeout_ns;
  uint64_t earliest_ns = UINT64_MAX;
  bool must_close = false;
  bool cancelled = false;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (!s.busy) continue;
    const uint64_t deadline_ns = s.send_ns + timeout_ns;
    if (deadline_ns > now_ns) {
      earliest_ns = std::min(earliest_ns, deadline_ns);
    } else if (session_->cancel(i)) {
      // HTTP/2: the stream is reset, the connection and its other streams live on.
      on_request_failed(i, ErrorClass::kTimeout, nullptr);
      cancelled = true;
      if (w.finished()) return;
    } else {
      must_close = true;
    }
  }
  if (must_close) {
    // HTTP/1: a real timeout closes the connection and reopens it; the late response is never
    // counted, and requests pipelined behind the late one are abandoned with it (also timeouts).
    fail_all(ErrorClass::kTimeout, nullptr);
    if (w.finished()) return;
    reconnect();
    return;
  }
  if (earliest_ns != UINT64_MAX) w.loop().arm(timer_, earliest_ns);
  if (cancelled && flush_write()) after_responses(now_ns);
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
    case State::kHandshaking:
      if (now_ns >= self->deadline_ns_) {
        self->on_connect_failed(self->state_ == State::kHandshaking ? "TLS handshake timed out"
                                                                    : errno_reason(ETIMEDOUT));
      } else {
        w.loop().arm(self->timer_, self->deadline_ns_);
      }
      return;
    case State::kOpen:
    case State::kIdle:
      if (self->thinking_ && self->in_flight_ == 0) {
        self->thinking_ = false;  // --think is over
        self->fill(now_ns);
        if (self->state_ == State::kOpen) self->flush_write();
        return;
      }
      if (self->in_flight_ > 0) self->on_request_timer(now_ns);
      return;
    case State::kClosed:
      return;
  }
}

}  // namespace hail
