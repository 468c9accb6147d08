// ab's target and request from its options: the URL as ab's parse_url splits it, and the request
// in ab's field order, built once with RequestBuilder (the bytes hail sends, what -v 2 prints and
// RunOptions::request all come from it). Owner: cli. Pure: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/request_builder.h"

namespace hail {

enum class AbMethod { kNone, kGet, kHead, kPut, kPost, kCustom };

// ab's option variables that shape its request (globals in ab.c).
struct AbRequestOptions {
  AbMethod method = AbMethod::kNone;
  std::string custom_method;  // -m
  bool keep_alive = false;    // -k
  bool send_body = false;     // -p / -u
  std::string body;
  std::string content_type;                                // -T
  std::string cookie;                                      // -C: the last one wins, as in ab
  std::vector<std::pair<std::string, std::string>> auth;   // -A / -P, in order
  std::vector<std::pair<std::string, std::string>> extra;  // -H, in order
  std::string opt_host;                                    // -H "Host: ..."'s value
  bool opt_user_agent = false;
  bool opt_accept = false;
};

// The URL as ab's parse_url splits it: an optional http:// or https://, then host[:port] up to
// the first '/', then the path (query and fragment included, as typed).
struct AbUrl {
  bool tls = false;
  std::string hostname;    // without brackets
  std::string host_field;  // with an IPv6 literal's brackets
  uint16_t port = 0;       // explicit, or the scheme's
  std::string path;
};

// apr_parse_addr_port's rules, as far as ab can tell them apart: a trailing ":digits" is the port
// (1-65535); an IPv6 literal must be bracketed and carry no scope id; anything else is the host.
// false where ab says "invalid URL".
bool parse_ab_url(std::string_view text, AbUrl* out);

// ab's request to `target` (the path, or the whole URL through a proxy): "METHOD target HTTP/1.0",
// then Connection: Keep-Alive (-k), Cookie (-C), the -A / -P fields, Content-length and
// Content-type when a file is sent, the -H lines, then Host, User-Agent and Accept unless -H gave
// them. A POST or PUT without a file (-m POST) has no Content-length, as in ab.
RequestBuilder ab_request(const AbRequestOptions& o, const AbUrl& url, std::string target);

}  // namespace hail
