// Socket addresses and name resolution (getaddrinfo). resolve() blocks, so it runs once at start-up
// on the main thread, before any worker exists; SocketAddress is a plain value any thread may copy.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace hail {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t len = 0;

  // "127.0.0.1:80", "[::1]:80" (with "%<scope>" for a scoped IPv6 address).
  std::string to_string() const;
  int family() const { return storage.ss_family; }
};

// Every TCP address of `host` (a name or an IPv4/IPv6 literal without brackets), in resolver order,
// or "cannot resolve host \"x\": <reason>".
Result<std::vector<SocketAddress>> resolve(const std::string& host, uint16_t port);

// A Unix domain socket path as an address (connect(2) reports a missing socket later).
Result<SocketAddress> unix_address(const std::string& path);

// A dotted-quad IPv4 literal ("127.0.0.1")?
bool is_ipv4_literal(const std::string& host);

}  // namespace hail
