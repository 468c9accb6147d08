#include "http/request.h"

#include <array>
#include <cstddef>
#include <cstring>

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.1.0"
#endif

namespace hail {

namespace {

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
//         / DIGIT / ALPHA
bool is_tchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_tchar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// field-value: VCHAR, SP, HTAB and obs-text; no other control characters.
bool is_field_value(std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]);
    unsigned char y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool user_has(const RequestSpec& spec, std::string_view name) {
  for (const auto& [n, v] : spec.headers) {
    if (iequals(n, name)) return true;
  }
  return false;
}

void append_field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.append(": ");
  out.append(value);
  out.append("\r\n");
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Status validate_method(std::string_view method) {
  if (method.empty()) return make_error("empty request method");
  if (!is_token(method)) {
    return make_error("invalid request method '" + std::string(method) +
                      "': only token characters are allowed");
  }
  return ok_status();
}

Result<std::pair<std::string, std::string>> parse_header_arg(std::string_view arg) {
  size_t colon = arg.find(':');
  if (colon == std::string_view::npos) {
    return make_error("header '" + std::string(arg) + "' has no ':' (expected \"Name: value\")");
  }
  std::string_view name = arg.substr(0, colon);
  if (name.empty()) return make_error("header '" + std::string(arg) + "' has an empty name");
  if (!is_token(name)) {
    return make_error("header name '" + std::string(name) +
                      "' contains characters not allowed in a field name");
  }
  std::string_view value = trim_ows(arg.substr(colon + 1));
  if (!is_field_value(value)) {
    return make_error("value of header '" + std::string(name) +
                      "' contains control characters (CR, LF, NUL, ...)");
  }
  return std::pair<std::string, std::string>(std::string(name), std::string(value));
}

Status validate_request(const RequestSpec& spec) {
  if (Status s = validate_method(spec.method); !s.ok()) return s;
  if (spec.path.empty()) return make_error("empty request target");
  for (char ch : spec.path) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f) {
      return make_error("request target '" + spec.path +
                        "' contains whitespace or control characters");
    }
  }
  if (!is_field_value(spec.authority) || spec.authority.find(' ') != std::string::npos) {
    return make_error("invalid Host value '" + spec.authority + "'");
  }
  for (const auto& [name, value] : spec.headers) {
    if (!is_token(name)) return make_error("invalid header name '" + name + "'");
    if (!is_field_value(value)) {
      return make_error("value of header '" + name + "' contains control characters");
    }
  }
  if (spec.http_minor != 0 && spec.http_minor != 1) {
    return make_error("HTTP version must be 1.0 or 1.1");
  }
  return ok_status();
}

std::string render_request(const RequestSpec& spec) {
  struct Default {
    std::string_view name;
    std::string_view value;
  };
  const std::array<Default, 3> defaults = {{
      {"Host", spec.authority},
      {"User-Agent", "hail/" HAIL_VERSION_STRING},
      {"Accept", "*/*"},
  }};

  std::string out;
  out.reserve(128 + spec.path.size() + spec.body.size());
  out.append(spec.method);
  out.push_back(' ');
  out.append(spec.path);
  out.append(spec.http_minor == 0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");

  std::vector<bool> emitted(spec.headers.size(), false);
  for (const Default& d : defaults) {
    bool overridden = false;
    for (size_t i = 0; i < spec.headers.size(); ++i) {
      if (iequals(spec.headers[i].first, d.name)) {
        append_field(out, spec.headers[i].first, spec.headers[i].second);
        emitted[i] = true;
        overridden = true;
      }
    }
    if (!overridden) append_field(out, d.name, d.value);
  }
  for (size_t i = 0; i < spec.headers.size(); ++i) {
    if (!emitted[i]) append_field(out, spec.headers[i].first, spec.headers[i].second);
  }

  const bool method_has_content =
      spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  if ((!spec.body.empty() || method_has_content) && !user_has(spec, "Content-Length") &&
      !user_has(spec, "Transfer-Encoding")) {
    append_field(out, "Content-Length", std::to_string(spec.body.size()));
  }
  if (!user_has(spec, "Connection")) {
    if (spec.http_minor == 1 && !spec.keep_alive) append_field(out, "Connection", "close");
    if (spec.http_minor == 0 && spec.keep_alive) append_field(out, "Connection", "keep-alive");
  }
  out.append("\r\n");
  out.append(spec.body);
  return out;
}

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// RFC 9113 §8.2.2: fields that only mean something on an HTTP/1 connection.
bool connection_specific(std::string_view name, std::string_view value) {
  if (iequals(name, "te")) return !iequals(trim_ows(value), "trailers");
  return iequals(name, "connection") || iequals(name, "keep-alive") ||
         iequals(name, "proxy-connection") || iequals(name, "transfer-encoding") ||
         iequals(name, "upgrade");
}
}  // namespace

RequestTemplate make_request_template(const RequestSpec& spec, std::string_view scheme,
                                      bool http09) {
  RequestTemplate t;
  // HTTP/0.9 (webbench's default): the method line alone, no version, no fields.
  t.http1 = http09 ? "GET " + spec.path + "\r\n" : render_request(spec);
  t.method = spec.method;
  t.scheme = std::string(scheme);
  t.authority = spec.authority;
  t.path = spec.path;
  t.body = spec.body;
  t.head = spec.method == "HEAD";
  bool user_agent = false;
  bool accept = false;
  for (const auto& [name, value] : spec.headers) {
    if (iequals(name, "host")) {
      t.authority = value;  // -H "Host: x" names the authority, as it does in HTTP/1
      continue;
    }
    if (connection_specific(name, value)) continue;
    user_agent = user_agent || iequals(name, "user-agent");
    accept = accept || iequals(name, "accept");
    t.h2_fields.emplace_back(lower(name), value);
  }
  if (!user_agent) t.h2_fields.emplace_back("user-agent", "hail/" HAIL_VERSION_STRING);
  if (!accept) t.h2_fields.emplace_back("accept", "*/*");
  const bool method_has_content =
      spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  if ((!spec.body.empty() || method_has_content) && !user_has(spec, "Content-Length")) {
    t.h2_fields.emplace_back("content-length", std::to_string(spec.body.size()));
  }
  return t;
}

}  // namespace hail
