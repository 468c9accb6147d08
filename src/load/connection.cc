#include "load/connection.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/clock.h"
#include "core/errno_reason.h"
#include "load/measurement_sink.h"
#include "load/request_source.h"
#include "net/address.h"
#include "net/lingering_close.h"

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

void Connection::init(const ConnectionEnv* env, uint32_t index, uint32_t group,
                      const SocketAddress* address, std::unique_ptr<Transport> transport) {
  env_ = env;
  index_ = index;
  group_ = group;
  address_ = address;
  transport_ = std::move(transport);
  timer_.fn = &Connection::on_timer;
  timer_.ctx = this;
  const uint32_t depth = env->sessions->max_in_flight();
  slots_.clear();
  slots_.resize(depth);
  free_slots_.clear();
  for (uint32_t i = depth; i > 0; --i) free_slots_.push_back(i - 1);
}

void Connection::start() {
  connect_now();
}

void Connection::connect_now() {
  const SocketAddress& addr = *address_;
  state_ = State::kConnecting;
  env_->host->on_connect_started();
  connect_start_ns_ = env_->loop->refresh_now_ns();
  fd_ = socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    on_connect_failed(errno_reason(errno));
    return;
  }
  if (addr.family() != AF_UNIX) {
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // On a connecting socket TCP_DEFER_ACCEPT holds the handshake's last ACK for our first bytes,
    // sent as soon as it is writable (tcp_rcv_synsent_state_process): one segment fewer for the
    // server per connection (9 instead of 10 for a request on a new connection).
    setsockopt(fd_, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof one);
  }
  int rc = connect(fd_, reinterpret_cast<const sockaddr*>(&addr.storage), addr.len);
  if (rc != 0 && errno != EINPROGRESS) {
    on_connect_failed(errno_reason(errno));
    return;
  }
  if (int err = env_->loop->add(fd_, kEvents, this); err != 0) {
    on_connect_failed(errno_reason(err));
    return;
  }
  // The connect (and TLS handshake) deadline shares the request timeout.
  env_->loop->arm(timer_, connect_start_ns_ + env_->timeout_ns);
}

void Connection::on_connect_failed(const char* reason) {
  EventLoop& loop = *env_->loop;
  close_fd();
  if (!finished()) env_->sink->on_connect_failed(loop.now_ns(), reason);
  env_->host->on_connect_finished(false);
  if (finished()) return;
  // Back off so that a refusing server is not hammered in a tight loop (and the count of connect
  // errors means attempts a user can reason about), but come back fast once it is up again.
  backoff_ms_ = backoff_ms_ == 0 ? kMinBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
  state_ = State::kBackoff;
  loop.arm(timer_, loop.now_ns() + backoff_ms_ * kNsPerMs);
}

void Connection::on_connected(uint64_t now_ns) {
  connect_took_ns_ = now_ns - connect_start_ns_;
  env_->sink->on_connected(now_ns, connect_took_ns_);
  transport_->attach(fd_);
  if (!transport_->is_tls()) {
    on_handshake_done(now_ns);
    return;
  }
  state_ = State::kHandshaking;
  drive_handshake(now_ns);
}

void Connection::drive_handshake(uint64_t now_ns) {
  IoResult r = transport_->handshake();
  if (r.status == IoStatus::kOk) {
    now_ns = env_->loop->refresh_now_ns();
    const uint64_t handshake_start_ns = connect_start_ns_ + connect_took_ns_;
    env_->sink->on_tls_handshake(now_ns, now_ns - handshake_start_ns, transport_->tls_resumed());
    on_handshake_done(now_ns);
    return;
  }
  if (r.status == IoStatus::kWouldBlock) return;  // the next edge drives it on
  on_connect_failed(r.status == IoStatus::kEof ? "TLS handshake: connection closed" : r.reason);
}

