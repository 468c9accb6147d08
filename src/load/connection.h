// Connection: one client connection of a worker — its socket, its Transport (TCP or TLS), its
// ClientSession (HTTP/1 with pipelining, or HTTP/2 with streams) and its timer. It is where every
// request gets exactly one outcome (completed, read, write, timeout, parse, stream, or in flight at
// stop). It asks the worker's Pacer whether and when it may send and hands every outcome to the
// worker's MeasurementSink; it does not know which load model runs. Owned by its Worker (stable
// storage); touched only by that worker's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/client_session.h"
#include "http/request.h"
#include "http/session_factory.h"
#include "load/outcome.h"
#include "load/pacer.h"
#include "net/event_loop.h"
#include "net/transport.h"
#include "script/script.h"
#include "stats/error_class.h"

namespace hail {

class Connection;
class LingeringClose;
class MeasurementSink;
class RequestSource;
struct SocketAddress;

// The worker's side of its connections, besides the pacer and the sink.
class ConnectionHost {
 public:
  virtual void stop_for_script(const std::string& error) = 0;
  virtual void on_connect_started() = 0;
  virtual void on_connect_finished(bool ok) = 0;

 protected:
  ~ConnectionHost() = default;
};

// Everything a worker's connections share; owned by the worker, outlives them.
struct ConnectionEnv {
  EventLoop* loop = nullptr;
  ConnectionHost* host = nullptr;
  const bool* finished = nullptr;  // the worker's run is over: nothing more is recorded
  // Keep-alive connections whose response just completed send their next request after the whole
  // epoll batch has been handled, not in the middle of it: the server then finds the requests of
  // many connections in one wake-up (as wrk's write-on-EPOLLOUT does), which costs it less CPU per
  // request. The send time is still taken when each request is written. The worker flushes this
  // list (Connection::send_deferred) at the end of each batch; its capacity is reserved up front.
  std::vector<Connection*>* deferred_sends = nullptr;
  Pacer* pacer = nullptr;
  MeasurementSink* sink = nullptr;
  RequestSource* source = nullptr;
  ThreadScript* script = nullptr;  // a wrk script (its response() sees every response), or null
  const SessionFactory* sessions = nullptr;
  uint64_t timeout_ns = 0;  // per request; also bounds connect + TLS handshake
  bool http09 = false;      // half-close after the request (webbench -9)
  // A reused keep-alive connection closed before a byte of an idempotent request's response:
  // send that request once more on a new connection (RFC 9112 §9.3.1), instead of a read error.
  bool retry_idempotent = true;
  char* read_buffer = nullptr;
  LingeringClose* lingering = nullptr;  // closes sockets whose last frames must not be lost
  // A script's response(): the header views of the call, and the error (or "" for a stop) that
  // ends the run once the response is counted. Shared scratch: one response at a time.
  std::vector<ScriptResponseHeader>* script_headers = nullptr;
  std::string* script_stop = nullptr;
};

class Connection final : public IoHandler, private SessionListener {
 public:
  Connection() = default;
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // index: the connection's number in its worker; group: its target group (--urls hosts).
  void init(const ConnectionEnv* env, uint32_t index, uint32_t group, const SocketAddress* address,
            std::unique_ptr<Transport> transport);
  void start();          // connect
  void shutdown();       // end of run: close without recording anything further
  void send_deferred();  // the worker's end-of-batch flush (see ConnectionEnv::deferred_sends)
  void wake();           // the pacer has requests for this waiting connection

  // Requests in flight that belong to the measured phase (for the in-flight total at stop).
  uint32_t counted_in_flight() const;
  // Open and able to take one more request now.
  bool ready_for_request() const {
    return state_ == State::kOpen && session_ != nullptr && session_->capacity() > 0 && !thinking_;
  }
  // Closed and not waiting for anything: the pacer may open it again.
  bool closed() const { return state_ == State::kClosed; }
  // Connected (handshake done, and for HTTP/2 the server's preface), with or without a request
  // in flight.
  bool established() const { return state_ == State::kOpen || state_ == State::kIdle; }
  // Opening: between connect() and the end of its TLS handshake (HTTP/2: the server's preface).
  bool opening() const {
    return state_ == State::kConnecting || state_ == State::kHandshaking ||
           state_ == State::kPreface;
  }
  // Close now unless requests are in flight or a connect is under way (those close when they end,
  // as the pacer no longer keeps the connection).
  void close_when_idle();

  void on_io(uint32_t events) override;

 private:
  // kPreface: connected (and TLS done), waiting for the session to be ready (HTTP/2: the server's
  // SETTINGS) within the connect deadline; still a connect in progress for the worker.
  enum class State : uint8_t {
    kClosed,
    kBackoff,
    kConnecting,
    kHandshaking,
    kPreface,
    kOpen,
    kIdle
  };

