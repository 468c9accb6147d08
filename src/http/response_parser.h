// Http1ResponseParser: streaming parser of HTTP/1.x responses (RFC 9112) on the client's hot path.
// parse_response_head (head_parser.h) reads the status line and header section, in place when a
// head arrives in one piece; body framing is ours too, so that body bytes of a known length can be
// discarded in the kernel (recv with MSG_TRUNC) without ever being copied.
// Owned by one Connection; used only by that connection's worker thread. No I/O, no clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/chunked_decoder.h"
#include "http/head_parser.h"

namespace hail {

enum class ParseStatus : uint8_t { kNeedMore, kComplete, kError };

struct ParseResult {
  ParseStatus status;
  // Bytes of the input that belong to this response. kNeedMore: always == len. kComplete: bytes
  // after `consumed` belong to the next response (or, after a 101, to the new protocol).
  // kError: where parsing stopped; the caller closes the connection.
  size_t consumed;
};

enum class ParseErrorKind : uint8_t {
  kNone,
  kClosedBeforeResponse,  // peer closed before any byte of this response: typically a keep-alive
                          // connection the server timed out just as we reused it
  kTruncated,             // peer closed in the middle of a response
  kBadHead,               // malformed status line or header section, bad status code or version
  kHeadTooLarge,          // header section over kMaxHeadBytes, or too many interim responses
  kBadFraming,            // invalid or conflicting Content-Length, Content-Length with T-E
  kBadChunk,              // malformed chunked body
};

const char* parse_error_kind_name(ParseErrorKind kind);

// Decisions worth knowing before reading the code:
// - What a head may look like is parse_response_head's business (head_parser.h lists it, and where
//   it is stricter than llhttp, which parsed heads here before): header lines ending in a bare LF
//   and control bytes (NUL included) in field values are accepted; a CR not followed by LF, a
//   Content-Length together with Transfer-Encoding and duplicate Content-Length fields (even equal
//   ones) are errors. HTTP/1.x (a minor version above 1 reads as 1.1, RFC 9110 §2.5), status
//   codes 100..599 (RFC 9110 §15).
// - A head that arrives in one feed() is parsed in place; one split across feeds is gathered in
//   pending_head_ (its capacity is kept, so steady state does not allocate) and parsed from there.
// - Body framing (RFC 9112 §6.3): HEAD request, 1xx, 204 and 304 have no body; 1xx other than 101
//   are interim and skipped (counted); 101 completes without body and the connection must close
//   when the request asked to upgrade, and is a protocol error (kBadHead) when it did not;
//   Transfer-Encoding with chunked last is chunked; other Transfer-Encoding reads until close;
//   Content-Length gives the length; otherwise until close.
// - Keep-alive: "Connection: close" always closes; HTTP/1.0 needs "Connection: keep-alive";
//   read-until-close bodies, 101 and HTTP/1.0 with Transfer-Encoding (RFC 9112 §6.1) never keep
//   alive.
// - Empty lines before a status line are skipped, so a stray CRLF that a server sends after a body
//   does not break the next response on a keep-alive connection.
// - Pointers passed to feed() are not retained after it returns.
class Http1ResponseParser {
 public:
  // Limits: all bytes of one response head (status line + fields + empty line); interim responses
  // of one request.
  static constexpr size_t kMaxHeadBytes = kMaxResponseHeadBytes;
  static constexpr uint32_t kMaxInterimResponses = 32;
  static constexpr size_t kDefaultMaxCaptureBodyBytes = 16 * 1024 * 1024;

  Http1ResponseParser();
  // Movable, not copyable.
  Http1ResponseParser(Http1ResponseParser&& other) noexcept = default;
  Http1ResponseParser& operator=(Http1ResponseParser&& other) noexcept = default;
  Http1ResponseParser(const Http1ResponseParser&) = delete;
  Http1ResponseParser& operator=(const Http1ResponseParser&) = delete;

  // Resets for the next response. head_request: the request was HEAD, so no body follows.
  // upgrade_requested: the request carried an Upgrade field, so a 101 answer is a switch of
  // protocols (the connection then ends); to any other request a 101 is a protocol error.
  // The constructor leaves the parser as if begin_response(false) had been called.
  void begin_response(bool head_request, bool upgrade_requested = false);

  // Feeds received bytes; any split is fine, down to one byte per call.
  ParseResult feed(const char* data, size_t len);

