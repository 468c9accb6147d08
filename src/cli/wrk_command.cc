#include "cli/wrk_command.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/run_command.h"
#include "cli/wrk_flags.h"
#include "core/clock.h"
#include "report/wrk_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

// The longest the reachability probe waits for one address; wrk's blocking connect has no bound.
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

// wrk resolves the host and test-connects to its addresses before printing anything, and stops
// with exit 1 when none answers. Doing the same keeps the output (no banner before the error) and
// the server's connection count (one probe) as wrk's.
bool target_reachable(const RunOptions& run) {
  const Url& url = run.url;
  const uint16_t default_port = url.scheme == "https" ? 443 : 80;
  // wrk names the port as typed, or the scheme when there is none.
  const std::string service = url.port != default_port ? std::to_string(url.port) : url.scheme;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const std::string port = std::to_string(url.port);
  if (int rc = getaddrinfo(url.host.c_str(), port.c_str(), &hints, &addresses); rc != 0) {
    std::fprintf(stderr, "unable to resolve %s:%s %s\n", url.host.c_str(), service.c_str(),
                 gai_strerror(rc));
    return false;
  }
  bool reachable = false;
  int err = 0;
  for (const addrinfo* a = addresses; a != nullptr && !reachable; a = a->ai_next) {
    reachable = probe_connect(*a, run.timeout_ns);
    err = errno;
  }
  freeaddrinfo(addresses);
  if (!reachable) {
    std::fprintf(stderr, "unable to connect to %s:%s %s\n", url.host.c_str(), service.c_str(),
                 std::strerror(err));
  }
  return reachable;
}

}  // namespace

int run_wrk_command(const std::vector<std::string>& args) {
  const WrkParse parse = parse_wrk_flags(args);
  for (int i = 0; i < parse.version_lines; ++i) {
    std::fputs(wrk_version_line(HAIL_VERSION_STRING).c_str(), stdout);
  }
  if (!parse.ok) {
    if (!parse.message.empty()) {
      std::fprintf(stderr, "%s%s\n", parse.message_has_program ? "wrk: " : "",
                   parse.message.c_str());
    }
    if (parse.show_usage) std::fputs(wrk_usage().c_str(), stdout);
    return kExitCouldNotRun;
  }
  const WrkCommand& cmd = parse.command;
  for (const std::string& header : cmd.dropped_headers) {
    std::fprintf(stderr, "hail: -H \"%s\" ignored, as wrk ignores it (expected \"Name: value\")\n",
                 header.c_str());
  }
  std::fflush(stdout);
  if (!target_reachable(cmd.run)) return kExitCouldNotRun;

  OutputOptions output;
  output.banner =
      render_wrk_banner(cmd.run.duration_ns, cmd.url_text, cmd.threads, cmd.connections);
  const bool latency = cmd.latency_distribution;
  output.render_text = [latency](const RunResult& r) { return render_wrk_report(r, latency); };
  return run_and_report(cmd.run, output);
}

}  // namespace hail
