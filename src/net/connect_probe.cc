#include "net/connect_probe.h"

#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/clock.h"

namespace hail {

namespace {

constexpr uint64_t kMaxProbeNs = 10'000'000'000;

}  // namespace

int connect_within(const sockaddr* address, socklen_t length, uint64_t timeout_ns) {
  const int fd = socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  bool ok = connect(fd, address, length) == 0;
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
  if (ok) return fd;
  const int saved = errno;
  close(fd);
  errno = saved;
  return -1;
}

int connect_first(const std::string& host, uint16_t port, uint64_t timeout_ns,
                  ProbeOutcome* outcome) {
  *outcome = ProbeOutcome{};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses); rc != 0) {
    outcome->resolve_error = rc;
    return -1;
  }
  int fd = -1;
  for (const addrinfo* a = addresses; a != nullptr && fd < 0; a = a->ai_next) {
    fd = connect_within(a->ai_addr, a->ai_addrlen, timeout_ns);
    outcome->connect_errno = fd >= 0 ? 0 : errno;
  }
  freeaddrinfo(addresses);
  outcome->reachable = fd >= 0;
  return fd;
}

ProbeOutcome probe_tcp(const std::string& host, uint16_t port, uint64_t timeout_ns) {
  ProbeOutcome out;
  const int fd = connect_first(host, port, timeout_ns, &out);
  if (fd >= 0) close(fd);
  return out;
}

}  // namespace hail
