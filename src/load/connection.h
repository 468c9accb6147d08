// Connection: one client TCP connection of a worker, with its HTTP/1 response parser and its timer.
// It is where every request gets exactly one outcome (completed, read, write, timeout, parse, or in
// flight at stop). Owned by its Worker (stable storage); touched only by that worker's thread.
#pragma once

#include <cstdint>

#include "http/response_parser.h"
#include "net/event_loop.h"
#include "stats/error_class.h"

namespace hail {

class Worker;

class Connection final : public IoHandler {
 public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void init(Worker* worker, uint32_t index);
  void start();          // first connect
  void shutdown();       // end of run: close without recording anything further
  void send_deferred();  // the worker's end-of-batch flush (see Worker::defer_send)
  void send_planned(uint64_t planned_ns);  // rate mode: the worker hands over a planned request

  // The request in flight is counted in the measured phase (for the in-flight total at stop).
  bool counted_in_flight() const { return in_flight_ && counted_; }
  // Open with nothing in flight: may take a planned request (entries on the worker's idle stack go
  // stale when a connection closes or is reused meanwhile).
  bool ready_for_request() const { return state_ == State::kOpen && !in_flight_ && fd_ >= 0; }
  // Closed and not waiting for anything: a grown connection target may start it again.
  bool closed() const { return state_ == State::kClosed; }
  // The connection target shrank below this connection: close now unless a request is in flight
  // or a connect is under way (those close when they end).
  void retire_if_idle();

  void on_io(uint32_t events) override;

 private:
  enum class State : uint8_t { kClosed, kBackoff, kConnecting, kOpen, kIdle };

  void connect_now();
  void on_connect_failed(int err);
  void on_connected(uint64_t now_ns);
  void send_request(uint64_t now_ns, uint64_t planned_ns);
  void become_ready(uint64_t now_ns);  // open and idle: closed loop sends, rate mode asks the plan
  bool flush_write();
  void on_readable(uint32_t events);
  // Returns false when the connection was closed while handling the bytes.
  bool process(const char* data, size_t len, uint64_t now_ns);
  bool on_response_complete(uint64_t now_ns, bool more_bytes_follow);
  void on_eof(uint64_t now_ns);
  void fail_request(ErrorClass error, const char* reason = nullptr);
  void close_fd();
  void reconnect() { reconnect_after(0); }
  // Closes, then connects again after delay_ns (--think without keep-alive) unless the plan is
  // done with this connection.
  void reconnect_after(uint64_t delay_ns);
  void retire();
  static void on_timer(Timer* timer, void* ctx);

  Worker* worker_ = nullptr;
  uint32_t index_ = 0;
  int fd_ = -1;
  State state_ = State::kClosed;
  bool in_flight_ = false;
  bool counted_ = false;  // the request in flight was sent in the measured phase
  bool first_byte_seen_ = false;
  bool send_deferred_ = false;  // queued in the worker's end-of-batch flush
  bool thinking_ = false;       // --think: the next request waits for the timer
  bool opened_ = false;         // counted in the worker's open connections
  uint32_t backoff_ms_ = 0;
  size_t write_offset_ = 0;
  uint64_t send_ns_ = 0;
  uint64_t planned_ns_ = 0;  // rate mode: when the plan wanted it sent (== send_ns_ otherwise)
  uint64_t connect_start_ns_ = 0;
  uint64_t deadline_ns_ = 0;  // request (or connect) deadline; the timer catches up lazily
  Timer timer_;
  Http1ResponseParser parser_;
};

}  // namespace hail
