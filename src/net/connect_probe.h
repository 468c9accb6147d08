// Reachability checks other tools make around their load (wrk and webbench before it, ab's TLS
// facts after it): resolve a host and try a TCP connection to its addresses in turn, each attempt
// bounded in time. Owner: net. Blocking: main thread, never while workers need it to be quick.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace hail {

struct ProbeOutcome {
  bool reachable = false;
  int resolve_error = 0;  // getaddrinfo's code (gai_strerror) when the host did not resolve
  int connect_errno = 0;  // why the last address refused, when none accepted
};

// A non-blocking TCP socket connected to `address` within timeout_ns (never more than 10 s: a
// blocking connect, the tools' own, has no bound, and a probe must not hang a script); -1 with
// errno saying why not (ETIMEDOUT when the time ran out).
int connect_within(const sockaddr* address, socklen_t length, uint64_t timeout_ns);

// A connection to the first of host's addresses that accepts one within timeout_ns (each); -1
// when none does, and *outcome says why. The caller owns (closes) the socket.
int connect_first(const std::string& host, uint16_t port, uint64_t timeout_ns,
                  ProbeOutcome* outcome);

// connect_first, with the accepted connection closed at once.
ProbeOutcome probe_tcp(const std::string& host, uint16_t port, uint64_t timeout_ns);

}  // namespace hail
