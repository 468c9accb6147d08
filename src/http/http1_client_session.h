// Http1ClientSession: HTTP/1.x (and 0.9) behind the ClientSession interface, with pipelining: up
// to `depth` requests written ahead of their responses, answered in order (RFC 9112 §9.3.2).
// Wraps Http1ResponseParser; request bytes are the template's prebuilt buffers, written without a
// copy when one request is pending. A request that asks to close the connection
// (RequestTemplate::close_after) is the last one on it (RFC 9112 §9.6), whatever the response
// says. Owned by one connection; that connection's thread only.
#pragma once

#include <cstddef>
#include <cstdint>
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

  uint32_t depth_;
  bool http09_;
  Http1ResponseParser parser_;
  // Requests in flight, oldest first (a ring of depth_ entries).
  std::vector<Pending> queue_;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  // Requests (counted from the oldest in flight) whose bytes are fully written.
  uint32_t written_ = 0;
  size_t write_offset_ = 0;  // into the first request not fully written
  std::string gather_;       // several pending requests copied into one buffer for one write
  size_t gather_offset_ = 0;
  uint32_t gathered_upto_ = 0;  // requests (from the oldest) whose bytes are in gather_
  bool unsent_ = false;         // a response completed before its request was fully written
  bool capture_ = false;
  std::string http09_body_;       // capture of an HTTP/0.9 response (no parser involved)
  uint64_t http09_bytes_ = 0;     // bytes of the HTTP/0.9 response so far
  uint64_t last_body_bytes_ = 0;  // of the response being reported complete
  bool first_byte_seen_ = false;
  bool reusable_ = true;
  // The first bytes of an HTTP/0.9 response: a server that answers with an HTTP/1.x status line
  // ("HTTP/1.1 400 Bad Request") is counted with that status, not as a 200.
  uint8_t http09_head_len_ = 0;
  char http09_head_[12] = {};
  ErrorClass error_ = ErrorClass::kRead;
  const char* error_reason_ = "";
};

}  // namespace hail
