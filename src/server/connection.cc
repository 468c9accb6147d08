#include "server/connection.h"

#include <errno.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/clock.h"
#include "server/reactor.h"

namespace hail {

namespace {

constexpr size_t kMaxIov = 64;
// Per sendmsg/sendfile call: large enough to fill any socket buffer, small enough that one
// connection streaming a huge body does not starve the others of its reactor.
constexpr uint64_t kMaxBatchBytes = 1 << 20;
// Work one connection may do per turn before it yields to the rest of its reactor: a client
// streaming a huge body, or reading a /bytes/2^40 as fast as we send, must not starve the others.
constexpr int kMaxReadsPerTurn = 16;
constexpr uint64_t kMaxSentBytesPerTurn = 4 << 20;
// After the last response of a closing connection the peer may still be sending (a rejected body,
// pipelined requests); reading it for a while before close() keeps the kernel from answering with
// an RST that could destroy the response before the client read it.
constexpr uint64_t kLingerNs = 2 * kNsPerSec;
constexpr uint64_t kMaxLingerBytes = 1 << 20;

}  // namespace

ServerConnection::ServerConnection(ServerReactor* reactor, int fd)
    : reactor_(reactor), loop_(reactor->loop()), fd_(fd), session_(reactor->env()) {
  timeout_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->on_timeout(); };
  timeout_timer_.ctx = this;
  delay_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->progress(); };
  delay_timer_.ctx = this;
  yield_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->progress(); };
  yield_timer_.ctx = this;
}

ServerConnection::~ServerConnection() {
  loop_.cancel(timeout_timer_);
  loop_.cancel(delay_timer_);
  loop_.cancel(yield_timer_);
  close(fd_);
}

bool ServerConnection::start(int* err) {
  last_activity_ns_ = loop_.now_ns();
  // Edge-triggered with a fixed mask: no epoll_ctl per request; read_pending_ remembers what the
  // edges said.
  *err = loop_.add(fd_, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, this);
  if (*err != 0) return false;
  update_timeout();
  return true;
}

void ServerConnection::destroy() {
  // remove() rather than relying on close(): a forked child may briefly share the fd, and then
  // epoll would keep reporting it for a deleted handler.
  loop_.remove(fd_, this);
  reactor_->remove_connection(this);
  delete this;
}

void ServerConnection::on_io(uint32_t events) {
  if (lingering_) {
    drain_linger();
    return;
  }
  if (events & EPOLLERR) {
    destroy();
    return;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) read_pending_ = true;
  if (events & (EPOLLRDHUP | EPOLLHUP)) rdhup_seen_ = true;
  progress();
}

void ServerConnection::yield() {
  // One nanosecond after this wake-up's clock reading: not due in this round of timers (which would
  // let a yielding connection run forever without epoll), so the loop polls once (zero wait) and
  // the connection continues after that batch of events: everyone else goes first.
  if (!yield_timer_.armed()) loop_.arm(yield_timer_, loop_.now_ns() + 1);
}

void ServerConnection::progress() {
  const uint64_t now = loop_.now_ns();
  sent_this_turn_ = 0;
  for (int reads = 0;; ++reads) {
    if (reads == kMaxReadsPerTurn) {
      yield();
      break;
    }
    if (!pending_in_.empty() && session_.wants_input()) {
      reactor_->refresh_date(now);
      const size_t used = session_.feed(pending_in_.data(), pending_in_.size(), now);
      pending_in_.erase(0, used);
    }
    if (read_pending_ && !peer_eof_ && pending_in_.empty() && session_.wants_input()) {
      if (!read_some()) {
        destroy();
        return;
      }
    }
    switch (flush()) {
      case Flush::kError:
        destroy();
        return;
      case Flush::kClose:
        finish();
        return;
      case Flush::kYield:
        yield();
        break;
      case Flush::kBlocked:
      case Flush::kDone:
        break;
    }
    // Go round again only if sending made room for input that is waiting.
    const bool input_waiting = !pending_in_.empty() || (read_pending_ && !peer_eof_);
    if (!input_waiting || !session_.wants_input() || yield_timer_.armed()) break;
  }
  if (peer_eof_ && pending_in_.empty() && session_.output().empty()) {
    // The peer sent its last byte and has every response: nothing can happen on this connection.
    destroy();
    return;
  }
  update_timeout();
}

bool ServerConnection::read_some() {
  char* buffer = reactor_->read_buffer();
  const ssize_t n = read(fd_, buffer, kReadBufferBytes);
  if (n > 0) {
    const uint64_t now = loop_.now_ns();
    last_activity_ns_ = now;
    reactor_->refresh_date(now);
    const size_t len = static_cast<size_t>(n);
    const size_t used = session_.feed(buffer, len, now);
    if (used < len) pending_in_.append(buffer + used, len - used);
    // A short read emptied the socket: the next byte to arrive raises a new edge. Not so when the
    // FIN is already queued, since no further edge would announce the end of the stream.
    if (len < kReadBufferBytes && !rdhup_seen_) read_pending_ = false;
    return true;
  }
  if (n == 0) {
    peer_eof_ = true;
    read_pending_ = false;
    return true;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK) {
    read_pending_ = false;
    return true;
  }
  return errno == EINTR;
}

void ServerConnection::account_sent(uint64_t sent_bytes, uint64_t counted_bytes) {
  last_activity_ns_ = loop_.now_ns();
  sent_this_turn_ += sent_bytes;
  if (counted_bytes > 0) bump(reactor_->mutable_counters().bytes_sent, counted_bytes);
}