void Connection::on_handshake_done(uint64_t now_ns) {
  answered_ = false;  // the backoff is reset by the first response, not by the connect
  fresh_ = true;
  connect_took_ns_ = now_ns - connect_start_ns_;
  last_read_ns_ = now_ns;
  if (const char* why = env_->sessions->alpn_refusal(transport_->is_tls(), transport_->alpn())) {
    on_connect_failed(why);
    return;
  }
  const WireProtocol protocol = env_->sessions->protocol_for(transport_->alpn());
  std::unique_ptr<ClientSession>& session = sessions_[protocol == WireProtocol::kHttp2 ? 1 : 0];
  if (!session) session = env_->sessions->make(protocol);
  session_ = session.get();
  set_capture();
  session_->reset();
  if (!session_->ready()) {
    // HTTP/2: our preface goes out at once; the connection opens when the server's arrives, within
    // the connect deadline (the timer connect_now armed), or fails as a connect error.
    state_ = State::kPreface;
    flush_write();
    return;
  }
  on_session_ready(now_ns);
}

void Connection::on_session_ready(uint64_t now_ns) {
  state_ = State::kOpen;
  env_->host->on_connect_finished(true);
  env_->sink->on_opened(session_ == sessions_[1].get(), transport_->tls_version(),
                        transport_->tls_cipher());
  opened_ = true;
  if (const uint32_t streams = session_->stream_limit(); streams != 0) {
    env_->sink->on_stream_limit(streams);
  }
  env_->loop->cancel(timer_);
  follow(env_->pacer->on_ready(index_, now_ns, 0, true), now_ns);
  if (state_ == State::kOpen) flush_write();
}

void Connection::set_capture() {
  // Scripts' response(status, headers, body) needs the whole answer: no discarding in the kernel.
  // A collector (ab's first-response facts) may ask for one response's head.
  sink_captures_ = env_->sink->wants_capture(index_);
  session_->set_capture(sink_captures_ ||
                        (env_->script != nullptr && env_->script->wants_response()));
}

void Connection::follow(Readiness readiness, uint64_t now_ns) {
  switch (readiness.next) {
    case Next::kFill:
      fill(now_ns);
      return;
    case Next::kFillAtBatchEnd:
      if (!send_deferred_) {
        send_deferred_ = true;
        env_->deferred_sends->push_back(this);
      }
      return;
    case Next::kHoldUntil:
      fresh_ = false;
      [[fallthrough]];
    case Next::kPauseUntil:
      thinking_ = true;
      env_->loop->arm(timer_, readiness.at_ns);
      return;
    case Next::kClose:
      reconnect_after(0);  // opens again only if the pacer wants it open
      return;
    case Next::kWaitForWake:
    case Next::kWaitForResponses:
      return;
  }
}

bool Connection::submit(uint64_t now_ns) {
  if (free_slots_.empty()) return false;
  if (!retries_.empty()) [[unlikely]] {
    // A request the server closed the last connection under goes first, with its own ticket.
    Retry r = std::move(retries_.front());
    retries_.erase(retries_.begin());
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    Slot& s = slots_[slot];
    s.ticket = r.ticket;
    s.request = r.request;
    if (r.own) {
      s.own = std::move(r.own);  // a script's request: the retry kept its parsed template
      s.request = s.own.get();
    }
    s.send_ns = now_ns;
    s.busy = true;
    s.reused = !fresh_;
    s.retried = true;
    s.tag = r.tag;
    s.start_ns = fresh_ ? connect_start_ns_ : now_ns;
    s.connect_ns = fresh_ ? connect_took_ns_ : 0;
    s.first_byte_ns = 0;
    fresh_ = false;
    ++in_flight_;
    thinking_ = false;
    session_->submit(slot, *s.request);
    env_->sink->on_attempt(s.ticket);
    if (!timer_.armed()) env_->loop->arm(timer_, now_ns + env_->timeout_ns);
    return true;
  }
  Ticket ticket;
  switch (env_->pacer->acquire(index_, now_ns, &ticket)) {
    case Grant::kSend:
      break;
    case Grant::kWait:
      return false;
    case Grant::kIdle:
      if (in_flight_ == 0) state_ = State::kIdle;  // the plan is done with this connection
      return false;
    case Grant::kClose:
      if (in_flight_ == 0) reconnect_after(0);
      return false;
  }
  const uint32_t slot = free_slots_.back();
  Slot& s = slots_[slot];
  uint16_t tag = RequestSource::kNoTag;
  RequestSource& source = *env_->source;
  if (source.dynamic() && !s.own) s.own = std::make_unique<RequestTemplate>();
  const RequestTemplate* request = source.next(index_, group_, s.own.get(), &tag);
  if (request == nullptr) {
    // The script failed: the run stops (the granted request was never attempted).
    env_->host->stop_for_script(source.error());
    return false;
  }
  free_slots_.pop_back();
  s.ticket = ticket;
  s.send_ns = now_ns;
  s.request = request;
  s.busy = true;
  s.reused = !fresh_;
  s.retried = false;
  s.tag = tag;
  s.start_ns = fresh_ ? connect_start_ns_ : now_ns;
  s.connect_ns = fresh_ ? connect_took_ns_ : 0;
  s.first_byte_ns = 0;
  fresh_ = false;
  ++in_flight_;
  thinking_ = false;
  session_->submit(slot, *request);
  env_->sink->on_attempt(ticket);
  // Lazy timeout: the timer is armed for the oldest request and re-armed when it fires early.
  if (!timer_.armed()) env_->loop->arm(timer_, now_ns + env_->timeout_ns);
  return true;
}

