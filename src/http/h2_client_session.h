// H2ClientSession: HTTP/2 (RFC 9113) behind the ClientSession interface, on nghttp2's client
// session (Debian libnghttp2-dev) driven purely in memory: mem_recv for received bytes, mem_send
// into our own output buffer. Each request is a stream; response bodies are neither counted nor
// kept (the connection counts bytes on the wire), but consumed, so flow-control windows reopen;
// capture mode (set_capture) keeps each final response's fields and body per stream.
// Owned by one connection; that connection's thread only. Listener callbacks may submit() and
// cancel(), but not reset() or feed().
//
// Events are delivered from feed() and on_eof() only. feed() also produces the answers nghttp2
// owes (SETTINGS/PING acks, WINDOW_UPDATE, RST_STREAM) into the output buffer, so that streams
// closed by them are reported there. A request nghttp2 refuses while pending_output() runs (this
// happens only to one submitted past capacity()) is reported by the next feed() or on_eof().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/client_session.h"

namespace hail {

class BlockCache;

struct H2Settings {
  uint32_t max_streams = 1;  // --streams: concurrent streams we open per connection (h2load -m)
  // --window-bits: initial stream window 2^bits - 1 (SETTINGS_INITIAL_WINDOW_SIZE); the
  // connection window is raised to the same size. 16 is the protocol default (65535).
  uint32_t window_bits = 30;
};

class H2ClientSession final : public ClientSession {
 public:
  // blocks: where nghttp2's allocations come from and go back to, shared with the other sessions
  // of this thread; nullptr makes one for this session alone.
  explicit H2ClientSession(const H2Settings& settings,
                           std::shared_ptr<BlockCache> blocks = nullptr);
  ~H2ClientSession() override;
  H2ClientSession(const H2ClientSession&) = delete;
  H2ClientSession& operator=(const H2ClientSession&) = delete;

  // Queues the client connection preface and SETTINGS (ENABLE_PUSH 0, MAX_CONCURRENT_STREAMS,
  // INITIAL_WINDOW_SIZE) and a connection WINDOW_UPDATE when the window is raised.
  void reset() override;
  // min(max_streams, the server's SETTINGS_MAX_CONCURRENT_STREAMS) - in flight; 0 after GOAWAY,
  // a connection error, EOF or once stream IDs run out. 0 until the server's SETTINGS arrive
  // (about one round trip after reset()): its limit is unknown before, and streams sent past it
  // would come back refused, counted as errors. The connection fills once that feed() returns.
  uint32_t capacity() const override;
  // Submitted and not yet reported or cancelled. After kError (or on_eof's kError) it keeps
  // counting the requests the connection must fail, until reset().
  uint32_t in_flight() const override;
  // The server's SETTINGS (its connection preface) arrived.
  bool ready() const override;
  uint32_t stream_limit() const override;
  void submit(uint32_t slot, const RequestTemplate& request) override;
  // Resets the stream (RST_STREAM CANCEL); no event is reported for it afterwards.
  bool cancel(uint32_t slot) override;
  std::string_view pending_output() override;
  void consume_output(size_t bytes) override;
  // A response completes when its END_STREAM arrives (if our request body was still being sent,
  // the stream is then reset with CANCEL). RST_STREAM from the server: on_request_failed(kStream,
  // "stream reset: <error code name>"), but REFUSED_STREAM is on_request_refused (the server did
  // not process it, RFC 9113 §8.7); a malformed response on one stream (nghttp2 resets it):
  // "stream error: <code>". GOAWAY: streams above its last stream ID, and requests not sent yet,
  // are on_request_refused "refused by GOAWAY"; the others finish; reusable() turns false. A
  // connection error (bad frame, flow-control violation, HPACK error, PING/SETTINGS or
  // CONTINUATION flood, ...: nghttp2 answers with GOAWAY) returns kError, error() == kParse,
  // reason "connection error: <code>" (or nghttp2_strerror() when mem_recv itself fails). kError
  // is sticky until reset(); no event follows it.
  SessionStatus feed(const char* data, size_t len, SessionListener& listener) override;
  // HTTP/2 has no close-delimited response: with requests in flight, returns kError with error()
  // kRead and "connection closed" (the connection fails them; no event for them); with none, kOk.
  // reusable() is false either way.
  SessionStatus on_eof(SessionListener& listener) override;
  ErrorClass error() const override;
  const char* error_reason() const override;
  bool reusable() const override;
  // Fields of the final response's head (trailers not included) and DATA payload, up to
  // Http1ResponseParser::kDefaultMaxCaptureBodyBytes per stream.
  void set_capture(bool on) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hail