  // The peer closed the connection. kComplete when the body is delimited by the close (or the
  // response was already complete); otherwise kError with kClosedBeforeResponse (no byte of this
  // response was seen) or kTruncated.
  ParseResult on_eof();

  // Body bytes the caller may discard (e.g. recv with MSG_TRUNC) instead of feeding: the
  // Content-Length remainder, the rest of the current chunk's data, or SIZE_MAX while reading until
  // close (everything up to the close is body). 0 elsewhere, and while capture still wants bytes.
  size_t skippable_body_bytes() const;
  // The caller discarded n <= skippable_body_bytes() bytes. Returns kComplete when that ended a
  // Content-Length body, otherwise kNeedMore (chunk data still needs its CRLF fed); consumed is
  // the bytes accounted for (n, clipped to what was skippable).
  ParseResult skip_body(size_t n);
  bool in_body_until_close() const { return state_ == State::kBodyUntilClose; }

  // Final response (valid once its header section is parsed; 0 before).
  int status() const { return status_; }
  int http_major() const { return http_major_; }
  int http_minor() const { return http_minor_; }
  // Valid on kComplete: may the connection carry another request?
  bool keep_alive() const { return keep_alive_; }
  uint64_t body_bytes() const { return body_bytes_; }  // decoded payload bytes (fed or skipped)
  uint32_t interim_responses() const { return interim_responses_; }
  bool started() const { return started_; }  // any byte of the current response seen
  bool complete() const { return state_ == State::kComplete; }
  ParseErrorKind error_kind() const { return error_kind_; }
  const char* error_reason() const { return error_reason_ != nullptr ? error_reason_ : ""; }

  // Capture mode: off by default and then free. When on (takes effect at the next begin_response,
  // or at once if no byte of the current response was fed), the final response's header fields (in
  // order, names as sent, values without surrounding whitespace, obs-fold joined) and body
  // (decoded, up to max_body_bytes; the rest is counted but dropped and body_truncated() set) are
  // kept until the next begin_response.
  void set_capture(bool on, size_t max_body_bytes = kDefaultMaxCaptureBodyBytes);
  bool capture() const { return capture_; }
  const std::vector<std::pair<std::string, std::string>>& headers() const;
  const std::string& body() const;
  bool body_truncated() const { return captured_ != nullptr && captured_->truncated; }

 private:
  enum class State : uint8_t {
    kHead,
    kBodyLength,
    kBodyChunked,
    kBodyUntilClose,
    kComplete,
    kError
  };

  void start_head();
  ParseResult feed_head(const char* data, size_t len);
  // Parses buf[0, len) (the head so far); on kComplete, decides framing.
  HeadParseResult parse_head(const char* buf, size_t len);
  // Called with the head complete; decides framing. False on error.
  bool on_head_complete(const ResponseHead& head);
  ParseResult fail(ParseErrorKind kind, const char* reason, size_t consumed);
  bool capturing_body() const {
    return capture_active_ && captured_->body.size() < captured_->max_body_bytes;
  }
  void capture_body(const char* data, size_t len);

  static void on_field(void* ctx, std::string_view name, std::string_view value);
  static void on_chunk_data(void* ctx, const char* data, size_t len);

  State state_ = State::kHead;
  bool head_request_ = false;
  bool upgrade_requested_ = false;
  bool started_ = false;
  bool keep_alive_ = false;
  // The head so far parsed as incomplete, waiting only for a CR or LF (head_parser.h).
  bool head_waits_for_line_end_ = false;
  ParseErrorKind error_kind_ = ParseErrorKind::kNone;
  int status_ = 0;
  int http_major_ = 0;
  int http_minor_ = 0;
  uint32_t interim_responses_ = 0;
  uint64_t remaining_ = 0;  // Content-Length body left
  uint64_t body_bytes_ = 0;
  const char* error_reason_ = nullptr;
  ChunkedDecoder chunked_;

  bool capture_ = false;         // requested
  bool capture_active_ = false;  // in effect for the current response
  // What capture keeps: allocated when capture is first asked for, so that a parser that never
  // captures (most of 10,000 connections) stays small.
  struct Captured {
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool truncated = false;
    size_t max_body_bytes = kDefaultMaxCaptureBodyBytes;
  };
  std::unique_ptr<Captured> captured_;
  // Bytes of a head split across feeds (empty when the head is parsed in place).
  std::string pending_head_;
};

}  // namespace hail