void Connection::fill(uint64_t now_ns) {
  while (state_ == State::kOpen && session_->capacity() > 0 && submit(now_ns)) {
  }
}

void Connection::wake() {
  fill(env_->loop->refresh_now_ns());
  if (state_ == State::kOpen) flush_write();
}

bool Connection::flush_write() {
  for (;;) {
    std::string_view out = session_->pending_output();
    if (out.empty()) return true;
    IoResult r = transport_->write(out.data(), out.size());
    if (r.status == IoStatus::kOk) {
      session_->consume_output(r.bytes);
      env_->sink->on_bytes_written(env_->loop->now_ns(), r.bytes);
      // HTTP/0.9 (webbench -9): the request is all there will ever be on this connection, and
      // a half-close says so, as webbench does: a server that waits for more of a request head
      // answers (or closes) at once instead of at its header timeout.
      if (env_->http09 && in_flight_ > 0 && !transport_->is_tls() &&
          session_->pending_output().empty()) {
        transport_->shutdown_write();
      }
      continue;
    }
    if (r.status == IoStatus::kWouldBlock) return true;  // EPOLLOUT resumes
    if (state_ == State::kPreface) {
      on_connect_failed(r.reason);
      return false;
    }
    fail_all(ErrorClass::kWrite, r.reason);
    reconnect();
    return false;
  }
}

void Connection::on_io(uint32_t events) {
  if (finished()) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    transport_->readable_edge((events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
  }
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
      on_connected(env_->loop->refresh_now_ns());
      break;
    }
    case State::kHandshaking:
      drive_handshake(env_->loop->refresh_now_ns());
      break;
    case State::kPreface:
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
  if (state_ == State::kOpen || state_ == State::kIdle || state_ == State::kPreface) {
    on_readable(events);
  }
}

