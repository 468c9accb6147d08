// Server: `hail serve`, the built-in HTTP/1.1 and HTTP/2 target (cleartext or TLS, TCP or a Unix
// socket): N reactor threads, each with its own EventLoop, listening socket and TLS context. Used
// by the CLI, `hail demo` and tests in-process. Owner: server. start(), port(), stats() and stop()
// may be called from any thread except a reactor's.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "server/server_stats.h"

namespace hail {

class ServerReactor;
class StaticRoot;

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port; port() tells which
  std::string root;   // empty: no static files (404)
  int threads = 1;
  uint64_t header_timeout_ns = 10 * kNsPerSec;  // first byte of a head to its end; 0: no limit
  uint64_t idle_timeout_ns = 60 * kNsPerSec;    // no byte in or out; 0: no limit
  uint32_t max_connections = 10000;             // open at once, over all threads
  std::string unix_socket;  // set: listen on this Unix socket path instead of host:port
  // TLS on every connection: a certificate chain and key (PEM files), or a throw-away self-signed
  // pair for "localhost" made at start (kept in memory only).
  std::string tls_cert_file;
  std::string tls_key_file;
  bool tls_self_signed = false;
  bool h2 = true;  // HTTP/2: ALPN "h2" (preferred) with TLS, h2c prior knowledge in cleartext
  uint32_t h2_max_streams = 100;  // SETTINGS_MAX_CONCURRENT_STREAMS
  uint64_t h2_max_requests = 0;   // GOAWAY after this many streams on a connection; 0: no limit

  bool tls() const { return tls_self_signed || !tls_cert_file.empty(); }
};

class Server {
 public:
  // Binds, then spawns the reactor threads. Errors name the problem: "cannot bind 127.0.0.1:80:
  // Permission denied", "--root /x: No such file or directory".
  static Result<std::unique_ptr<Server>> start(const ServerOptions& options);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return port_; }  // 0 on a Unix socket
  bool tls() const { return tls_; }
  const std::string& unix_socket() const { return unix_socket_; }  // empty: TCP
  ServerStats stats() const;
  // Thread-safe and idempotent: stops and joins the reactors, closing every connection.
  void stop();

 private:
  Server() = default;
  static ServerStats stats_of(const void* server);

  uint16_t port_ = 0;
  bool tls_ = false;
  std::string unix_socket_;
  uint64_t unix_socket_inode_ = 0;  // removed on stop() only if it is still the file we made
  std::unique_ptr<StaticRoot> root_;
  std::vector<std::unique_ptr<ServerReactor>> reactors_;
  std::vector<std::thread> threads_;
  std::atomic<uint32_t> live_connections_{0};
  std::mutex stop_mutex_;
  bool stopped_ = false;  // guarded by stop_mutex_
};

}  // namespace hail
