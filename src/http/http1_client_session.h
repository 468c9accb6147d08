// Http1ClientSession: HTTP/1.x (and 0.9) behind the ClientSession interface, with pipelining: up
// to `depth` requests written ahead of their responses, answered in order (RFC 9112 §9.3.2).
// Wraps Http1ResponseParser; request bytes are the template's prebuilt buffers, written without a
// copy when one request is pending. A request that asks to close the connection
// (RequestTemplate::close_after) is the last one on it (RFC 9112 §9.6), whatever the response
// says. Owned by one connection; that connection's thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/client_session.h"
#include "http/response_parser.h"

namespace hail {

class Http1ClientSession final : public ClientSession {
 public:
  static constexpr uint32_t kMaxDepth = 1024;

  // depth: --pipeline (1 = no pipelining). http09: HTTP/0.9 — the response is every byte until
  // the server closes, with no head (counted as status 200), and the connection is never reused.
  explicit Http1ClientSession(uint32_t depth = 1, bool http09 = false);
  // Sets depth and mode again (before the first reset(); clears everything).
  void configure(uint32_t depth, bool http09);

  void reset() override;
  uint32_t capacity() const override;
  uint32_t in_flight() const override { return count_; }
  void submit(uint32_t slot, const RequestTemplate& request) override;
  std::string_view pending_output() override;
  void consume_output(size_t bytes) override;
  SessionStatus feed(const char* data, size_t len, SessionListener& listener) override;
  SessionStatus on_eof(SessionListener& listener) override;
  ErrorClass error() const override { return error_; }
  const char* error_reason() const override { return error_reason_; }
  bool reusable() const override { return reusable_; }
  // With capture on: 0 while the capture still wants body bytes (past its cap, the rest may go).
  uint64_t last_body_bytes() const override { return last_body_bytes_; }
  size_t skippable_body_bytes() const override;
  SessionStatus skip_body(size_t bytes, SessionListener& listener) override;
  // Parser capture (headers and decoded body up to kDefaultMaxCaptureBodyBytes); HTTP/0.9: the
  // bytes until the close, status 200, no headers.
  void set_capture(bool on) override;

  Http1ResponseParser& parser() { return parser_; }

 private:
  struct Pending {
    uint32_t slot;
    const RequestTemplate* request;
  };
  const Pending& front() const { return queue_[head_]; }
  void pop_front();
  // The front response is complete: report it and get the parser ready for the next one.
  void complete_front(SessionListener& listener);
  SessionStatus fail(ErrorClass error, const char* reason);
  // After a response completed: requests pipelined behind one answered early were never sent.
  SessionStatus check_unsent();

  // Grouped by size, not by topic: 10,000 connections hold 10,000 sessions.
  uint32_t depth_;
  bool http09_;
  bool unsent_ = false;  // a response completed before its request was fully written
  bool capture_ = false;
  bool first_byte_seen_ = false;
  Http1ResponseParser parser_;
  // Requests in flight, oldest first (a ring of depth_ entries).
  std::vector<Pending> queue_;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  // Requests (counted from the oldest in flight) whose bytes are fully written.
  uint32_t written_ = 0;
  uint32_t gathered_upto_ = 0;  // requests (from the oldest) whose bytes are in gather_
  size_t write_offset_ = 0;     // into the first request not fully written
  std::string gather_;          // several pending requests copied into one buffer for one write
  size_t gather_offset_ = 0;
  uint64_t last_body_bytes_ = 0;  // of the response being reported complete
  bool reusable_ = true;
  ErrorClass error_ = ErrorClass::kRead;
  const char* error_reason_ = "";
  // What only HTTP/0.9 needs, allocated by configure() for it alone: 10,000 HTTP/1.1 connections
  // do not carry it (a session lives as long as its connection, so this is no per-request cost).
  struct Http09State {
    uint64_t bytes = 0;  // of the response so far
    std::string body;    // capture of the response (no parser involved)
    // The first bytes of the response: a server that answers with an HTTP/1.x status line
    // ("HTTP/1.1 400 Bad Request") is counted with that status, not as a 200.
    uint8_t head_len = 0;
    char head[12] = {};
  };
  std::unique_ptr<Http09State> http09_state_;  // non-null exactly when http09_
};

}  // namespace hail
