// Server: `hail serve`, the built-in HTTP/1.1 target — N reactor threads, each with its own
// EventLoop and SO_REUSEPORT listening socket on one address. Used by the CLI, `hail demo` and
// tests in-process. Owner: server. start(), port(), stats() and stop() may be called from any
// thread except a reactor's.
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
};

class Server {
 public:
  // Binds, then spawns the reactor threads. Errors name the problem: "cannot bind 127.0.0.1:80:
  // Permission denied", "--root /x: No such file or directory".
  static Result<std::unique_ptr<Server>> start(const ServerOptions& options);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return port_; }
  ServerStats stats() const;
  // Thread-safe and idempotent: stops and joins the reactors, closing every connection.
  void stop();

 private:
  Server() = default;
  static ServerStats stats_of(const void* server);

  uint16_t port_ = 0;
  std::unique_ptr<StaticRoot> root_;
  std::vector<std::unique_ptr<ServerReactor>> reactors_;
  std::vector<std::thread> threads_;
  std::atomic<uint32_t> live_connections_{0};
  std::mutex stop_mutex_;
  bool stopped_ = false;  // guarded by stop_mutex_
};

}  // namespace hail
