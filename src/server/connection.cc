#include "server/connection.h"

#include <errno.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/clock.h"
#include "net/tls.h"
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

// pread until `len` bytes, EOF or an error; returns the bytes read.
size_t pread_some(int fd, char* dst, size_t len, uint64_t offset) {
  size_t done = 0;
  while (done < len) {
    const ssize_t n = pread(fd, dst + done, len - done, static_cast<off_t>(offset + done));
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return done;
}

}  // namespace

ServerConnection::ServerConnection(ServerReactor* reactor, int fd, bool unix_socket)
    : reactor_(reactor),
      loop_(reactor->loop()),
      fd_(fd),
      tcp_(!unix_socket),
      http1_(reactor->env()) {
  timeout_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->on_timeout(); };
  timeout_timer_.ctx = this;
  delay_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->progress(); };
  delay_timer_.ctx = this;
  yield_timer_.fn = [](Timer*, void* ctx) { static_cast<ServerConnection*>(ctx)->progress(); };
  yield_timer_.ctx = this;
  if (TlsServerContext* tls = reactor->tls(); tls != nullptr) {
    tls_ = tls->new_transport();
    if (tls_ != nullptr) tls_->attach(fd);
    mode_ = Mode::kHandshake;
  } else {
    tcp_.attach(fd);
    mode_ = reactor->h2_options() != nullptr ? Mode::kDetect : Mode::kHttp1;
  }
}

ServerConnection::~ServerConnection() {
  loop_.cancel(timeout_timer_);
  loop_.cancel(delay_timer_);
  loop_.cancel(yield_timer_);
  if (tls_ != nullptr) tls_->detach();
  close(fd_);
}

bool ServerConnection::start(int* err) {
  if (mode_ == Mode::kHandshake && tls_ == nullptr) {
    *err = ENOMEM;
    return false;
  }
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
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
    read_pending_ = true;
    write_blocked_on_read_ = false;
  }
  if (events & (EPOLLOUT | EPOLLHUP)) read_blocked_on_write_ = false;
  if (events & (EPOLLRDHUP | EPOLLHUP)) rdhup_seen_ = true;
  progress();
}

void ServerConnection::yield() {
  // One nanosecond after this wake-up's clock reading: not due in this round of timers (which would
  // let a yielding connection run forever without epoll), so the loop polls once (zero wait) and
  // the connection continues after that batch of events: everyone else goes first.
  if (!yield_timer_.armed()) loop_.arm(yield_timer_, loop_.now_ns() + 1);
}

bool ServerConnection::handshake() {
  const IoResult r = tls_->handshake();
  if (r.status == IoStatus::kWouldBlock) {
    update_timeout();
    return false;
  }
  if (r.status != IoStatus::kOk) {
    destroy();
    return false;
  }
  last_activity_ns_ = loop_.now_ns();
  reactor_->note_tls_handshake();
  const std::string_view alpn = tls_->alpn();
  if (alpn == "h2") {
    select_protocol(true);
  } else if (!alpn.empty() || reactor_->h2_options() == nullptr) {
    select_protocol(false);
  } else {
    mode_ = Mode::kDetect;  // no ALPN: prior knowledge is still possible
  }
  return true;
}

void ServerConnection::select_protocol(bool h2) {
  if (!h2) {
    mode_ = Mode::kHttp1;
    return;
  }
  mode_ = Mode::kH2;
  h2_ = std::make_unique<H2ServerSession>(reactor_->env(), *reactor_->h2_options());
  bump(reactor_->mutable_counters().h2_connections);
}

void ServerConnection::detect(const char* data, size_t len, uint64_t now_ns) {
  PrefaceMatch match;
  if (pending_in_.empty()) {
    match = match_h2_preface(std::string_view(data, len));
    if (match == PrefaceMatch::kNeedMore) pending_in_.assign(data, len);
  } else {
    pending_in_.append(data, len);
    data = nullptr;  // progress() feeds pending_in_
    match = match_h2_preface(pending_in_);
  }
  if (match == PrefaceMatch::kNeedMore) return;
  select_protocol(match == PrefaceMatch::kH2);
  if (data == nullptr) return;
  const size_t used = feed(data, len, now_ns);
  if (used < len) pending_in_.append(data + used, len - used);
}

