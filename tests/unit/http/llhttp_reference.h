// Test-only oracle: the client's HTTP/1 response parsing as it was when llhttp (8.1, loose build,
// lenient headers) read the head, kept to check the hand-written head parser against it
// (tests/fuzz/head_diff and the unit tests). Not for src/: nothing in the client may use it.
// Single-threaded, like the parser it mirrors.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "http/chunked_decoder.h"
#include "http/head_parser.h"
#include "http/response_parser.h"

namespace hail::test {

// One head read the old way: a single llhttp_execute over min(len, kMaxHeadBytes) bytes, paused at
// the end of the header section, plus the old wrapper's checks (bare CR, size limit, version
// 1.0/1.1 and status 100..999 once the head is complete).
struct RefHead {
  HeadParseStatus status = HeadParseStatus::kIncomplete;
  HeadError error = HeadError::kNone;
  size_t consumed = 0;  // kComplete: head length; kError: where llhttp stopped
  const char* reason = "";
  int http_major = 0;
  int http_minor = 0;
  int status_code = 0;
  uint16_t flags = 0;  // llhttp's F_* flags
  uint64_t content_length = 0;
  // Capture only: the fields as the old parser kept them.
  std::vector<std::pair<std::string, std::string>> fields;
};

RefHead ref_parse_head(const char* buf, size_t len, bool capture);

// The old Http1ResponseParser, unchanged but for its name: same API, so the stream driver in
// response_trace.h runs either.
class LlhttpResponseParser {
 public:
  // Limits: all bytes of one response head (status line + fields + empty line); interim responses
  // of one request.
  static constexpr size_t kMaxHeadBytes = 64 * 1024;
  static constexpr uint32_t kMaxInterimResponses = 32;
  static constexpr size_t kDefaultMaxCaptureBodyBytes = 16 * 1024 * 1024;

  LlhttpResponseParser();
  // Movable (the llhttp back pointer is refreshed on every call), not copyable.
  LlhttpResponseParser(LlhttpResponseParser&& other) noexcept = default;
  LlhttpResponseParser& operator=(LlhttpResponseParser&& other) noexcept = default;
  LlhttpResponseParser(const LlhttpResponseParser&) = delete;
  LlhttpResponseParser& operator=(const LlhttpResponseParser&) = delete;

  // Resets for the next response. head_request: the request was HEAD, so no body follows.
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
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  const std::string& body() const { return body_; }
  bool body_truncated() const { return body_truncated_; }

 private:
  enum class State : uint8_t {
    kHead,
    kBodyLength,
    kBodyChunked,
    kBodyUntilClose,
    kComplete,
    kError
  };

  void init_llhttp();
  ParseResult feed_head(const char* data, size_t len);
  // Called with the head complete; decides framing. False on error.
  bool on_head_complete();
  bool bare_cr_in(const char* data, size_t len);
  ParseResult fail(ParseErrorKind kind, const char* reason, size_t consumed);
  bool capturing_body() const { return capture_active_ && body_.size() < max_capture_body_bytes_; }
  void capture_body(const char* data, size_t len);

  static int on_headers_complete(llhttp_t* p);
  static int on_header_field(llhttp_t* p, const char* at, size_t len);
  static int on_header_value(llhttp_t* p, const char* at, size_t len);
  static int on_header_value_complete(llhttp_t* p);
  static void on_chunk_data(void* ctx, const char* data, size_t len);

  llhttp_t llhttp_;
  State state_ = State::kHead;
  bool head_request_ = false;
  bool upgrade_requested_ = false;
  bool started_ = false;
  bool keep_alive_ = false;
  bool pending_cr_ = false;  // the last header byte fed was a CR
  // hail reads HTTP/1.x with x > 1 as HTTP/1.1 (RFC 9110 §2.5), llhttp 8.1 refuses it: the minor
  // digit is rewritten to 1 before llhttp sees it. Bytes of the status line seen so far (-1 while
  // empty lines come first), its first seven bytes, and the rewritten chunk.
  int status_line_pos_ = -1;
  char version_prefix_[7] = {};
  std::string rewritten_;
  ParseErrorKind error_kind_ = ParseErrorKind::kNone;
  int status_ = 0;
  int http_major_ = 0;
  int http_minor_ = 0;
  uint32_t interim_responses_ = 0;
  size_t head_bytes_ = 0;   // of the current head
  uint64_t remaining_ = 0;  // Content-Length body left
  uint64_t body_bytes_ = 0;
  const char* error_reason_ = nullptr;
  ChunkedDecoder chunked_;

  bool capture_ = false;         // requested
  bool capture_active_ = false;  // in effect for the current response
  bool field_done_ = true;       // the next on_header_field starts a new field
  bool body_truncated_ = false;
  size_t max_capture_body_bytes_ = kDefaultMaxCaptureBodyBytes;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::string body_;
};

}  // namespace hail::test