  // One request in flight, indexed by the slot number the session reports back.
  struct Slot {
    Ticket ticket;
    uint64_t send_ns = 0;
    const RequestTemplate* request = nullptr;  // what was sent (valid until the outcome)
    bool busy = false;
    bool reused = false;    // sent on a connection that had carried a request before
    bool retried = false;   // this is the request's second send
    uint16_t tag = 0xFFFF;  // RequestSource::kNoTag: not counted per tag
    // When the request began as ab counts it (the connect of a fresh connection, else the send),
    // that connect's duration, the first response byte.
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
  void on_session_ready(uint64_t now_ns);  // the connection can carry requests: kOpen
  // Does what the pacer says a connection that can take requests does next.
  void follow(Readiness readiness, uint64_t now_ns);
  // Submits one request; false when the pacer grants none now.
  bool submit(uint64_t now_ns);
  void fill(uint64_t now_ns);  // as many requests as the session and the pacer allow
  bool flush_write();          // false when the connection failed (and was reset)
  void on_readable(uint32_t events);
  // After the session consumed bytes (or the peer closed): next requests, or reconnect.
  void after_responses(uint64_t now_ns);
  void fail_all(ErrorClass error, const char* reason);
  // HTTP/2 after a connection error: the GOAWAY naming it goes out before the close (RFC 9113
  // §5.4.1), if the socket takes it at once; the close then lingers so that it is not lost.
  void send_goaway();
  // The connection closed under its requests: those the server cannot have seen (no response
  // byte, a reused connection, an idempotent method, not sent twice already) wait to be sent again
  // on the next connection; the others fail.
  void fail_or_retry_all(ErrorClass error, const char* reason);
  bool retriable(const Slot& s) const;
  // Moves the request in `slot` to the requests sent again first on this or the next connection.
  void queue_retry(uint32_t slot);
  // The requests waiting to be sent again, when this connection will not open again: their
  // tickets go back to the pacer settled (the sends were counted as retried).
  void settle_retries();
  // The request in `slot` has its outcome: its slot is freed, the sink and the pacer are told.
  void finish(uint32_t slot, int status, uint32_t interim, ErrorClass error, const char* reason);
  void set_capture();
  void close_fd();
  void reconnect() { reconnect_after(0); }
  // Closes, then connects again after delay_ns (--think without keep-alive) if the pacer wants
  // this connection open.
  void reconnect_after(uint64_t delay_ns);
  // A connection that closes before any response was answered on it (a server accepting and
  // dropping connections) reconnects after the connect backoff, not at once.
  uint64_t reopen_delay_ns(uint64_t otherwise_ns);
  void on_request_timer(uint64_t now_ns);
  static void on_timer(Timer* timer, void* ctx);
  bool finished() const { return *env_->finished; }

  // SessionListener
  void on_first_byte(uint32_t slot) override;
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override;
  void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) override;
  void on_request_refused(uint32_t slot, const char* reason) override;
  void on_response_captured(uint32_t slot, int status,
                            const std::vector<std::pair<std::string, std::string>>& headers,
                            std::string_view body) override;

  const ConnectionEnv* env_ = nullptr;
  uint32_t index_ = 0;
  uint32_t group_ = 0;
  const SocketAddress* address_ = nullptr;
  int fd_ = -1;
  State state_ = State::kClosed;
  bool send_deferred_ = false;        // on the worker's end-of-batch list
  bool thinking_ = false;             // the next request waits for the timer (Next::kPauseUntil)
  bool opened_ = false;               // counted in the sink's open connections
  bool answered_ = false;             // a response completed since this connection opened
  bool linger_ = false;               // a GOAWAY went out: the close lingers (LingeringClose)
  bool fresh_ = false;                // no request sent yet since the connect
  bool stop_after_response_ = false;  // response() failed or called wrk.thread:stop()
  bool sink_captures_ = false;        // a collector wants this connection's next response
  uint32_t backoff_ms_ = 0;
  uint32_t in_flight_ = 0;
  // TCP connect, then TCP connect and TLS handshake: what the first request on it waited for.
  uint64_t connect_took_ns_ = 0;
  uint64_t connect_start_ns_ = 0;  // + the timeout: the connect and handshake deadline
  // The last read that returned bytes: an HTTP/2 connection silent for half a timeout while a
  // request waits is taken for dropped (closed and reopened), not kept with its streams reset.
  uint64_t last_read_ns_ = 0;
  Timer timer_;
  std::unique_ptr<Transport> transport_;
  ClientSession* session_ = nullptr;  // one of sessions_, chosen per connect
  // Kept across reconnects (HTTP/1 and HTTP/2), so a connection per request allocates nothing.
  std::unique_ptr<ClientSession> sessions_[2];
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  // Requests to send again first on the next connection (fail_or_retry_all); empty, and without
  // storage, unless a server closed a reused connection under requests.
  struct Retry {
    Ticket ticket;
    const RequestTemplate* request = nullptr;
    std::unique_ptr<RequestTemplate> own;  // a script's request, kept until it is sent again
    uint16_t tag = 0xFFFF;
  };
  std::vector<Retry> retries_;
};

}  // namespace hail
