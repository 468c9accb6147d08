#include "cli/ab_request.h"

#include <arpa/inet.h>

#include "cli/ab_flags.h"
#include "core/ascii.h"

namespace hail {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!ascii::is_digit(c)) return false;
  }
  return true;
}

std::string method_name(const AbRequestOptions& o) {
  switch (o.method) {
    case AbMethod::kHead:
      return "HEAD";
    case AbMethod::kPut:
      return "PUT";
    case AbMethod::kPost:
      return "POST";
    case AbMethod::kCustom:
      return o.custom_method;
    default:
      return "GET";
  }
}

}  // namespace

bool parse_ab_url(std::string_view text, AbUrl* out) {
  if (text.size() > 7 && text.starts_with("http://")) {
    text.remove_prefix(7);
  } else if (text.size() > 8 && text.starts_with("https://")) {
    text.remove_prefix(8);
    out->tls = true;
  }
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view host = text.substr(0, slash);
  out->path = std::string(text.substr(slash));
  if (all_digits(host)) return false;  // a port and no host
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && all_digits(host.substr(colon + 1))) {
    const int port = ab_atoi(host.substr(colon + 1));
    if (port < 1 || port > 65535) return false;
    out->port = static_cast<uint16_t>(port);
    host = host.substr(0, colon);
  }
  if (host.empty()) return false;
  if (host[0] == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    const std::string literal(host.substr(1, host.size() - 2));
    in6_addr addr{};
    if (inet_pton(AF_INET6, literal.c_str(), &addr) != 1) return false;  // scope ids too
    out->hostname = literal;
    out->host_field = std::string(host);
  } else {
    out->hostname = std::string(host);
    out->host_field = out->hostname;
  }
  if (out->port == 0) out->port = out->tls ? 443 : 80;
  return true;
}

RequestBuilder ab_request(const AbRequestOptions& o, const AbUrl& url, std::string target) {
  RequestBuilder request(method_name(o), std::move(target), HttpVersion::k10);
  if (o.keep_alive) request.add_field("Connection", "Keep-Alive");
  if (!o.cookie.empty()) request.add_field("Cookie", o.cookie);
  for (const auto& [name, value] : o.auth) request.add_field(name, value);
  if (o.send_body) {
    request.add_field("Content-length", std::to_string(o.body.size()));
    request.add_field("Content-type", o.content_type.empty() ? "text/plain" : o.content_type);
    request.set_body(o.body);
  }
  for (const auto& [name, value] : o.extra) request.add_field(name, value);
  if (o.opt_host.empty()) {
    const bool default_port = url.port == (url.tls ? 443 : 80);
    request.add_field("Host",
                      url.host_field + (default_port ? "" : ":" + std::to_string(url.port)));
  }
  if (!o.opt_user_agent) request.add_field("User-Agent", "ApacheBench/2.3");
  if (!o.opt_accept) request.add_field("Accept", "*/*");
  return request;
}

}  // namespace hail
