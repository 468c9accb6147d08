#include "server/response_head.h"

#include <charconv>

#include "core/clock.h"

namespace hail {

namespace {

void append_number(std::string* out, uint64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  out->append(digits, static_cast<size_t>(result.ptr - digits));
}

}  // namespace

std::string_view reason_phrase(int status) {
  // One code per line reads as the table it is.
  // clang-format off
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 418: return "I'm a teapot";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    case 511: return "Network Authentication Required";
    default: return "Unknown";
  }
  // clang-format on
}

void append_head(std::string* out, const HeadFields& fields) {
  out->append("HTTP/1.1 ");
  append_number(out, static_cast<uint64_t>(fields.status));
  out->push_back(' ');
  out->append(reason_phrase(fields.status));
  out->append("\r\nServer: hail\r\n");
  out->append(fields.date_line);
  if (!fields.content_type.empty()) {
    out->append("Content-Type: ");
    out->append(fields.content_type);
    out->append("\r\n");
  }
  if (!status_has_no_body(fields.status)) {
    out->append("Content-Length: ");
    append_number(out, fields.content_length);
    out->append("\r\n");
  }
  if (!fields.keep_alive) {
    out->append("Connection: close\r\n");
  } else if (fields.http10) {
    out->append("Connection: keep-alive\r\n");
  }
  out->append(fields.extra_lines);
  out->append("\r\n");
}

std::string status_body(int status) {
  std::string body = std::to_string(status);
  body.push_back(' ');
  body.append(reason_phrase(status));
  body.push_back('\n');
  return body;
}

std::string format_http_date(time_t unix_seconds) {
  tm parts{};
  gmtime_r(&unix_seconds, &parts);
  char text[64];
  // strftime's %a/%b follow the C locale here: reactors never call setlocale, and the CLI must not
  // either, since HTTP dates are English by definition.
  const size_t n = strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return std::string(text, n);
}

const std::string& HttpDateCache::line(uint64_t mono_now_ns) {
  if (mono_now_ns >= refresh_at_ns_ || line_.empty()) {
    timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    line_ = "Date: " + format_http_date(wall.tv_sec) + "\r\n";
    // Next refresh when the wall clock reaches its next whole second.
    refresh_at_ns_ = mono_now_ns + (kNsPerSec - static_cast<uint64_t>(wall.tv_nsec));
  }
  return line_;
}

}  // namespace hail
