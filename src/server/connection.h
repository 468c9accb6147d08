// ServerConnection: one accepted socket of `hail serve` — moves bytes between its Transport (plain
// TCP / Unix, or TLS) and its protocol session (HTTP/1.1, or HTTP/2 chosen by ALPN or by the h2c
// preface), and owns the connection's timers (handshake and header timeout, idle timeout, linger,
// /delay). Owner: server. Created, driven and destroyed by its ServerReactor's thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "net/event_loop.h"
#include "net/transport.h"
#include "server/h2_session.h"
#include "server/session.h"

namespace hail {

class ServerReactor;

class ServerConnection final : public IoHandler {
 public:
  // `unix_socket`: the fd is a Unix domain stream socket (no TCP options).
  ServerConnection(ServerReactor* reactor, int fd, bool unix_socket);
  ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  // Registers with the loop; false (errno value in *err) if epoll refused the fd or no TLS
  // connection could be set up.
  bool start(int* err);
  void on_io(uint32_t events) override;

  // The reactor's list of live connections (for shutdown).
  ServerConnection* prev = nullptr;
  ServerConnection* next = nullptr;

 private:
  enum class Flush : uint8_t { kDone, kBlocked, kYield, kClose, kError };
  enum class Mode : uint8_t {
    kHandshake,  // TLS handshake in progress
    kDetect,     // waiting for enough first bytes to tell the h2c preface from HTTP/1
    kHttp1,
    kH2,
  };

  void progress();
  void yield();
  bool handshake();  // false: not done yet, or failed (and this is destroyed)
  void select_protocol(bool h2);
  void detect(const char* data, size_t len, uint64_t now_ns);
  bool read_some();  // false: fatal socket error
  size_t feed(const char* data, size_t len, uint64_t now_ns);
  bool wants_input() const { return h2_ ? h2_->wants_input() : http1_.wants_input(); }
  OutputQueue& output() { return h2_ ? h2_->output() : http1_.output(); }
  bool in_head() const;
  Flush flush();
  Flush flush_plain();  // sendmsg and sendfile straight on the socket
  Flush flush_tls();    // through the TLS transport, one record's worth at a time
  Flush on_batch_stop(const OutputQueue::Batch& batch);
  void account_sent(uint64_t sent_bytes, uint64_t counted_bytes);
  void finish();  // the closing response is out: close, lingering if the peer may still send
  void drain_linger();
  void update_timeout();
  uint64_t deadline_ns() const;
  void on_timeout();
  void destroy();  // deletes this

  ServerReactor* reactor_;
  EventLoop& loop_;
  int fd_;
  Mode mode_ = Mode::kHttp1;
  TcpTransport tcp_;
  std::unique_ptr<Transport> tls_;  // null: cleartext
  ServerSession http1_;
  std::unique_ptr<H2ServerSession> h2_;  // set once the connection turned out to speak HTTP/2
  std::string pending_in_;    // input the session could not take yet, or an incomplete preface
  bool read_pending_ = true;  // the socket may hold unread bytes (edge-triggered bookkeeping)
  bool rdhup_seen_ = false;   // the peer's FIN is queued: read until EOF, not just a short read
  bool peer_eof_ = false;
  bool lingering_ = false;
  bool read_blocked_on_write_ = false;  // TLS read wants the socket writable first
  bool write_blocked_on_read_ = false;  // TLS write wants the socket readable first
  uint64_t lingered_bytes_ = 0;
  uint64_t last_activity_ns_ = 0;
  uint64_t head_started_ns_ = 0;  // 0: no partial head
  uint64_t sent_this_turn_ = 0;
  uint64_t hard_deadline_ns_ = UINT64_MAX;  // linger or 408 sent: close by then whatever happens
  Timer timeout_timer_;  // armed lazily at the earliest deadline; re-checks when it fires
  Timer delay_timer_;    // a /delay response becomes ready
  Timer yield_timer_;    // armed at "now" to continue after the other connections had their turn
};

}  // namespace hail
