// Request rendering: turns the user's request description into the exact HTTP/1.x bytes, once per
// run (wrk's habit: the hot path only ever writes a prebuilt buffer). Owned by the http layer.
// Pure functions on plain values: any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace hail {

struct RequestSpec {
  std::string method = "GET";
  std::string path = "/";                                    // request-target, sent verbatim
  std::string authority;                                     // Host header value
  std::vector<std::pair<std::string, std::string>> headers;  // user -H, in order, case kept
  std::string body;
  int http_minor = 1;  // 0 or 1
  bool keep_alive = true;
};

// Renders the request head and body. Default fields, in this order: Host, User-Agent
// ("hail/<version>"), Accept ("*/*"). A user field with the same name (case-insensitive) takes the
// default's place, so -H "Host: x" overrides Host; other user fields follow in their order.
// Then Content-Length when there is a body, or the method is POST, PUT or PATCH (RFC 9110 §8.6: a
// user agent should send it when the method gives content a meaning), unless the user gave
// Content-Length or Transfer-Encoding. Then the connection field unless the user gave one:
// HTTP/1.1 without keep-alive sends "Connection: close"; HTTP/1.0 with keep-alive sends
// "Connection: keep-alive" (ab-compat: what ab -k sends). Expects a spec validate_request accepted.
std::string render_request(const RequestSpec& spec);

// One request as every protocol session needs it, built once per run (per URL) and read-only after:
// the rendered HTTP/1.x bytes, and the HTTP/2 view of the same request (RFC 9113 §8.3:
// pseudo-header fields, lower-case field names, no connection-specific fields).
struct RequestTemplate {
  std::string http1;  // render_request(spec), or "GET /path\r\n" for HTTP/0.9
  std::string method;
  std::string scheme;     // "http" or "https"
  std::string authority;  // the Host value (a user -H "Host: x" wins)
  std::string path;
  // Fields other than Host, lower-case names; Connection, Keep-Alive, Proxy-Connection,
  // Transfer-Encoding and Upgrade are left out (RFC 9113 §8.2.2), TE only as "trailers".
  std::vector<std::pair<std::string, std::string>> h2_fields;
  std::string body;
  bool head = false;  // a HEAD request: no response body follows
  // request_asks_to_close(http1), decided when the template is built: templates may be built per
  // request (scripts), and a session must not rescan the head for every request it sends.
  bool close_after = false;
  // request_asks_to_upgrade(http1): a 101 answer is only a switch of protocols the request asked
  // for; to any other request it is a protocol error.
  bool asks_upgrade = false;
  // is_idempotent_method(method): a request the server never saw may be sent again (RFC 9112
  // §9.3.1).
  bool idempotent = true;
};

// The template of `spec` for a URL with this scheme. http09: the HTTP/0.9 form (GET only).
// h2_fields follow the fields of the rendered request, in its order (defaults included).
RequestTemplate make_request_template(const RequestSpec& spec, std::string_view scheme,
                                      bool http09 = false);

// Does this HTTP/1.x request (head and body, as sent) ask the server to close the connection after
// its response? A "close" token in a Connection (or Proxy-Connection) field, or an HTTP/1.0
// request line without a "keep-alive" token (RFC 9112 §9.3). Empty lines before the request line
// are skipped and lines may end in a bare LF, as parse_raw_requests accepts them.
bool request_asks_to_close(std::string_view http1);

// Does this HTTP/1.x request carry an Upgrade field (RFC 9110 §7.8)? Same line rules as above.
bool request_asks_to_upgrade(std::string_view http1);

// GET, HEAD, OPTIONS, TRACE, PUT and DELETE (RFC 9110 §9.2.2): methods a client may repeat.
bool is_idempotent_method(std::string_view method);

// The HTTP/2 view of a request, built from its HTTP/1 header fields in order; shared by
// make_request_template and parse_raw_requests so that both views follow the same rules
// (RFC 9113 §8.2.2 and §8.3.1): Host becomes the authority (the last one wins); Connection,
// Keep-Alive, Proxy-Connection, Transfer-Encoding and Upgrade are dropped, TE unless "trailers";
// names are lower-cased, values trimmed of SP/HTAB. Reuses the strings already in t->h2_fields.
class H2FieldsBuilder {
 public:
  // Starts over: t->authority is cleared and t->h2_fields is refilled from the start.
  explicit H2FieldsBuilder(RequestTemplate* t);
  void add(std::string_view name, std::string_view value);
  // After the last field: adds content-length (t->body's size) when the request has content (a
  // body, or the method is POST, PUT or PATCH) and no field gave it, then trims h2_fields.
  void finish();

 private:
  void push(std::string_view name, std::string_view value);  // lower-cases the name

  RequestTemplate* t_;
  size_t count_ = 0;
  bool content_length_ = false;
};

// "Name: value" from -H. The name must be a non-empty token (RFC 9110 §5.1) directly followed by
// the colon; whitespace around the value is dropped; control characters other than HTAB (CR and LF
// above all: they would let a header smuggle another) are rejected.
Result<std::pair<std::string, std::string>> parse_header_arg(std::string_view arg);

// The method must be a token (RFC 9110 §9.1); it is sent verbatim, case included.
Status validate_method(std::string_view method);

// Everything render_request relies on: a valid method, a request-target without whitespace or
// control characters, valid header names and values, http_minor 0 or 1.
Status validate_request(const RequestSpec& spec);

}  // namespace hail
