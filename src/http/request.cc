#include "http/request.h"

#include <array>
#include <cstddef>
#include <cstring>

#include "core/ascii.h"
#include "http/field_syntax.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.1.0"
#endif

namespace hail {

using http_syntax::iequals;
using http_syntax::is_field_value;
using http_syntax::is_token;
using http_syntax::trim_ows;

namespace {

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

namespace {

// RFC 9110 §8.6: a user agent should send Content-Length when the method gives content a meaning.
bool method_has_content(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

// Calls fn(name, value) for every header field of the rendered request, in order (the rules are
// render_request's), so that the HTTP/1 bytes and the HTTP/2 view cannot disagree.
template <typename Fn>
void for_each_field(const RequestSpec& spec, Fn&& fn) {
  struct Default {
    std::string_view name;
    std::string_view value;
  };
  const std::array<Default, 3> defaults = {{
      {"Host", spec.authority},
      {"User-Agent", "hail/" HAIL_VERSION_STRING},
      {"Accept", "*/*"},
  }};
  std::vector<bool> emitted(spec.headers.size(), false);
  for (const Default& d : defaults) {
    bool overridden = false;
    for (size_t i = 0; i < spec.headers.size(); ++i) {
      if (iequals(spec.headers[i].first, d.name)) {
        fn(spec.headers[i].first, spec.headers[i].second);
        emitted[i] = true;
        overridden = true;
      }
    }
    if (!overridden) fn(d.name, d.value);
  }
  for (size_t i = 0; i < spec.headers.size(); ++i) {
    if (!emitted[i]) fn(spec.headers[i].first, spec.headers[i].second);
  }
  if ((!spec.body.empty() || method_has_content(spec.method)) &&
      !user_has(spec, "Content-Length") && !user_has(spec, "Transfer-Encoding")) {
    fn("Content-Length", std::to_string(spec.body.size()));
  }
  if (!user_has(spec, "Connection")) {
    if (spec.http_minor == 1 && !spec.keep_alive) fn("Connection", "close");
    if (spec.http_minor == 0 && spec.keep_alive) fn("Connection", "keep-alive");
  }
}

// RFC 9113 §8.2.2: fields that only mean something on an HTTP/1 connection.
bool connection_specific(std::string_view name, std::string_view value) {
  if (iequals(name, "te")) return !iequals(value, "trailers");
  return iequals(name, "connection") || iequals(name, "keep-alive") ||
         iequals(name, "proxy-connection") || iequals(name, "transfer-encoding") ||
         iequals(name, "upgrade");
}

}  // namespace

std::string render_request(const RequestSpec& spec) {
  std::string out;
  out.reserve(128 + spec.path.size() + spec.body.size());
  out.append(spec.method);
  out.push_back(' ');
  out.append(spec.path);
  out.append(spec.http_minor == 0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  for_each_field(
      spec, [&](std::string_view name, std::string_view value) { append_field(out, name, value); });
  out.append("\r\n");
  out.append(spec.body);
  return out;
}

H2FieldsBuilder::H2FieldsBuilder(RequestTemplate* t) : t_(t) {
  t_->authority.clear();
}

void H2FieldsBuilder::push(std::string_view name, std::string_view value) {
  if (count_ == t_->h2_fields.size()) t_->h2_fields.emplace_back();
  auto& [n, v] = t_->h2_fields[count_++];
  n.assign(name);
  ascii::to_lower_in_place(n);
  v.assign(value);
}

void H2FieldsBuilder::add(std::string_view name, std::string_view value) {
  value = trim_ows(value);
  if (iequals(name, "host")) {
    t_->authority.assign(value);  // -H "Host: x" names the authority, as it does in HTTP/1
    return;
  }
  if (connection_specific(name, value)) return;
  content_length_ = content_length_ || iequals(name, "content-length");
  push(name, value);
}

void H2FieldsBuilder::finish() {
  if ((!t_->body.empty() || method_has_content(t_->method)) && !content_length_) {
    // Up to 20 digits: no allocation, unlike std::to_string.
    char digits[24];
    char* end = digits + sizeof digits;
    char* p = end;
    size_t n = t_->body.size();
    do {
      *--p = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    push("content-length", std::string_view(p, static_cast<size_t>(end - p)));
  }
  t_->h2_fields.resize(count_);
}

RequestTemplate make_request_template(const RequestSpec& spec, std::string_view scheme,
                                      bool http09) {
  RequestTemplate t;
  // HTTP/0.9 (webbench's default): the method line alone, no version, no fields.
  t.http1 = http09 ? "GET " + spec.path + "\r\n" : render_request(spec);
  t.method = spec.method;
  t.scheme = std::string(scheme);
  t.path = spec.path;
  t.body = spec.body;
  t.head = spec.method == "HEAD";
  H2FieldsBuilder h2(&t);
  for_each_field(spec, [&](std::string_view name, std::string_view value) { h2.add(name, value); });
  h2.finish();
  t.close_after = request_asks_to_close(t.http1);
  t.asks_upgrade = request_asks_to_upgrade(t.http1);
  t.idempotent = is_idempotent_method(t.method);
  return t;
}

namespace {
// The field lines of the request head in http1, as f(name, value) (value untrimmed); returns the
// request line. Lines end in LF, with or without CR; empty lines before the request line are
// skipped; the empty line ends the head.
template <typename F>
std::string_view for_each_request_field(std::string_view http1, F f) {
  size_t pos = 0;
  std::string_view request_line;
  for (;;) {
    const size_t eol = http1.find('\n', pos);
    if (eol == std::string_view::npos) return {};
    std::string_view line = http1.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) {
      request_line = line;
      break;
    }
  }
  for (;;) {
    const size_t eol = http1.find('\n', pos);
    if (eol == std::string_view::npos) break;
    std::string_view line = http1.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) f(line.substr(0, colon), line.substr(colon + 1));
  }
  return request_line;
}
}  // namespace

bool request_asks_to_close(std::string_view http1) {
  bool close = false;
  bool keep_alive = false;
  const std::string_view request_line =
      for_each_request_field(http1, [&](std::string_view name, std::string_view value) {
        if (!iequals(name, "connection") && !iequals(name, "proxy-connection")) return;
        while (!value.empty()) {
          const size_t comma = value.find(',');
          const std::string_view token = trim_ows(value.substr(0, comma));
          if (iequals(token, "close")) close = true;
          if (iequals(token, "keep-alive")) keep_alive = true;
          if (comma == std::string_view::npos) break;
          value.remove_prefix(comma + 1);
        }
      });
  const bool http10 =
      request_line.size() >= 8 && request_line.substr(request_line.size() - 8) == "HTTP/1.0";
  return close || (http10 && !keep_alive);
}

bool request_asks_to_upgrade(std::string_view http1) {
  bool upgrade = false;
  for_each_request_field(http1, [&upgrade](std::string_view name, std::string_view) {
    if (iequals(name, "upgrade")) upgrade = true;
  });
  return upgrade;
}

bool is_idempotent_method(std::string_view method) {
  for (std::string_view m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    if (method == m) return true;
  }
  return false;
}

}  // namespace hail
