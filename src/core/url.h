// The target URL: parsed once from the command line into the pieces the request line, the Host
// header and the resolver need. Plain value type: any thread, no sharing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

struct Url {
  std::string scheme;  // "http" or "https", lower case
  std::string host;    // as given, without the brackets of an IPv6 literal
  uint16_t port = 0;   // explicit, or the scheme's default (80, 443)
  std::string path;    // path and query as given (percent-encoding kept), "/" if empty, no fragment
  bool host_is_ipv6 = false;

  // The Host header value: "host", or "host:port" when the port is not the scheme's default;
  // an IPv6 literal in brackets.
  std::string authority() const;
  // scheme://authority path; parse_url(to_string()) gives back an equal Url.
  std::string to_string() const;

  bool operator==(const Url&) const = default;
};

// Accepts http:// and https:// (scheme case-insensitive), host names, IPv4 and bracketed IPv6
// literals, an optional port 1-65535, and any path/query. Rejects user info, spaces, control and
// non-ASCII bytes, and everything else with a one-line message naming the bad part.
Result<Url> parse_url(std::string_view text);

// An IPv4 or IPv6 address literal, without brackets ("127.0.0.1", "::1"): TLS sends no SNI for one
// (RFC 6066 section 3).
bool is_ip_literal(const std::string& host);

}  // namespace hail