void Connection::on_readable(uint32_t events) {
  EventLoop& loop = *env_->loop;
  MeasurementSink& sink = *env_->sink;
  char* buf = env_->read_buffer;
  // A short read normally means the socket is drained and new data will raise a new edge. A close
  // (FIN, RST) that arrived together with the data raises no further edge, so when the event
  // already reported one, read on until the transport says EOF or would-block.
  const bool peer_closed = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  const uint64_t read_start_ns = loop.now_ns();
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
      last_read_ns_ = loop.refresh_now_ns();
      sink.on_bytes_read(read_start_ns, r.bytes);
      SessionStatus st =
          skip > 0 ? session_->skip_body(r.bytes, *this) : session_->feed(buf, r.bytes, *this);
      if (finished()) return;
      if (st == SessionStatus::kError) {
        if (state_ == State::kPreface) {
          // The server's first frames were no valid preface (an HTTP/1 server, a bad frame).
          on_connect_failed("HTTP/2: no valid server preface (SETTINGS)");
          return;
        }
        if (in_flight_ == 0) {
          sink.on_unsolicited(read_start_ns, session_->error_reason());  // the connection's own
        } else {
          fail_all(session_->error(), session_->error_reason());
        }
        send_goaway();
        reconnect();
        return;
      }
      if (!session_->reusable() && in_flight_ == 0) {
        if (state_ == State::kPreface) [[unlikely]] {
          // HTTP/2: a GOAWAY with the server's preface: the connection can carry nothing.
          on_connect_failed("HTTP/2: GOAWAY before any request");
          return;
        }
        reconnect_after(env_->pacer->reconnect_delay_ns(index_));
        return;
      }
      // A short plain-socket read means drained; TLS returns one record per read, so it reads
      // on until the transport would block.
      if (r.bytes < want && !peer_closed && !transport_->is_tls()) break;
      continue;
    }
    if (r.status == IoStatus::kWouldBlock) break;
    if (r.status == IoStatus::kEof) {
      if (state_ == State::kPreface) {
        on_connect_failed("HTTP/2: connection closed before the server preface");
        return;
      }
      session_->on_eof(*this);  // a body delimited by the close completes
      if (finished()) return;
      // Requests still in flight fail, or, when the server closed a reused connection before a
      // byte of their response, go again on the next connection; an idle connection closed is
      // not an error.
      if (in_flight_ > 0) fail_or_retry_all(session_->error(), session_->error_reason());
      reconnect_after(
          reopen_delay_ns(session_->reusable() ? 0 : env_->pacer->reconnect_delay_ns(index_)));
      return;
    }
    // ECONNRESET and friends: the connection is gone.
    if (state_ == State::kPreface) {
      on_connect_failed(r.reason);
      return;
    }
    if (in_flight_ > 0) fail_or_retry_all(ErrorClass::kRead, r.reason);
    reconnect_after(reopen_delay_ns(0));
    return;
  }
  // HTTP/2 answers what it read (SETTINGS and PING acknowledgements, WINDOW_UPDATE) at once.
  if (!flush_write()) return;
  after_responses(loop.now_ns());
}

void Connection::send_goaway() {
  // HTTP/1's pending output would be requests already failed: never sent.
  if (session_ != sessions_[1].get()) return;
  const std::string_view out = session_->pending_output();
  if (out.empty()) return;
  // Best effort, once. The server is probably still sending (a field too large, a flood): a
  // plain close would answer its data with RST, which can overtake the GOAWAY.
  if (transport_->write(out.data(), out.size()).status == IoStatus::kOk) linger_ = true;
}

void Connection::after_responses(uint64_t now_ns) {
  if (state_ != State::kOpen || thinking_) [[unlikely]] {
    if (state_ == State::kPreface && session_->ready()) on_session_ready(now_ns);
    return;
  }
  Pacer& pacer = *env_->pacer;
  if (!session_->reusable()) {
    if (in_flight_ == 0) reconnect_after(pacer.reconnect_delay_ns(index_));
    return;
  }
  // Full: the next response makes room (a connection the pacer no longer keeps is asked anyway,
  // so that it closes once idle).
  if (session_->capacity() == 0 && pacer.keeps(index_)) {
    // Full with nothing in flight: the server allows no streams now (HTTP/2
    // SETTINGS_MAX_CONCURRENT_STREAMS 0). It may raise the limit; on_timer gives it a timeout.
    if (in_flight_ == 0 && !timer_.armed()) [[unlikely]] {
      env_->loop->arm(timer_, now_ns + env_->timeout_ns);
    }
    return;
  }
  follow(pacer.on_ready(index_, now_ns, in_flight_, false), now_ns);
  if (state_ == State::kOpen && !send_deferred_) flush_write();
}

void Connection::send_deferred() {
  if (!send_deferred_) return;
  send_deferred_ = false;
  // The connection may have been closed or filled since it was queued.
  if (state_ != State::kOpen) return;
  fill(env_->loop->refresh_now_ns());
  if (state_ == State::kOpen) flush_write();
}

void Connection::on_first_byte(uint32_t slot) {
  Slot& s = slots_[slot];
  s.first_byte_ns = env_->loop->now_ns();
  env_->sink->on_first_byte(s.ticket.counted, s.first_byte_ns - s.send_ns);
}

void Connection::on_response_complete(uint32_t slot, int status, uint32_t interim) {
  answered_ = true;
  backoff_ms_ = 0;
  finish(slot, status, interim, ErrorClass::kCount, nullptr);
  if (stop_after_response_) {
    stop_after_response_ = false;
    env_->host->stop_for_script(*env_->script_stop);
  }
}

