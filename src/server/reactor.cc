#include "server/reactor.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/tls.h"
#include "server/connection.h"

namespace hail {

namespace {

// Accepts per wake-up before other connections get their turn; the listening socket is
// level-triggered, so whatever is left is reported again at once.
constexpr int kMaxAcceptsPerWakeup = 128;

}  // namespace

ServerReactor::ServerReactor(EventLoop* loop, int listen_fd, const ReactorConfig& config,
                             SessionEnv env, std::unique_ptr<TlsServerContext> tls)
    : loop_(loop),
      listen_fd_(listen_fd),
      spare_fd_(open("/dev/null", O_RDONLY | O_CLOEXEC)),
      config_(config),
      env_(env),
      read_buffer_(new char[kReadBufferBytes]),
      tls_(std::move(tls)) {
  env_.counters = &counters_;
  env_.date_line = &date_cache_.line(loop_->now_ns());
  if (tls_ != nullptr) tls_scratch_.reset(new char[kTlsWriteBytes]);
}

ServerReactor::~ServerReactor() {
  close_all();
}

void ServerReactor::close_all() {
  // The thread has stopped: close what is left without any protocol courtesy.
  while (connections_ != nullptr) {
    ServerConnection* connection = connections_;
    remove_connection(connection);
    delete connection;
  }
  if (spare_fd_ >= 0) close(spare_fd_);
  spare_fd_ = -1;
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
}

int ServerReactor::start_listening() {
  // A Unix socket is one listening socket for every reactor (no SO_REUSEPORT for AF_UNIX): each
  // epoll holds its own dup of it, and EPOLLEXCLUSIVE wakes one reactor per connection instead of
  // all of them; the others find nothing to accept and go back to sleep.
  return loop_->add(listen_fd_, config_.unix_socket ? EPOLLIN | EPOLLEXCLUSIVE : EPOLLIN, this);
}

void ServerReactor::note_tls_handshake() {
  counters_.tls_handshakes.store(tls_->handshakes(), std::memory_order_relaxed);
  counters_.tls_resumed.store(tls_->resumed(), std::memory_order_relaxed);
}

void ServerReactor::remove_connection(ServerConnection* connection) {
  if (connection->prev != nullptr) {
    connection->prev->next = connection->next;
  } else {
    connections_ = connection->next;
  }
  if (connection->next != nullptr) connection->next->prev = connection->prev;
  connection->prev = connection->next = nullptr;
  config_.live_connections->fetch_sub(1, std::memory_order_relaxed);
}

void ServerReactor::on_io(uint32_t) {
  for (int i = 0; i < kMaxAcceptsPerWakeup; ++i) {
    if (!accept_one()) break;
  }
}

bool ServerReactor::accept_one() {
  const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    switch (errno) {
      case EINTR:
      case ECONNABORTED:  // reset by the peer while in the backlog
        return true;
      case EMFILE:
      case ENFILE:
        shed_connection();
        return false;
      default:  // EAGAIN: the backlog is empty (or a transient ENOBUFS/ENOMEM: retried next
                // wake-up)
        return false;
    }
  }
  const uint32_t live = config_.live_connections->fetch_add(1, std::memory_order_relaxed);
  if (live >= config_.max_connections) {
    config_.live_connections->fetch_sub(1, std::memory_order_relaxed);
    bump(counters_.rejected_connections);  // before close(): whoever sees the close sees the count
    close(fd);
    return true;
  }
  if (!config_.unix_socket) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  auto* connection = new ServerConnection(this, fd, config_.unix_socket);
  connection->next = connections_;
  if (connections_ != nullptr) connections_->prev = connection;
  connections_ = connection;
  int err = 0;
  if (!connection->start(&err)) {
    remove_connection(connection);
    delete connection;
    bump(counters_.rejected_connections);
    return true;
  }
  bump(counters_.connections);
  return true;
}

void ServerReactor::shed_connection() {
  // Out of descriptors: the pending connection would keep the listening socket readable forever.
  // Free the spare, accept it, close it (the client sees a close instead of hanging), take the
  // spare back.
  if (spare_fd_ < 0) return;
  close(spare_fd_);
  spare_fd_ = -1;
  const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) {
    bump(counters_.rejected_connections);
    close(fd);
  }
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

}  // namespace hail
