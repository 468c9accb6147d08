// The reachability check other tools make before their load starts (wrk, webbench): resolve a host
// and try a TCP connection to its addresses in turn, with a bound on each attempt. Owner: cli.
// Blocking; main thread, before the run.
#pragma once

#include <cstdint>
#include <string>

namespace hail {

struct ProbeOutcome {
  bool reachable = false;
  int resolve_error = 0;  // getaddrinfo's code (gai_strerror) when the host did not resolve
  int connect_errno = 0;  // why the last address refused, when none accepted
};

// One connection per address until one is accepted, each attempt bounded by timeout_ns (and never
// more than 10 s); the accepted connection is closed at once.
ProbeOutcome probe_tcp(const std::string& host, uint16_t port, uint64_t timeout_ns);

}  // namespace hail