size_t ServerConnection::feed(const char* data, size_t len, uint64_t now_ns) {
  reactor_->refresh_date(now_ns);
  return h2_ ? h2_->feed(data, len, now_ns) : http1_.feed(data, len, now_ns);
}

bool ServerConnection::in_head() const {
  switch (mode_) {
    case Mode::kHandshake:
      return true;  // the header timeout covers the handshake too
    case Mode::kDetect:
      return !pending_in_.empty();
    case Mode::kHttp1:
      return http1_.in_head();
    case Mode::kH2:
      return false;
  }
  return false;
}

void ServerConnection::progress() {
  const uint64_t now = loop_.now_ns();
  sent_this_turn_ = 0;
  if (mode_ == Mode::kHandshake && !handshake()) return;
  if (h2_) {
    reactor_->refresh_date(now);
    h2_->advance(now);  // /delay streams that are due
  }
  for (int reads = 0;; ++reads) {
    if (reads == kMaxReadsPerTurn) {
      yield();
      break;
    }
    if (!pending_in_.empty() && mode_ != Mode::kDetect && wants_input()) {
      const size_t used = feed(pending_in_.data(), pending_in_.size(), now);
      pending_in_.erase(0, used);
    }
    if (read_pending_ && !read_blocked_on_write_ && !peer_eof_ &&
        (pending_in_.empty() || mode_ == Mode::kDetect) && wants_input()) {
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
    const bool input_waiting = (!pending_in_.empty() && mode_ != Mode::kDetect) ||
                               (read_pending_ && !read_blocked_on_write_ && !peer_eof_);
    if (!input_waiting || !wants_input() || yield_timer_.armed()) break;
  }
  if (peer_eof_) {
    // The peer sent its last byte: done once it has every response (an h2 stream parked on
    // /delay still counts as one to send), or at once if it never finished a preface.
    const bool parked = h2_ != nullptr && h2_->wake_at_ns() != UINT64_MAX;
    if (mode_ == Mode::kDetect || (pending_in_.empty() && output().empty() && !parked)) {
      destroy();
      return;
    }
  }
  if (h2_) {
    const uint64_t wake = h2_->wake_at_ns();
    if (wake != UINT64_MAX && (!delay_timer_.armed() || delay_timer_.deadline_ns != wake)) {
      loop_.arm(delay_timer_, wake);
    }
  }
  update_timeout();
}

bool ServerConnection::read_some() {
  char* buffer = reactor_->read_buffer();
  const IoResult r =
      tls_ ? tls_->read(buffer, kReadBufferBytes) : tcp_.read(buffer, kReadBufferBytes);
  switch (r.status) {
    case IoStatus::kOk: {
      const uint64_t now = loop_.now_ns();
      last_activity_ns_ = now;
      if (mode_ == Mode::kDetect) {
        detect(buffer, r.bytes, now);
      } else {
        const size_t used = feed(buffer, r.bytes, now);
        if (used < r.bytes) pending_in_.append(buffer + used, r.bytes - used);
      }
      // A short read emptied the socket: the next byte to arrive raises a new edge. Not so when the
      // FIN is already queued, since no further edge would announce the end of the stream, nor
      // with TLS, which returns a record at a time: there only kWouldBlock says the socket is dry.
      if (!tls_ && r.bytes < kReadBufferBytes && !rdhup_seen_) read_pending_ = false;
      return true;
    }
    case IoStatus::kEof:
      peer_eof_ = true;
      read_pending_ = false;
      return true;
    case IoStatus::kWouldBlock:
      if (tls_ && tls_->want_write()) {
        read_blocked_on_write_ = true;  // EPOLLOUT clears it
      } else {
        read_pending_ = false;
      }
      return true;
    case IoStatus::kError:
      break;
  }
  return false;
}

void ServerConnection::account_sent(uint64_t sent_bytes, uint64_t counted_bytes) {
  last_activity_ns_ = loop_.now_ns();
  sent_this_turn_ += sent_bytes;
  if (counted_bytes > 0) bump(reactor_->mutable_counters().bytes_sent, counted_bytes);
}

ServerConnection::Flush ServerConnection::flush() {
  return tls_ ? flush_tls() : flush_plain();
}

// What to do when gather() returned no bytes; kYield means "gather again".
ServerConnection::Flush ServerConnection::on_batch_stop(const OutputQueue::Batch& batch) {
  switch (batch.stop) {
    case OutputQueue::Stop::kEmpty:
      if (h2_) {
        h2_->produce();  // frames nghttp2 held back while the output was full
        if (!h2_->output().empty()) return Flush::kYield;
      }
      return Flush::kDone;
    case OutputQueue::Stop::kFull:
      return Flush::kYield;  // unreachable with an empty batch; gather again regardless
    case OutputQueue::Stop::kDelay:
      if (!delay_timer_.armed() || delay_timer_.deadline_ns != batch.delay_until_ns) {
        loop_.arm(delay_timer_, batch.delay_until_ns);
      }
      return Flush::kDone;
    case OutputQueue::Stop::kClose:
      return Flush::kClose;
    case OutputQueue::Stop::kFile:
      break;
  }
  return Flush::kBlocked;  // kFile: the caller's own business
}

ServerConnection::Flush ServerConnection::flush_plain() {
  OutputQueue& out = output();
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
    if (batch.stop != OutputQueue::Stop::kFile) {
      const Flush stop = on_batch_stop(batch);
      if (stop == Flush::kYield) continue;
      return stop;
    }
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
    // A short sendfile is retried: EAGAIN then says for sure the socket is full.
  }
}

