// Request-target logic of `hail serve`: percent-decoding, path-safety checks, endpoint routing and
// the Content-Type table. Owner: server. Pure functions without I/O or state: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hail {

// Largest /bytes/N body and /delay/MS wait accepted; above them the target is a 400.
inline constexpr uint64_t kMaxBytesBody = uint64_t{1} << 40;
inline constexpr uint64_t kMaxDelayMs = 3'600'000;  // one hour

// Decodes %XX escapes of a URL path into `out` (replacing its contents). Returns false for a
// truncated or non-hex escape and for %00, which would silently cut the path short at the
// system-call boundary.
// '+' stays literal: it means a space only in query strings of HTML forms.
bool percent_decode_path(std::string_view in, std::string* out);

// True if any '/'-separated segment of a (decoded) path is exactly "..". "...", "..a" are file
// names.
bool has_dot_dot_segment(std::string_view path);

// Only what routing needs to know about the method.
enum class ServeMethod : uint8_t { kGet, kHead, kPost, kPut, kOther };

enum class Endpoint : uint8_t { kBytes, kDelay, kStatus, kEcho, kStats, kStatic, kError };

struct Route {
  Endpoint endpoint = Endpoint::kError;
  uint64_t number = 0;     // kBytes: body bytes; kDelay: milliseconds; kStatus: the status code
  int error_status = 0;    // kError: 400 (bad target) or 405 (method not allowed)
  std::string_view allow;  // kError 405: the value of the Allow header
};

// Routes an origin-form request target ("/path?query"). `decoded` receives the percent-decoded path
// (without the query); for kStatic it is the file to serve, relative to --root.
//
// Methods, kept simple on purpose: /echo takes any method; /stats takes GET and HEAD; every other
// path
// (/bytes, /delay, /status and static files) takes GET, HEAD, POST and PUT (a request body is read
// and discarded); anything else is 405 with an Allow header. Path checks come first, so a bad path
// is a 400 whatever the method. The prefixes /bytes/, /delay/, /status/ and the paths /echo, /stats
// shadow files of the same name under --root.
Route route_request(ServeMethod method, std::string_view target, std::string* decoded);

// "text/html", "image/png", ... from the extension of the path's last segment (case-insensitive);
// "application/octet-stream" when unknown.
std::string_view content_type_for_path(std::string_view path);

}  // namespace hail
