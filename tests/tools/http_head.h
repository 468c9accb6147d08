// Just enough HTTP/1.x request parsing for the test-only queueing server (queue_server.cc): the
// request line, Content-Length (the body is skipped), Connection, and a refusal of chunked
// bodies. Pure: bytes in, a description out. Owner: tests. Single-threaded.
#pragma once

#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace queue_server {

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr uint64_t kMaxBodyBytes = 64ULL << 20;

struct RequestHead {
  enum class Status { kIncomplete, kRequest, kError };
  Status status = Status::kIncomplete;
  int error_code = 0;            // kError: 400, 431 or 501, answered before closing
  size_t total_bytes = 0;        // kRequest: stray CRLFs + head + body, to take off the input
  std::string_view method;       // views into the input
  std::string_view target;
  bool keep_alive = true;        // HTTP/1.1 unless "Connection: close"; 1.0 only if keep-alive
};

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

inline std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// True when the comma-separated header value lists `token` (Connection: keep-alive, close).
inline bool has_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (iequals(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

// The first request in `in`: incomplete until its head and its Content-Length body are all
// there (a request arrives when a server could start on it).
inline RequestHead parse_head(std::string_view in) {
  RequestHead r;
  size_t pos = 0;
  while (in.substr(pos, 2) == "\r\n") pos += 2;  // stray CRLFs between requests (RFC 9112 2.2)
  auto error = [&r](int code) {
    r.status = RequestHead::Status::kError;
    r.error_code = code;
    return r;
  };
  const size_t end = in.find("\r\n\r\n", pos);
  if ((end == std::string_view::npos ? in.size() : end) - pos > kMaxHeadBytes) return error(431);
  if (end == std::string_view::npos) return r;
  const std::string_view head = in.substr(pos, end - pos);
  const size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || sp2 == sp1 + 1 ||
      line.substr(sp2 + 1, 7) != "HTTP/1." || line.size() != sp2 + 9) {
    return error(400);
  }
  r.method = line.substr(0, sp1);
  r.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  r.keep_alive = line.substr(sp2 + 1) != "HTTP/1.0";
  uint64_t content_length = 0;
  std::string_view rest = line_end == std::string_view::npos ? "" : head.substr(line_end + 2);
  while (!rest.empty()) {
    const size_t eol = rest.find("\r\n");
    const std::string_view field = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? "" : rest.substr(eol + 2);
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0) return error(400);
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = trim(field.substr(colon + 1));
    if (iequals(name, "content-length")) {
      const std::string digits(value);
      char* stop = nullptr;
      content_length = std::strtoull(digits.c_str(), &stop, 10);
      if (digits.empty() || digits[0] == '-' || *stop != '\0' || content_length > kMaxBodyBytes) {
        return error(400);
      }
    } else if (iequals(name, "transfer-encoding")) {
      return error(501);  // chunked bodies: not needed by the tests, refused rather than guessed
    } else if (iequals(name, "connection")) {
      if (has_token(value, "close")) r.keep_alive = false;
      if (has_token(value, "keep-alive")) r.keep_alive = true;
    }
  }
  r.total_bytes = end + 4 + static_cast<size_t>(content_length);
  if (in.size() < r.total_bytes) return r;  // the body is still on its way
  r.status = RequestHead::Status::kRequest;
  return r;
}

}  // namespace queue_server