ServerConnection::Flush ServerConnection::flush_tls() {
  OutputQueue& out = output();
  iovec iov[kMaxIov];
  char* scratch = reactor_->tls_scratch();
  for (;;) {
    if (write_blocked_on_read_) return Flush::kBlocked;
    if (sent_this_turn_ >= kMaxSentBytesPerTurn) return Flush::kYield;
    // One TLS record's worth: OpenSSL (partial writes on) returns after each record anyway.
    const OutputQueue::Batch batch = out.gather(iov, kMaxIov, kTlsWriteBytes, loop_.now_ns());
    const char* data = nullptr;
    size_t len = 0;
    if (batch.iov_count == 1) {
      data = static_cast<const char*>(iov[0].iov_base);
      len = iov[0].iov_len;
    } else if (batch.iov_count > 1) {
      // Coalesced so that a head and its body share a record.
      for (size_t i = 0; i < batch.iov_count; ++i) {
        std::memcpy(scratch + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
      }
      data = scratch;
    } else if (batch.stop == OutputQueue::Stop::kFile) {
      // No sendfile through TLS: the file is read into memory a record at a time.
      const OutputQueue::FileChunk file = out.front_file();
      len = pread_some(file.fd, scratch, std::min<uint64_t>(file.length, kTlsWriteBytes),
                       file.offset);
      if (len == 0) return Flush::kError;  // shrank after its Content-Length went out
      data = scratch;
    } else {
      const Flush stop = on_batch_stop(batch);
      if (stop == Flush::kYield) continue;
      return stop;
    }
    const IoResult r = tls_->write(data, len);
    switch (r.status) {
      case IoStatus::kOk:
        account_sent(r.bytes, out.consume(r.bytes));
        continue;
      case IoStatus::kWouldBlock:
        // The retry writes the same front bytes again (at least as many): what OpenSSL requires.
        if (!tls_->want_write()) write_blocked_on_read_ = true;  // EPOLLIN clears it
        return Flush::kBlocked;
      case IoStatus::kEof:
      case IoStatus::kError:
        break;
    }
    return Flush::kError;
  }
}

void ServerConnection::finish() {
  // An HTTP/2 peer may always have frames in flight (WINDOW_UPDATE, streams opened before our
  // GOAWAY reached it).
  const bool peer_may_send = mode_ == Mode::kH2 || http1_.refused() || !pending_in_.empty() ||
                             (read_pending_ && !peer_eof_);
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
  if (in_head()) {
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
    if (mode_ == Mode::kHandshake) {
      destroy();  // a TLS handshake that did not finish in time has nobody to say 408 to
      return;
    }
    // Slowloris: the head did not arrive in time. Say so (408) if the client reads, but close by
    // the linger deadline whether or not the answer gets out. An unfinished preface gets the same
    // treatment as HTTP/1.
    if (mode_ == Mode::kDetect) {
      mode_ = Mode::kHttp1;
      pending_in_.clear();
    }
    http1_.time_out_head();
    head_started_ns_ = 0;
    hard_deadline_ns_ = now + kLingerNs;
    progress();  // may destroy this
    return;
  }
  destroy();  // idle
}

}  // namespace hail
