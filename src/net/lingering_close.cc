#include "net/lingering_close.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace hail {

LingeringClose::~LingeringClose() {
  for (auto& s : sockets_) {
    if (s->fd >= 0) close_socket(*s);
  }
}

void LingeringClose::adopt(int fd, uint64_t now_ns) {
  if (fd < 0) return;
  Socket* slot = nullptr;
  for (auto& s : sockets_) {
    if (s->fd < 0) {
      slot = s.get();
      break;
    }
  }
  if (slot == nullptr && sockets_.size() < kMaxSockets) {
    sockets_.push_back(std::make_unique<Socket>());
    slot = sockets_.back().get();
    slot->owner = this;
    slot->deadline.fn = &LingeringClose::on_deadline;
    slot->deadline.ctx = slot;
  }
  // Full, or the socket is already unusable: a plain close is all that is left.
  if (slot == nullptr || ::shutdown(fd, SHUT_WR) != 0 ||
      loop_->add(fd, EPOLLIN | EPOLLRDHUP, slot) != 0) {
    ::close(fd);
    return;
  }
  slot->fd = fd;
  slot->discarded_bytes = 0;
  loop_->arm(slot->deadline, now_ns + linger_ns_);
  ++live_;
}

void LingeringClose::Socket::on_io(uint32_t /*events*/) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      discarded_bytes += static_cast<uint64_t>(n);
      if (discarded_bytes < kMaxDiscardBytes) continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (errno == EINTR) continue;
      return;  // more may come: wait for it
    }
    // The peer closed (0), the socket failed, or enough was discarded.
    owner->close_socket(*this);
    return;
  }
}

void LingeringClose::on_deadline(Timer* /*timer*/, void* ctx) {
  Socket* s = static_cast<Socket*>(ctx);
  s->owner->close_socket(*s);
}

void LingeringClose::close_socket(Socket& s) {
  loop_->cancel(s.deadline);
  loop_->remove(s.fd, &s);
  ::close(s.fd);
  s.fd = -1;
  --live_;
}

}  // namespace hail
