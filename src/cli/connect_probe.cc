#include "cli/connect_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/clock.h"

namespace hail {

namespace {

// A blocking connect (the tools' own) has no bound; hail's probe must not hang a script.
constexpr uint64_t kMaxProbeNs = 10'000'000'000;

// Does a TCP connection to `address` succeed within timeout_ns? errno tells why not.
bool probe_connect(const addrinfo& address, uint64_t timeout_ns) {
  int fd = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  address.ai_protocol);
  if (fd < 0) return false;
  bool ok = connect(fd, address.ai_addr, address.ai_addrlen) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    const int wait_ms = static_cast<int>(std::min(timeout_ns, kMaxProbeNs) / kNsPerMs);
    const int ready = poll(&p, 1, wait_ms);
    if (ready == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      ok = err == 0;
      errno = err;
    } else if (ready == 0) {
      errno = ETIMEDOUT;
    }
  }
  const int saved = errno;
  close(fd);
  errno = saved;
  return ok;
}

}  // namespace

ProbeOutcome probe_tcp(const std::string& host, uint16_t port, uint64_t timeout_ns) {
  ProbeOutcome out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses); rc != 0) {
    out.resolve_error = rc;
    return out;
  }
  for (const addrinfo* a = addresses; a != nullptr && !out.reachable; a = a->ai_next) {
    out.reachable = probe_connect(*a, timeout_ns);
    out.connect_errno = out.reachable ? 0 : errno;
  }
  freeaddrinfo(addresses);
  return out;
}

}  // namespace hail
