#include "server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "net/address.h"
#include "net/event_loop.h"
#include "net/tls.h"
#include "server/listener.h"
#include "server/reactor.h"
#include "server/static_root.h"

namespace hail {

namespace {

constexpr int kMaxThreads = 1024;

void run_reactor(ServerReactor* reactor, int index) {
  // Signals meant for the process go to the thread that waits for them, not to a reactor; SIGPIPE
  // (sendfile and OpenSSL's writes have no MSG_NOSIGNAL) stays pending instead of killing the
  // process.
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

Result<TlsServerConfig> tls_config_for(const ServerOptions& options) {
  TlsServerConfig config;
  if (options.tls_self_signed) {
    if (!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
      return make_error("--tls-self-signed cannot be combined with --tls-cert/--tls-key");
    }
    auto pair = generate_self_signed("localhost");
    if (!pair) return make_error("--tls-self-signed: " + pair.error().message);
    config.cert_pem = std::move(pair->cert_pem);
    config.key_pem = std::move(pair->key_pem);
  } else {
    if (options.tls_key_file.empty()) return make_error("--tls-cert needs --tls-key");
    if (options.tls_cert_file.empty()) return make_error("--tls-key needs --tls-cert");
    config.cert_file = options.tls_cert_file;
    config.key_file = options.tls_key_file;
  }
  if (options.h2) config.alpn.push_back("h2");  // the server's preference comes first
  config.alpn.push_back("http/1.1");
  return config;
}

// The listening sockets, one per reactor. AF_UNIX has no SO_REUSEPORT: one socket, and each further
// reactor gets a dup of it (registered with EPOLLEXCLUSIVE, see ServerReactor::start_listening).
Result<std::vector<int>> open_listeners(const ServerOptions& options, uint16_t* port) {
  std::vector<int> fds;
  auto fail = [&fds](std::string message) {
    for (const int fd : fds) close(fd);
    return make_error(std::move(message));
  };
  if (!options.unix_socket.empty()) {
    auto listener = open_unix_listener(options.unix_socket);
    if (!listener) return listener.error();
    fds.push_back(listener.value());
    for (int i = 1; i < options.threads; ++i) {
      const int fd = fcntl(fds.front(), F_DUPFD_CLOEXEC, 0);
      if (fd < 0) return fail(std::string("dup (listening socket): ") + std::strerror(errno));
      fds.push_back(fd);
    }
    return fds;
  }
  auto addresses = resolve(options.host, options.port);
  if (!addresses) return addresses.error();
  SocketAddress address = addresses.value().front();
  const bool reuse_port = options.threads > 1;
  for (int i = 0; i < options.threads; ++i) {
    auto listener = open_tcp_listener(address, reuse_port);
    if (!listener) return fail(listener.error().message);
    fds.push_back(listener.value());
    if (i == 0) {
      // Port 0 asked the kernel for one; the other reactors must bind exactly that one.
      auto bound = bound_port(listener.value());
      if (!bound) return fail(bound.error().message);
      *port = bound.value();
      set_port(&address, *port);
    }
  }
  return fds;
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options) {
  if (options.threads < 1 || options.threads > kMaxThreads) {
    return make_error("--threads " + std::to_string(options.threads) + ": must be 1.." +
                      std::to_string(kMaxThreads));
  }
  if (options.max_connections < 1) return make_error("--max-connections 0: must be at least 1");
  if (options.h2_max_streams < 1) return make_error("--h2-max-streams 0: must be at least 1");

  std::unique_ptr<Server> server(new Server());
  if (!options.root.empty()) {
    auto root = StaticRoot::open(options.root);
    if (!root) return root.error();
    server->root_ = std::move(root.value());
  }
  TlsServerConfig tls_config;
  if (options.tls()) {
    auto config = tls_config_for(options);
    if (!config) return config.error();
    tls_config = std::move(config.value());
    // One set of ticket keys for all reactors: a client that reconnects resumes its session
    // whichever reactor the kernel hands the new connection to.
    auto keys = new_ticket_keys();
    if (!keys) return keys.error();
    tls_config.ticket_keys = std::move(keys.value());
    server->tls_ = true;
  }

  ReactorConfig config;
  config.header_timeout_ns = options.header_timeout_ns;
  config.idle_timeout_ns = options.idle_timeout_ns;
  config.max_connections = options.max_connections;
  config.live_connections = &server->live_connections_;
  config.unix_socket = !options.unix_socket.empty();
  config.h2 = options.h2;
  config.h2_options.max_concurrent_streams = options.h2_max_streams;
  config.h2_options.max_requests = options.h2_max_requests;
  SessionEnv env;
  env.root = server->root_.get();
  env.stats = &Server::stats_of;
  env.stats_ctx = server.get();

  auto listeners = open_listeners(options, &server->port_);
  if (!listeners) return listeners.error();
  std::vector<int>& fds = listeners.value();
  if (config.unix_socket) {
    server->unix_socket_ = options.unix_socket;
    struct stat st {};
    if (stat(options.unix_socket.c_str(), &st) == 0) server->unix_socket_inode_ = st.st_ino;
  }
  for (size_t i = 0; i < fds.size(); ++i) {
    auto close_rest = [&fds](size_t from) {
      for (size_t j = from; j < fds.size(); ++j) close(fds[j]);
    };
    std::unique_ptr<TlsServerContext> tls;
    if (options.tls()) {
      // One context per reactor thread, never shared: no OpenSSL lock on the hot path.
      auto context = TlsServerContext::create(tls_config);
      if (!context) {
        close_rest(i);
        return make_error("TLS: " + context.error().message);
      }
      tls = std::move(context.value());
    }
    auto loop = EventLoop::create();
    if (!loop) {
      close_rest(i);
      return loop.error();
    }
    server->reactors_.push_back(
        std::make_unique<ServerReactor>(loop.value(), fds[i], config, env, std::move(tls)));
    if (const int err = server->reactors_.back()->start_listening(); err != 0) {
      close_rest(i + 1);
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
  if (!unix_socket_.empty()) {
    // Only our own socket file, not one that replaced it meanwhile.
    struct stat st {};
    if (stat(unix_socket_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
        st.st_ino == unix_socket_inode_) {
      unlink(unix_socket_.c_str());
    }
  }
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
