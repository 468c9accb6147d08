// Response heads of `hail serve`: status line and headers rendered into a caller's buffer, reason
// phrases, and the per-second Date line cache. Owner: server. Rendering is pure (any thread);
// an HttpDateCache belongs to one reactor thread.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

namespace hail {

// "OK", "Not Found", ...; "Unknown" for codes without a registered phrase (the phrase is
// informative only, clients must not depend on it).
std::string_view reason_phrase(int status);

// True for statuses whose responses never have a body (and so get no Content-Length here).
inline bool status_has_no_body(int status) {
  return status == 204 || status == 304;
}

struct HeadFields {
  int status = 200;
  std::string_view content_type;  // empty: no Content-Type header
  uint64_t content_length = 0;    // sent unless status_has_no_body(status)
  bool keep_alive = true;
  bool http10 = false;           // HTTP/1.0 request: keep-alive must be announced to be kept
  std::string_view date_line;    // "Date: ...\r\n" or empty
  std::string_view extra_lines;  // further complete header lines ("Allow: GET\r\n"), or empty
};

// Appends "HTTP/1.1 <status> <reason>\r\n" and the headers, ending with the blank line. The status
// line says HTTP/1.1 to 1.0 clients too (RFC 9110 section 6.2: a server sends its own version);
// "Connection: keep-alive" is what keeps their connection open.
void append_head(std::string* out, const HeadFields& fields);

// The body of status and error responses: "404 Not Found\n".
std::string status_body(int status);

// "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110 IMF-fixdate) for a UTC Unix time.
std::string format_http_date(time_t unix_seconds);

// The "Date: ...\r\n" line, re-rendered at most once per wall-clock second: one comparison per use.
class HttpDateCache {
 public:
  // `mono_now_ns` is the caller's monotonic reading; the wall clock is read only when it passes the
  // next second boundary (mapped to monotonic time at the previous refresh).
  const std::string& line(uint64_t mono_now_ns);

 private:
  std::string line_;
  uint64_t refresh_at_ns_ = 0;
};

}  // namespace hail
