// Connection: one client connection of a worker — its socket, its Transport (TCP or TLS), its
// ClientSession (HTTP/1 with pipelining, or HTTP/2 with streams) and its timer. It is where every
// request gets exactly one outcome (completed, read, write, timeout, parse, stream, or in flight at
// stop). Owned by its Worker (stable storage); touched only by that worker's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "http/client_session.h"
#include "http/http1_client_session.h"
#include "http/request.h"
#include "net/event_loop.h"
#include "net/transport.h"
#include "script/script.h"
#include "stats/error_class.h"

namespace hail {

class Worker;

class Connection final : public IoHandler, private SessionListener {
 public:
  Connection() = default;
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void init(Worker* worker, uint32_t index);
  void start();          // first connect
  void shutdown();       // end of run: close without recording anything further
  void send_deferred();  // the worker's end-of-batch flush (see Worker::defer_send)
  void send_planned(uint64_t planned_ns);  // rate mode: the worker hands over a planned request

  // Requests in flight that belong to the measured phase (for the in-flight total at stop).
  uint32_t counted_in_flight() const;
  // Open and able to take one more request now (rate mode: the worker's idle list goes stale when
  // a connection closes or fills up meanwhile, so it asks again).
  bool ready_for_request() const {
    return state_ == State::kOpen && session_ != nullptr && session_->capacity() > 0 && !thinking_;
  }
  // Closed and not waiting for anything: a grown connection target may start it again.
  bool closed() const { return state_ == State::kClosed; }
  // The connection target shrank below this connection: close now unless requests are in flight
  // or a connect is under way (those close when they end).
  void retire_if_idle();
  // Rate mode: on the worker's list of connections with spare capacity.
  bool idle_listed = false;

  void on_io(uint32_t events) override;

 private:
  enum class State : uint8_t { kClosed, kBackoff, kConnecting, kHandshaking, kOpen, kIdle };

  // One request in flight, indexed by the slot number the session reports back.
  struct Slot {
    uint64_t send_ns = 0;
    uint64_t planned_ns = 0;  // rate mode: when the plan wanted it sent (== send_ns otherwise)
    bool busy = false;
    bool counted = false;   // sent in the measured phase
    uint16_t tag = 0xFFFF;  // RequestSource::kNoTag: not counted per tag
    // For the request log (ab): when the request began as ab counts it (the connect of a fresh
    // connection, else the send), that connect's duration, the first response byte.
    uint64_t start_ns = 0;
    uint64_t connect_ns = 0;
    uint64_t first_byte_ns = 0;
    // A script's request, parsed for this slot (kept until the outcome; capacity reused).
    // Allocated at the slot's first scripted request: 10,000 idle connections stay small.
    std::unique_ptr<RequestTemplate> own;
  };

  void connect_now();
  void on_connect_failed(const char* reason);
  void on_connected(uint64_t now_ns);
  void drive_handshake(uint64_t now_ns);
  void on_handshake_done(uint64_t now_ns);
  void become_ready(uint64_t now_ns);  // closed loop fills the session, rate mode asks the plan
  // Submits one request; false when the plan has none for this connection now.
  bool submit(uint64_t now_ns, uint64_t planned_ns);
  void fill(uint64_t now_ns);  // closed loop: as many requests as the session takes
  bool flush_write();          // false when the connection failed (and was reset)
  void on_readable(uint32_t events);
  // After the session consumed bytes (or the peer closed): next requests, or reconnect.
  void after_responses(uint64_t now_ns);
  void fail_all(ErrorClass error, const char* reason);
  void finish_slot(uint32_t slot);
  void log_request(const Slot& s, int status, uint64_t now_ns);
  void close_fd();
  void reconnect() { reconnect_after(0); }
  // Closes, then connects again after delay_ns (--think without keep-alive) unless the plan is
  // done with this connection.
  void reconnect_after(uint64_t delay_ns);
  void retire();
  // A connection that closes before any response was answered on it (a server accepting and
  // dropping connections) reconnects after the connect backoff, not at once.
  uint64_t reopen_delay_ns(uint64_t otherwise_ns);
  void arm_request_timer();
  void on_request_timer(uint64_t now_ns);
  static void on_timer(Timer* timer, void* ctx);

  // SessionListener
  void on_first_byte(uint32_t slot) override;
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override;
  void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) override;
  void on_response_captured(uint32_t slot, int status,
                            const std::vector<std::pair<std::string, std::string>>& headers,
                            std::string_view body) override;

  Worker* worker_ = nullptr;
  uint32_t index_ = 0;
  int fd_ = -1;
  State state_ = State::kClosed;
  bool send_deferred_ = false;  // queued in the worker's end-of-batch flush
  bool thinking_ = false;       // --think: the next request waits for the timer
  bool opened_ = false;         // counted in the worker's open connections
  bool answered_ = false;       // a response completed since this connection opened
  bool fresh_ = false;          // no request sent yet since the connect
  uint64_t connect_took_ns_ = 0;
  uint32_t backoff_ms_ = 0;
  uint32_t in_flight_ = 0;
  uint64_t connect_start_ns_ = 0;
  uint64_t handshake_start_ns_ = 0;
  uint64_t deadline_ns_ = 0;  // connect / handshake deadline
  Timer timer_;
  std::unique_ptr<Transport> transport_;
  ClientSession* session_ = nullptr;  // h1_ or h2_, chosen per connection
  Http1ClientSession h1_;
  std::unique_ptr<ClientSession> h2_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<ScriptResponseHeader> header_views_;  // scripts' response(): capacity reused
  bool stop_after_response_ = false;                // response() failed or called wrk.thread:stop()
  std::string script_stop_;                         // the error ("" for a stop)
};

}  // namespace hail
