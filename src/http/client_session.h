// ClientSession: the client side of one HTTP connection as a pure state machine — requests
// submitted, bytes to send out, received bytes in, and per-request events to a listener. HTTP/1.x
// (Http1ClientSession, pipelining) and HTTP/2 (H2ClientSession, streams) implement it; the
// connection picks one per connection (ALPN, --h2, --h1). No socket, no clock: tests feed bytes.
// Owned by one connection; used only by that connection's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stats/error_class.h"

namespace hail {

// Events of the requests a session carries. `slot` is the connection's own number for a request
// (given to submit()); every submitted request gets exactly one of on_response_complete or
// on_request_failed, unless the session reports a connection error first (then the connection
// fails every request still in flight itself).
class SessionListener {
 public:
  virtual ~SessionListener() = default;
  // The first byte of the request's response (HTTP/2: its first HEADERS frame) arrived.
  virtual void on_first_byte(uint32_t slot) = 0;
  // The whole response is in. interim: 1xx responses skipped before it.
  virtual void on_response_complete(uint32_t slot, int status, uint32_t interim) = 0;
  // Capture mode only (ClientSession::set_capture), right before on_response_complete for the same
  // response: the final response's header fields (in order; HTTP/1: names as sent, values trimmed,
  // obs-fold joined; HTTP/2: lower-case names, no pseudo-header fields; trailers in neither) and
  // its decoded body, cut at Http1ResponseParser::kDefaultMaxCaptureBodyBytes. The references are
  // valid during the call only. The request still counts as in flight here: do not call into the
  // session from this callback.
  virtual void on_response_captured(
      uint32_t /*slot*/, int /*status*/,
      const std::vector<std::pair<std::string, std::string>>& /*headers*/,
      std::string_view /*body*/) {}
  // This request failed but the connection lives on (HTTP/2 RST_STREAM: ErrorClass::kStream, or a
  // stream refused by GOAWAY). `reason` has static storage.
  virtual void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) = 0;
  // The server did not process this request at all (HTTP/2: RST_STREAM with REFUSED_STREAM, or a
  // stream above a GOAWAY's last stream id; RFC 9113 §8.7), so it may be sent again whatever its
  // method. A listener that does not send it again fails it as a stream error.
  virtual void on_request_refused(uint32_t slot, const char* reason) {
    on_request_failed(slot, ErrorClass::kStream, reason);
  }
};

enum class SessionStatus : uint8_t {
  kOk,
  // The connection must be closed: a protocol error (parse error, HTTP/2 connection error). The
  // requests in flight fail with error() / error_reason(); with none in flight (bytes no request
  // asked for) the error is the connection's own.
  kError,
};

struct RequestTemplate;  // http/request.h: built once per run, outlives every session

class ClientSession {
 public:
  virtual ~ClientSession() = default;

  // A new connection (after connect and any TLS handshake): forget everything of the previous one.
  // HTTP/2 queues its connection preface and SETTINGS as pending output here.
  virtual void reset() = 0;

  // How many more requests may be submitted now: pipeline depth (HTTP/1) or the smaller of
  // --streams and the server's SETTINGS_MAX_CONCURRENT_STREAMS (HTTP/2), minus those in flight;
  // 0 once the connection may carry no more (Connection: close seen, GOAWAY received).
  virtual uint32_t capacity() const = 0;
  virtual uint32_t in_flight() const = 0;
  // Can the connection carry requests at all yet? HTTP/2: not before the server's connection
  // preface (its first SETTINGS frame, RFC 9113 §3.4); the connection counts as still connecting
  // until then. HTTP/1: always.
  virtual bool ready() const { return true; }
  // HTTP/2, once ready(): the streams this connection may have in flight, min(--streams, the
  // server's SETTINGS_MAX_CONCURRENT_STREAMS as last received), for the report. 0 otherwise.
  virtual uint32_t stream_limit() const { return 0; }
  // Queues one request (capacity() > 0); its bytes become pending output. `request` must stay
  // valid until the request's outcome.
  virtual void submit(uint32_t slot, const RequestTemplate& request) = 0;

  // Gives up on one request in flight (its timeout expired) without closing the connection: HTTP/2
  // resets the stream. False when the protocol cannot (HTTP/1: the connection must close).
  virtual bool cancel(uint32_t /*slot*/) { return false; }

  // Bytes to write to the transport (empty: nothing to send), and how many were written.
  virtual std::string_view pending_output() = 0;
  virtual void consume_output(size_t bytes) = 0;

  // Received bytes. Events for complete responses are delivered to the listener before it returns.
  virtual SessionStatus feed(const char* data, size_t len, SessionListener& listener) = 0;
  // The peer closed. A response delimited by the close completes; requests still in flight then
  // fail with error() (kRead) — the connection reports them.
  virtual SessionStatus on_eof(SessionListener& listener) = 0;

  // After kError or on_eof: the class and reason for every request still in flight.
  virtual ErrorClass error() const = 0;
  virtual const char* error_reason() const = 0;

  // May the connection carry further requests once the current ones are done? False after
  // "Connection: close", an HTTP/1.0 response without keep-alive, a read-until-close body, or a
  // GOAWAY. The connection then reconnects once in_flight() is 0.
  virtual bool reusable() const = 0;

  // Keeps each response's header fields and body for on_response_captured (wrk scripts'
  // response()). Off by default, and then free: nothing is copied. Set it before submitting.
  virtual void set_capture(bool on) = 0;

  // Decoded body bytes of the response whose on_response_complete is being delivered (HTTP/1; 0
  // where a session does not count them).
  virtual uint64_t last_body_bytes() const { return 0; }

  // HTTP/1 fast path: body bytes of the current response whose content nobody needs, which the
  // connection may drop in the kernel (Transport::discard) and then report with skip_body().
  virtual size_t skippable_body_bytes() const { return 0; }
  virtual SessionStatus skip_body(size_t /*bytes*/, SessionListener& /*listener*/) {
    return SessionStatus::kOk;
  }

  // Sessions over a byte stream (HTTP/1, HTTP/2) leave the socket, its Transport and all timing to
  // their connection: owns_transport() is false and the two calls below are never made. A session
  // that carries its own transport and timers (QUIC for HTTP/3) returns true: the connection then
  // hands it socket readiness and the time, and arms one timer at next_deadline_ns().
  virtual bool owns_transport() const { return false; }
  virtual uint64_t next_deadline_ns() const { return UINT64_MAX; }
  virtual SessionStatus on_deadline(uint64_t /*now_ns*/, SessionListener& /*listener*/) {
    return SessionStatus::kOk;
  }
};

}  // namespace hail
