#include "server/server.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "net/address.h"
#include "net/event_loop.h"
#include "server/reactor.h"
#include "server/static_root.h"

namespace hail {

namespace {

constexpr int kMaxThreads = 1024;

void set_port(SocketAddress* address, uint16_t port) {
  if (address->family() == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address->storage)->sin_port = htons(port);
  } else if (address->family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&address->storage)->sin6_port = htons(port);
  }
}

uint16_t port_of(const SocketAddress& address) {
  if (address.family() == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_port);
}

// A non-blocking listening socket on `address`. SO_REUSEPORT only when several reactors share the
// port: it lets the kernel spread connections over their sockets, but it would also let a second
// server of the same user silently share an explicit port, so a single reactor goes without it and
// a busy port is an error as usual.
Result<int> open_listener(const SocketAddress& address, bool reuse_port) {
  const int fd = socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  // SO_REUSEADDR: a restarted server can bind while old connections sit in TIME_WAIT.
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    const int err = errno;
    close(fd);
    return make_error("SO_REUSEPORT: " + std::string(std::strerror(err)));
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.len) != 0) {
    const int err = errno;
    close(fd);
    return make_error("cannot bind " + address.to_string() + ": " + std::strerror(err));
  }
  if (listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    close(fd);
    return make_error("cannot listen on " + address.to_string() + ": " + std::strerror(err));
  }
  return fd;
}

void run_reactor(ServerReactor* reactor, int index) {
  // Signals meant for the process go to the thread that waits for them, not to a reactor; SIGPIPE
  // (sendfile has no MSG_NOSIGNAL) stays pending instead of killing the process.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGHUP);
  sigaddset(&blocked, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  const std::string name = "hail-serve-" + std::to_string(index);
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  reactor->loop().run();
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options) {
  if (options.threads < 1 || options.threads > kMaxThreads) {
    return make_error("--threads " + std::to_string(options.threads) + ": must be 1.." +
                      std::to_string(kMaxThreads));
  }
  if (options.max_connections < 1) return make_error("--max-connections 0: must be at least 1");

  std::unique_ptr<Server> server(new Server());
  if (!options.root.empty()) {
    auto root = StaticRoot::open(options.root);
    if (!root) return root.error();
    server->root_ = std::move(root.value());
  }

  auto addresses = resolve(options.host, options.port);
  if (!addresses) return addresses.error();
  SocketAddress address = addresses.value().front();

  ReactorConfig config;
  config.header_timeout_ns = options.header_timeout_ns;
  config.idle_timeout_ns = options.idle_timeout_ns;
  config.max_connections = options.max_connections;
  config.live_connections = &server->live_connections_;
  SessionEnv env;
  env.root = server->root_.get();
  env.stats = &Server::stats_of;
  env.stats_ctx = server.get();

  const bool reuse_port = options.threads > 1;
  for (int i = 0; i < options.threads; ++i) {
    auto listener = open_listener(address, reuse_port);
    if (!listener) return listener.error();
    const int fd = listener.value();
    if (i == 0) {
      // Port 0 asked the kernel for one; the other reactors must bind exactly that one.
      SocketAddress bound;
      bound.len = sizeof bound.storage;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound.storage), &bound.len) != 0) {
        const int err = errno;
        close(fd);
        return make_error(std::string("getsockname: ") + std::strerror(err));
      }
      server->port_ = port_of(bound);
      set_port(&address, server->port_);
    }
    auto loop = EventLoop::create();
    if (!loop) {
      close(fd);
      return loop.error();
    }
    server->reactors_.push_back(std::make_unique<ServerReactor>(loop.value(), fd, config, env));
    if (const int err = server->reactors_.back()->start_listening(); err != 0) {
      return make_error("epoll_ctl (listening socket): " + std::string(std::strerror(err)));
    }
  }
  for (size_t i = 0; i < server->reactors_.size(); ++i) {
    server->threads_.emplace_back(run_reactor, server->reactors_[i].get(), static_cast<int>(i));
  }
  return server;
}

Server::~Server() {
  stop();
}

void Server::stop() {
  std::lock_guard<std::mutex> lock(stop_mutex_);
  if (stopped_) return;
  stopped_ = true;
  for (auto& reactor : reactors_) reactor->loop().stop();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  // Connections close here, on the stopping thread, now that no reactor runs. The reactors
  // themselves stay (until the destructor) so that stats() keeps the totals.
  for (auto& reactor : reactors_) reactor->close_all();
}

ServerStats Server::stats() const {
  ServerStats sum;
  // reactors_ does not change between start() and the destructor, and counters are atomics.
  for (const auto& reactor : reactors_) add_to(&sum, reactor->counters());
  return sum;
}

ServerStats Server::stats_of(const void* server) {
  return static_cast<const Server*>(server)->stats();
}

}  // namespace hail
