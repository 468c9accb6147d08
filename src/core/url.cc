#include "core/url.h"

#include <arpa/inet.h>

#include "core/ascii.h"

namespace hail {
namespace {

using ascii::is_alpha;
using ascii::is_digit;

constexpr uint16_t kHttpPort = 80;
constexpr uint16_t kHttpsPort = 443;

Error fail(std::string_view text, std::string_view reason) {
  return make_error("invalid URL " + quote(text) + ": " + std::string(reason));
}

// RFC 3986 reg-name without percent-encoding: what DNS names and IPv4 literals are made of.
bool is_host_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

uint16_t default_port(std::string_view scheme) {
  return scheme == "https" ? kHttpsPort : kHttpPort;
}

Result<uint16_t> parse_port(std::string_view text, std::string_view port) {
  if (port.empty()) return fail(text, "missing port number after ':'");
  uint32_t value = 0;
  for (char c : port) {
    if (!is_digit(c)) return fail(text, "port " + quote(port) + " is not a number");
    value = value * 10 + static_cast<uint32_t>(c - '0');
    if (value > 65535) return fail(text, "port " + quote(port) + " is out of range (1-65535)");
  }
  if (value == 0) return fail(text, "port 0 is not allowed");
  return static_cast<uint16_t>(value);
}

}  // namespace

std::string Url::authority() const {
  // Appends rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on "[" + host.
  std::string out;
  if (host_is_ipv6) out.append(1, '[');
  out.append(host);
  if (host_is_ipv6) out.append(1, ']');
  if (port != default_port(scheme)) out.append(1, ':').append(std::to_string(port));
  return out;
}

std::string Url::to_string() const {
  return scheme + "://" + authority() + path;
}

Result<Url> parse_url(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) {
      return fail(text, "contains a space or control character (percent-encode it)");
    }
    if (byte >= 0x80) return fail(text, "contains a non-ASCII character (percent-encode it)");
  }

  const size_t scheme_end = text.find("://");
  std::string_view scheme_text = text.substr(0, scheme_end);
  bool scheme_ok = scheme_end != std::string_view::npos && scheme_end > 0 && is_alpha(text[0]);
  for (size_t i = 0; scheme_ok && i < scheme_end; ++i) {
    const char c = text[i];
    scheme_ok = is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
  }
  if (!scheme_ok) return make_error("URL must start with http:// or https://: " + quote(text));

  Url url;
  for (char c : scheme_text) url.scheme += ascii::to_lower(c);
  if (url.scheme != "http" && url.scheme != "https") {
    return fail(text, "unsupported scheme " + quote(scheme_text) + " (use http or https)");
  }

  const std::string_view rest = text.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  target = target.substr(0, target.find('#'));  // the fragment never goes on the wire
  url.path.clear();
  if (target.empty() || target[0] != '/') url.path.push_back('/');
  url.path.append(target);

  if (authority.find('@') != std::string_view::npos) {
    return fail(text, "user info (user:password@) is not supported; send an Authorization header");
  }

  std::string_view host;
  std::string_view after_host;  // ":port" or empty
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(text, "missing ']' after IPv6 address");
    host = authority.substr(1, close - 1);
    after_host = authority.substr(close + 1);
    if (!after_host.empty() && after_host[0] != ':') {
      return fail(text, "unexpected " + quote(after_host) + " after IPv6 address");
    }
    in6_addr ignored;
    if (host.empty()) return fail(text, "empty host");
    if (inet_pton(AF_INET6, std::string(host).c_str(), &ignored) != 1) {
      return fail(text, "invalid IPv6 address " + quote(host));
    }
    url.host_is_ipv6 = true;
  } else {
    const size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    after_host = colon == std::string_view::npos ? std::string_view{} : authority.substr(colon);
    if (after_host.find(':', 1) != std::string_view::npos) {
      return fail(text, "IPv6 addresses must be in brackets, as in http://[::1]:8080/");
    }
    if (host.empty()) return fail(text, "empty host");
    for (char c : host) {
      if (!is_host_char(c)) {
        return fail(text, "invalid character " + quote(std::string_view(&c, 1)) + " in host");
      }
    }
  }
  url.host = std::string(host);

  if (after_host.empty()) {
    url.port = default_port(url.scheme);
  } else {
    auto port = parse_port(text, after_host.substr(1));
    if (!port) return port.error();
    url.port = port.value();
  }
  return url;
}

bool is_ip_literal(const std::string& host) {
  in6_addr address{};  // room for either family
  return inet_pton(AF_INET, host.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

}  // namespace hail
