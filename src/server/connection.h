// ServerConnection: one accepted socket of `hail serve` — moves bytes between the socket and its
// ServerSession, and owns the connection's timers (header timeout, idle timeout, linger, /delay).
// Owner: server. Created, driven and destroyed by its ServerReactor's thread only.
#pragma once

#include <cstdint>
#include <string>

#include "net/event_loop.h"
#include "server/session.h"

namespace hail {

class ServerReactor;

class ServerConnection final : public IoHandler {
 public:
  ServerConnection(ServerReactor* reactor, int fd);
  ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  // Registers with the loop; false (errno value in *err) if epoll refused the fd.
  bool start(int* err);
  void on_io(uint32_t events) override;

  // The reactor's list of live connections (for shutdown).
  ServerConnection* prev = nullptr;
  ServerConnection* next = nullptr;

 private:
  enum class Flush : uint8_t { kDone, kBlocked, kYield, kClose, kError };

  void progress();
  void yield();
  bool read_some();  // false: fatal socket error
  Flush flush();
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
  ServerSession session_;
  std::string pending_in_;    // input the session could not take yet (its output is full)
  bool read_pending_ = true;  // the socket may hold unread bytes (edge-triggered bookkeeping)
  bool rdhup_seen_ = false;   // the peer's FIN is queued: read until EOF, not just a short read
  bool peer_eof_ = false;
  bool lingering_ = false;
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