ServerConnection::Flush ServerConnection::flush() {
  OutputQueue& out = session_.output();
  iovec iov[kMaxIov];
  for (;;) {
    if (sent_this_turn_ >= kMaxSentBytesPerTurn) return Flush::kYield;
    const OutputQueue::Batch batch = out.gather(iov, kMaxIov, kMaxBatchBytes, loop_.now_ns());
    if (batch.iov_count > 0) {
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = batch.iov_count;
      // MSG_MORE: a file body follows with sendfile, so the head waits for it instead of leaving
      // as a packet of its own.
      const int flags = MSG_NOSIGNAL | (batch.stop == OutputQueue::Stop::kFile ? MSG_MORE : 0);
      const ssize_t n = sendmsg(fd_, &msg, flags);
      if (n < 0) {
        if (errno == EINTR) continue;
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? Flush::kBlocked : Flush::kError;
      }
      account_sent(static_cast<uint64_t>(n), out.consume(static_cast<uint64_t>(n)));
      // A partial write means the socket buffer is full; EPOLLOUT announces room again.
      if (static_cast<uint64_t>(n) < batch.bytes) return Flush::kBlocked;
      continue;
    }
    switch (batch.stop) {
      case OutputQueue::Stop::kEmpty:
        return Flush::kDone;
      case OutputQueue::Stop::kFull:
        continue;  // unreachable with an empty batch; gather again regardless
      case OutputQueue::Stop::kDelay:
        if (!delay_timer_.armed() || delay_timer_.deadline_ns != batch.delay_until_ns) {
          loop_.arm(delay_timer_, batch.delay_until_ns);
        }
        return Flush::kDone;
      case OutputQueue::Stop::kClose:
        return Flush::kClose;
      case OutputQueue::Stop::kFile: {
        const OutputQueue::FileChunk file = out.front_file();
        off_t offset = static_cast<off_t>(file.offset);
        const ssize_t n = sendfile(fd_, file.fd, &offset, std::min(file.length, kMaxBatchBytes));
        if (n < 0) {
          if (errno == EINTR) continue;
          return (errno == EAGAIN || errno == EWOULDBLOCK) ? Flush::kBlocked : Flush::kError;
        }
        // The file shrank after its Content-Length went out: the response cannot be completed.
        if (n == 0) return Flush::kError;
        account_sent(static_cast<uint64_t>(n), out.consume(static_cast<uint64_t>(n)));
        continue;  // a short sendfile is retried: EAGAIN then says for sure the socket is full
      }
    }
  }
}

void ServerConnection::finish() {
  const bool peer_may_send =
      session_.refused() || !pending_in_.empty() || (read_pending_ && !peer_eof_);
  if (!peer_may_send) {
    destroy();
    return;
  }
  shutdown(fd_, SHUT_WR);
  lingering_ = true;
  hard_deadline_ns_ = std::min(hard_deadline_ns_, loop_.now_ns() + kLingerNs);
  loop_.cancel(delay_timer_);
  loop_.cancel(yield_timer_);
  loop_.arm(timeout_timer_, hard_deadline_ns_);
  drain_linger();
}

void ServerConnection::drain_linger() {
  char* buffer = reactor_->read_buffer();
  for (;;) {
    const ssize_t n = read(fd_, buffer, kReadBufferBytes);
    if (n > 0) {
      lingered_bytes_ += static_cast<uint64_t>(n);
      if (lingered_bytes_ > kMaxLingerBytes) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    break;  // EOF or error
  }
  destroy();
}

uint64_t ServerConnection::deadline_ns() const {
  const ReactorConfig& config = reactor_->config();
  uint64_t deadline = hard_deadline_ns_;
  if (lingering_) return deadline;
  if (config.idle_timeout_ns != 0) {
    // A pending /delay is not idleness: the idle clock starts when its response is due.
    uint64_t idle_from = last_activity_ns_;
    if (delay_timer_.armed()) idle_from = std::max(idle_from, delay_timer_.deadline_ns);
    deadline = std::min(deadline, idle_from + config.idle_timeout_ns);
  }
  if (head_started_ns_ != 0 && config.header_timeout_ns != 0) {
    deadline = std::min(deadline, head_started_ns_ + config.header_timeout_ns);
  }
  return deadline;
}

void ServerConnection::update_timeout() {
  if (session_.in_head()) {
    // The first byte of this head came with the read that started it: now, to within one wake-up.
    if (head_started_ns_ == 0) head_started_ns_ = loop_.now_ns();
  } else {
    head_started_ns_ = 0;
  }
  // Lazy re-arming: a later deadline is found when the timer fires early and looks again, so the
  // busy path (a request per wake-up) never touches the timer heap.
  const uint64_t deadline = deadline_ns();
  if (deadline == UINT64_MAX) return;
  if (!timeout_timer_.armed() || deadline < timeout_timer_.deadline_ns) {
    loop_.arm(timeout_timer_, deadline);
  }
}

void ServerConnection::on_timeout() {
  const uint64_t now = loop_.now_ns();
  const uint64_t deadline = deadline_ns();
  if (deadline > now) {
    if (deadline != UINT64_MAX) loop_.arm(timeout_timer_, deadline);
    return;
  }
  if (lingering_ || now >= hard_deadline_ns_) {
    destroy();
    return;
  }
  const ReactorConfig& config = reactor_->config();
  if (head_started_ns_ != 0 && config.header_timeout_ns != 0 &&
      now >= head_started_ns_ + config.header_timeout_ns) {
    // Slowloris: the head did not arrive in time. Say so (408) if the client reads, but close by
    // the linger deadline whether or not the answer gets out.
    session_.time_out_head();
    head_started_ns_ = 0;
    hard_deadline_ns_ = now + kLingerNs;
    progress();  // may destroy this
    return;
  }
  destroy();  // idle
}

}  // namespace hail
