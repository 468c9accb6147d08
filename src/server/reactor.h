// ServerReactor: one thread of `hail serve` — its EventLoop, listening socket (SO_REUSEPORT; a dup
// of the shared one for a Unix socket), TLS context, connections, counters and Date line. Owner:
// server. Built and destroyed by the Server while its thread is not running; in between only its
// thread touches it, except counters(), which any thread may read.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "net/event_loop.h"
#include "server/h2_session.h"
#include "server/response_head.h"
#include "server/server_stats.h"
#include "server/session.h"

namespace hail {

class ServerConnection;
class TlsServerContext;

// Limits every reactor of a server shares.
struct ReactorConfig {
  uint64_t header_timeout_ns = 0;  // 0: none
  uint64_t idle_timeout_ns = 0;    // 0: none
  uint32_t max_connections = 0;    // across all reactors
  std::atomic<uint32_t>* live_connections = nullptr;
  bool unix_socket =
      false;       // the listening socket is a Unix domain socket (shared: EPOLLEXCLUSIVE)
  bool h2 = true;  // HTTP/2: ALPN h2 with TLS, h2c prior knowledge in cleartext
  H2Options h2_options;
};

inline constexpr size_t kReadBufferBytes = 64 * 1024;
// Bytes handed to one TLS write: one record (16 KiB of plaintext).
inline constexpr size_t kTlsWriteBytes = 16 * 1024;

class ServerReactor final : public IoHandler {
 public:
  // Takes ownership of `loop`, `listen_fd` and `tls` (null: cleartext). `env` fields other than
  // date_line and counters (set here) come from the server.
  ServerReactor(EventLoop* loop, int listen_fd, const ReactorConfig& config, SessionEnv env,
                std::unique_ptr<TlsServerContext> tls);
  ~ServerReactor();
  ServerReactor(const ServerReactor&) = delete;
  ServerReactor& operator=(const ServerReactor&) = delete;

  int start_listening();  // registers the listening socket; 0 or an errno value
  // With the thread stopped: closes every connection and the listening socket; counters stay.
  void close_all();
  EventLoop& loop() { return *loop_; }
  const ServerCounters& counters() const { return counters_; }

  // For its connections.
  ServerCounters& mutable_counters() { return counters_; }
  const ReactorConfig& config() const { return config_; }
  const SessionEnv* env() const { return &env_; }
  char* read_buffer() { return read_buffer_.get(); }
  char* tls_scratch() { return tls_scratch_.get(); }  // kTlsWriteBytes; TLS reactors only
  TlsServerContext* tls() { return tls_.get(); }
  const H2Options* h2_options() const { return config_.h2 ? &config_.h2_options : nullptr; }
  // A connection finished its TLS handshake: the counters take the context's totals.
  void note_tls_handshake();
  void refresh_date(uint64_t now_ns) { date_cache_.line(now_ns); }
  void remove_connection(ServerConnection* connection);  // unlinks and releases its slot

  void on_io(uint32_t events) override;  // the listening socket is readable: accept

 private:
  bool accept_one();  // false: nothing more to accept now
  void shed_connection();

  std::unique_ptr<EventLoop> loop_;
  int listen_fd_;
  int spare_fd_;  // kept open so that at EMFILE one fd can be freed to accept-and-close
  ReactorConfig config_;
  ServerCounters counters_;
  HttpDateCache date_cache_;
  SessionEnv env_;
  std::unique_ptr<char[]> read_buffer_;  // shared by its connections: input is parsed as it arrives
  std::unique_ptr<TlsServerContext> tls_;
  std::unique_ptr<char[]> tls_scratch_;  // TLS writes gathered from several pieces
  ServerConnection* connections_ = nullptr;
};

}  // namespace hail
