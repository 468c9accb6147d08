// parse_response_head: validating parser of one HTTP/1.x response head (status line + header
// section, RFC 9112 §2-5) over a contiguous buffer; extracts only what framing needs.
// Owned by the http layer (Http1ResponseParser is its user on the hot path). Pure function, no
// allocation, no state between calls: safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hail {

// A head is at most this many bytes, empty lines before the status line and the final empty line
// included; parse_response_head looks at no more and reports kTooLarge if that is not enough.
inline constexpr size_t kMaxResponseHeadBytes = 64 * 1024;

enum class HeadParseStatus : uint8_t { kComplete, kIncomplete, kError };
enum class HeadError : uint8_t {
  kNone,
  kSyntax,   // malformed status line or field line, unsupported version or status code, bare CR
  kFraming,  // invalid, duplicate or empty Content-Length, or Content-Length with Transfer-Encoding
  kTooLarge,  // no complete head within kMaxResponseHeadBytes
};

struct HeadParseResult {
  HeadParseStatus status;
  HeadError error;
  // kComplete: length of the head (up to and including the LF of the empty line). kError: offset of
  // the byte that showed the error. kIncomplete: the length given (all of it is head so far).
  size_t consumed;
  const char* reason;  // static string; "" unless kError
  // kIncomplete only: the parse stopped looking for the end of a reason phrase or field value, so
  // appending bytes that hold neither CR nor LF cannot change the result (the size cap aside). Lets
  // a caller that accumulates a split head skip pointless re-parses.
  bool waiting_for_line_end;
};

// Framing facts of a complete head (only meaningful on kComplete).
struct ResponseHead {
  uint8_t http_major = 0;
  uint8_t http_minor = 0;  // 0 or 1
  uint16_t status = 0;     // 100..599
  bool has_content_length = false;
  uint64_t content_length = 0;
  bool transfer_encoding = false;  // a Transfer-Encoding field with a non-empty value was seen
  bool chunked = false;            // ... and the last coding of the last such field is "chunked"
  bool connection_close = false;   // a Connection (or Proxy-Connection) token "close"
  bool connection_keep_alive = false;  // ... or "keep-alive"
};

// Receives every field of the head in order, on kComplete only. Spans point into the parsed buffer.
// The value has no leading or trailing SP/HTAB; if obs-fold continued it, it still holds those line
// breaks (CRLF or LF, each followed by SP/HTAB): dropping every CR and LF byte gives the joined
// value (RFC 9112 §5.2 lets the whitespace stand in for the fold).
struct HeadFieldSink {
  void (*on_field)(void* ctx, std::string_view name, std::string_view value);
  void* ctx;
};

// Parses buf[0, len) as a response head; bytes past the head are not looked at. `fields` (optional)
// asks for the field list. What is accepted is, with the exceptions D1-D6 below, what llhttp 8.1
// (loose build, lenient headers) accepted when it was the client's head parser, and every accepted
// head frames as it did then:
// - Empty lines (CRLF or LF) before the status line are skipped: a stray CRLF after a body.
// - Status line: "HTTP/1.x" (x a digit: above 1 it reads as HTTP/1.1, RFC 9110 §2.5), one SP,
//   exactly 3 digits 100..599 (RFC 9110 §15: other numbers are no status), then SP and any reason
//   phrase (any bytes but CR and LF), or the line end.
// - Line ends: CRLF or a bare LF (curl and wrk accept a bare LF). A CR not followed by LF anywhere
//   in the head is an error (RFC 9112 §2.2): llhttp's loose mode read "\rX" as a line end.
// - Field names: 1+ tchar (RFC 9110 §5.6.2), directly followed by ':'. Values: any byte but CR and
//   LF (control bytes, NUL included, and obs-text are accepted: they cannot move a frame boundary,
//   and llhttp's lenient mode took them). obs-fold (a line starting with SP/HTAB) continues the
//   previous field's value.
// - Content-Length: 1+ digits, then only SP; 64-bit overflow, an empty value and a second
//   Content-Length field (even an equal one) are errors. Transfer-Encoding: a comma-separated
//   list, chunked when its last element is "chunked" (case-insensitive); with Content-Length it is
//   an error (even for HEAD, 1xx, 204, 304). Connection and Proxy-Connection (llhttp read both):
//   comma-separated tokens; "close" and "keep-alive" (case-insensitive) are reported. An empty
//   Transfer-Encoding, Connection or Proxy-Connection value is ignored.
// - llhttp's list quirks are kept where they decide framing or keep-alive: an element of a
//   Transfer-Encoding or Connection list is trimmed of SP/HTAB before it but only of SP after it
//   ("chunked\t" is not chunked, "close\t" does not close); a control byte other than HTAB ends
//   the value's interpretation (the element holding it and the rest are ignored).
// - Errors are reported at the byte that shows them, except that a field line is judged as a whole
//   once its line end has arrived (llhttp: at the bad byte). Until then the head is incomplete.
// Deliberate differences from llhttp as configured before; each rejects what llhttp accepted, none
// accepts what llhttp rejected (tests/fuzz/head_diff checks this against llhttp itself):
//   D1 A status code of other than 3 digits ("HTTP/1.1 0200" was 200).
//   D2 Whitespace inside a field name or before its colon ("Content-Length : 5" was a
//      Content-Length, "X Y: z" a field named "X Y"), as RFC 9112 §5.1 asks of servers.
//   D3 An empty field name (": x").
//   D4 Whitespace at the start of the first field line (llhttp dropped one SP and read the rest as
//      a field; RFC 9112 §2.2 allows rejecting it).
//   D5 obs-fold continuing Content-Length, Transfer-Encoding, Connection or Proxy-Connection, even
//      after an empty value (llhttp then took the next line as the value). For Content-Length
//      llhttp rejected it too ("Duplicate"); for the others its result hung on parser details
//      ("gzip\r\n chunked" was not chunked). An empty Content-Length is an error at once; llhttp
//      waited for the next line to see whether a fold gave it a value.
//   D6 Versions other than 1.x and status codes outside 100..599 are rejected as soon as the
//      status line shows them; our wrapper of llhttp rejected them once the head was complete.
// (The version and status policy is hail's own, applied over llhttp in the reference as well.)
HeadParseResult parse_response_head(const char* buf, size_t len, ResponseHead* out,
                                    const HeadFieldSink* fields = nullptr);

}  // namespace hail
