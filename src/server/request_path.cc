#include "server/request_path.h"

#include <array>
#include <utility>

#include "core/ascii.h"

namespace hail {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decimal digits only (no sign, no spaces), at most `max`; false for anything else or overflow.
bool parse_decimal(std::string_view text, uint64_t max, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
    // Checked every digit, so `value` never gets near overflow (max is far below 2^64 / 10).
    if (value > max) return false;
  }
  *out = value;
  return true;
}

constexpr std::string_view kAllowDefault = "GET, HEAD, POST, PUT";
constexpr std::string_view kAllowStats = "GET, HEAD";

Route error_route(int status, std::string_view allow = {}) {
  Route route;
  route.endpoint = Endpoint::kError;
  route.error_status = status;
  route.allow = allow;
  return route;
}

Route number_route(Endpoint endpoint, std::string_view digits, uint64_t max) {
  Route route;
  if (!parse_decimal(digits, max, &route.number)) return error_route(400);
  route.endpoint = endpoint;
  return route;
}

}  // namespace

bool percent_decode_path(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c != '%') {
      out->push_back(c);
      continue;
    }
    if (i + 2 >= in.size()) return false;  // truncated escape
    const int hi = hex_value(in[i + 1]);
    const int lo = hex_value(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    const int byte = hi * 16 + lo;
    if (byte == 0) return false;
    out->push_back(static_cast<char>(byte));
    i += 2;
  }
  return true;
}

bool has_dot_dot_segment(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

Route route_request(ServeMethod method, std::string_view target, std::string* decoded) {
  decoded->clear();
  // Absolute-form ("http://h/p") is for proxies and "*" only for OPTIONS: neither names a resource
  // here.
  if (target.empty() || target[0] != '/') return error_route(400);
  const size_t query = target.find_first_of("?#");
  if (query != std::string_view::npos) target = target.substr(0, query);
  if (!percent_decode_path(target, decoded)) return error_route(400);
  if (has_dot_dot_segment(*decoded)) return error_route(400);

  const std::string_view path = *decoded;
  const bool get_or_head = method == ServeMethod::kGet || method == ServeMethod::kHead;
  const bool default_allowed =
      get_or_head || method == ServeMethod::kPost || method == ServeMethod::kPut;

  if (path == "/echo") {
    Route route;
    route.endpoint = Endpoint::kEcho;
    return route;
  }
  if (path == "/stats") {
    if (!get_or_head) return error_route(405, kAllowStats);
    Route route;
    route.endpoint = Endpoint::kStats;
    return route;
  }

  Route route;
  if (path.starts_with("/bytes/")) {
    route = number_route(Endpoint::kBytes, path.substr(7), kMaxBytesBody);
  } else if (path.starts_with("/delay/")) {
    route = number_route(Endpoint::kDelay, path.substr(7), kMaxDelayMs);
  } else if (path.starts_with("/status/")) {
    route = number_route(Endpoint::kStatus, path.substr(8), 599);
    // 1xx would be interim responses, which need a final one after them: not a thing to answer
    // alone.
    if (route.endpoint == Endpoint::kStatus && route.number < 200) route = error_route(400);
  } else {
    route.endpoint = Endpoint::kStatic;
  }
  if (route.endpoint != Endpoint::kError && !default_allowed)
    return error_route(405, kAllowDefault);
  return route;
}

std::string_view content_type_for_path(std::string_view path) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kTypes = {{
      {"html", "text/html; charset=utf-8"},
      {"htm", "text/html; charset=utf-8"},
      {"txt", "text/plain; charset=utf-8"},
      {"css", "text/css; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"},
      {"json", "application/json"},
      {"xml", "application/xml"},
      {"csv", "text/csv; charset=utf-8"},
      {"svg", "image/svg+xml"},
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"ico", "image/x-icon"},
      {"wasm", "application/wasm"},
      {"pdf", "application/pdf"},
      {"woff", "font/woff"},
      {"woff2", "font/woff2"},
      {"mp4", "video/mp4"},
      {"webm", "video/webm"},
      {"gz", "application/gzip"},
      {"zip", "application/zip"},
  }};
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size()) {
    const std::string_view ext = name.substr(dot + 1);
    for (const auto& [known, type] : kTypes) {
      if (ascii::iequals(ext, known)) return type;
    }
  }
  return "application/octet-stream";
}

}  // namespace hail
