// Connection's recovery paths: requests sent again after the server closed or refused them
// (retries), and the timer (request timeouts, the connect and HTTP/2 preface deadline, a stream
// limit of 0 waited out). Members of Connection; its worker's thread only.
#include <errno.h>

#include <algorithm>

#include "core/errno_reason.h"
#include "load/connection.h"
#include "load/measurement_sink.h"

namespace hail {

bool Connection::retriable(const Slot& s) const {
  return env_->retry_idempotent && s.reused && !s.retried && s.first_byte_ns == 0 &&
         s.request != nullptr && s.request->idempotent && !finished() && env_->pacer->keeps(index_);
}

void Connection::fail_or_retry_all(ErrorClass error, const char* reason) {
  // Only a close at a message boundary (no byte of any response in flight) says the server
  // dropped the connection as idle; a close in the middle of a response is a failure of it, and
  // the requests behind it share its fate.
  bool at_boundary = true;
  for (const Slot& s : slots_) at_boundary = at_boundary && !(s.busy && s.first_byte_ns != 0);
  const size_t first_new = retries_.size();
  for (uint32_t i = 0; i < slots_.size() && in_flight_ > 0; ++i) {
    Slot& s = slots_[i];
    if (!s.busy) continue;
    if (!at_boundary || !retriable(s)) {
      on_request_failed(i, error, reason);
      continue;
    }
    queue_retry(i);
  }
  // In the order they were planned (pipelined requests keep their order).
  std::stable_sort(
      retries_.begin() + static_cast<std::ptrdiff_t>(first_new), retries_.end(),
      [](const Retry& a, const Retry& b) { return a.ticket.planned_ns < b.ticket.planned_ns; });
}

void Connection::queue_retry(uint32_t slot) {
  Slot& s = slots_[slot];
  Retry r;
  r.ticket = s.ticket;
  r.request = s.request;
  if (s.own && s.request == s.own.get()) r.own = std::move(s.own);
  r.tag = s.tag;
  retries_.push_back(std::move(r));
  env_->sink->on_retry(s.ticket);
  s.busy = false;
  free_slots_.push_back(slot);
  --in_flight_;
}

void Connection::on_request_refused(uint32_t slot, const char* reason) {
  const Slot& s = slots_[slot];
  // Refused means never processed (RFC 9113 §8.7): safe to send again whatever the method, once.
  if (s.retried || !env_->retry_idempotent || finished() || !env_->pacer->keeps(index_)) {
    on_request_failed(slot, ErrorClass::kStream, reason);
    return;
  }
  queue_retry(slot);
}

void Connection::settle_retries() {
  for (Retry& r : retries_) env_->pacer->on_outcome(index_, r.ticket);
  retries_.clear();
}

namespace {

// Why a request timed out, for error_reasons (every class has its reasons).
constexpr const char* kTimeoutStreamReset = "no complete response within --timeout (stream reset)";
constexpr const char* kTimeoutConnectionClosed =
    "no complete response within --timeout (connection closed)";

}  // namespace

void Connection::on_request_timer(uint64_t now_ns) {
  const uint64_t timeout_ns = env_->timeout_ns;
  uint64_t earliest_ns = UINT64_MAX;
  bool must_close = false;
  bool cancelled = false;
  // Nothing read for half a timeout while a request is overdue: the connection is taken for
  // dropped (a peer gone without FIN or RST), so HTTP/2 closes it too instead of resetting its
  // streams one by one on a connection nothing comes back on.
  const bool silent = now_ns - last_read_ns_ >= timeout_ns / 2;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (!s.busy) continue;
    const uint64_t deadline_ns = s.send_ns + timeout_ns;
    if (deadline_ns > now_ns) {
      earliest_ns = std::min(earliest_ns, deadline_ns);
    } else if (!silent && session_->cancel(i)) {
      // HTTP/2: the stream is reset, the connection and its other streams live on.
      on_request_failed(i, ErrorClass::kTimeout, kTimeoutStreamReset);
      cancelled = true;
      if (finished()) return;
    } else {
      must_close = true;
    }
  }
  if (must_close) {
    // HTTP/1: a real timeout closes the connection and reopens it; the late response is never
    // counted, and requests pipelined behind the late one are abandoned with it (also timeouts).
    fail_all(ErrorClass::kTimeout, kTimeoutConnectionClosed);
    if (finished()) return;
    reconnect();
    return;
  }
  if (earliest_ns != UINT64_MAX) env_->loop->arm(timer_, earliest_ns);
  if (cancelled && flush_write()) after_responses(now_ns);
}

void Connection::on_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Connection*>(ctx);
  if (self->finished()) return;
  EventLoop& loop = *self->env_->loop;
  const uint64_t now_ns = loop.now_ns();
  switch (self->state_) {
    case State::kBackoff:
      if (!self->env_->pacer->keeps(self->index_)) {
        self->reconnect_after(0);  // stays closed
        return;
      }
      self->connect_now();
      return;
    case State::kConnecting:
    case State::kHandshaking:
    case State::kPreface: {
      const uint64_t deadline_ns = self->connect_start_ns_ + self->env_->timeout_ns;
      if (now_ns >= deadline_ns) {
        self->on_connect_failed(self->state_ == State::kHandshaking ? "TLS handshake timed out"
                                : self->state_ == State::kPreface
                                    ? "HTTP/2: no server preface (SETTINGS) in time"
                                    : errno_reason(ETIMEDOUT));
      } else {
        loop.arm(self->timer_, deadline_ns);
      }
      return;
    }
    case State::kOpen:
    case State::kIdle:
      if (self->thinking_ && self->in_flight_ == 0) {
        self->thinking_ = false;  // the pause is over
        self->fill(now_ns);
        if (self->state_ == State::kOpen) self->flush_write();
        return;
      }
      if (self->in_flight_ > 0) {
        self->on_request_timer(now_ns);
        return;
      }
      // Nothing in flight and still no room a timeout later (after_responses armed it): the
      // server allows no streams on this connection; it is closed and reopened (no request was
      // lost: nothing is counted but the new connection).
      if (self->state_ == State::kOpen && self->session_->reusable() &&
          self->session_->capacity() == 0) {
        self->reconnect_after(self->env_->pacer->reconnect_delay_ns(self->index_));
      }
      return;
    case State::kClosed:
      return;
  }
}

}  // namespace hail