void Connection::on_request_failed(uint32_t slot, ErrorClass error, const char* reason) {
  finish(slot, 0, 0, error, reason);
}

void Connection::finish(uint32_t slot, int status, uint32_t interim, ErrorClass error,
                        const char* reason) {
  Slot& s = slots_[slot];
  Outcome o;
  o.planned_ns = s.ticket.planned_ns;
  o.sent_ns = s.send_ns;
  o.first_byte_ns = s.first_byte_ns;
  o.done_ns = env_->loop->now_ns();
  o.start_ns = s.start_ns;
  o.connect_ns = s.connect_ns;
  o.status = status;
  o.error = error;
  o.reason = reason;
  o.interim = interim;
  o.body_bytes = error == ErrorClass::kCount ? session_->last_body_bytes() : 0;
  o.connection = index_;
  o.tag = s.tag;
  o.counted = s.ticket.counted;
  s.busy = false;
  free_slots_.push_back(slot);
  --in_flight_;
  env_->sink->on_outcome(o);
  env_->pacer->on_outcome(index_, s.ticket);
}

void Connection::fail_all(ErrorClass error, const char* reason) {
  for (uint32_t i = 0; i < slots_.size() && in_flight_ > 0; ++i) {
    if (slots_[i].busy) on_request_failed(i, error, reason);
  }
}

uint32_t Connection::counted_in_flight() const {
  uint32_t n = 0;
  for (const Slot& s : slots_) n += s.busy && s.ticket.counted ? 1 : 0;
  return n;
}

void Connection::close_fd() {
  send_deferred_ = false;
  thinking_ = false;
  if (opened_) {
    opened_ = false;
    // The server may have lowered its limit since the connection opened.
    if (const uint32_t streams = session_->stream_limit(); streams != 0) {
      env_->sink->on_stream_limit(streams);
    }
    env_->sink->on_closed();
  }
  if (fd_ >= 0) {
    transport_->detach();
    if (linger_ && env_->lingering != nullptr) [[unlikely]] {
      env_->loop->remove(fd_, this);  // the fd stays open a while, no longer ours
      env_->lingering->adopt(fd_, env_->loop->now_ns());
    } else {
      env_->loop->close_fd(fd_, this);
    }
    fd_ = -1;
    linger_ = false;
  }
}

void Connection::reconnect_after(uint64_t delay_ns) {
  EventLoop& loop = *env_->loop;
  // Every request gets exactly one outcome: callers fail what is in flight first; this is a net.
  if (in_flight_ > 0 && !finished()) fail_all(ErrorClass::kRead, "connection closed");
  close_fd();
  state_ = State::kClosed;
  // Requests waiting to be sent again were granted already: they reopen a connection the pacer
  // still keeps, whatever it would grant anew.
  const bool reopen =
      env_->pacer->wants_open(index_) || (!retries_.empty() && env_->pacer->keeps(index_));
  if (finished() || !reopen) {
    loop.cancel(timer_);
    if (!finished()) settle_retries();
    return;
  }
  if (delay_ns != 0) {
    state_ = State::kBackoff;  // the backoff timer's path: connect when it fires
    loop.arm(timer_, loop.now_ns() + delay_ns);
    return;
  }
  connect_now();
}

uint64_t Connection::reopen_delay_ns(uint64_t otherwise_ns) {
  if (answered_) return otherwise_ns;
  backoff_ms_ = backoff_ms_ == 0 ? kMinBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
  return std::max<uint64_t>(otherwise_ns, backoff_ms_ * kNsPerMs);
}

void Connection::close_when_idle() {
  if (in_flight_ > 0 || opening() || state_ == State::kClosed) return;
  reconnect_after(0);  // the pacer no longer keeps it: it stays closed
}

void Connection::shutdown() {
  if (env_ == nullptr) return;
  env_->loop->cancel(timer_);
  close_fd();
  state_ = State::kClosed;
  for (Slot& s : slots_) s.busy = false;
  in_flight_ = 0;
  retries_.clear();
}

}  // namespace hail
