#include "monitor/prom_monitor.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/clock.h"
#include "core/url.h"

namespace hail {

namespace {

// Waits for fd to be ready for `events` until deadline_ns (monotonic); false on a timeout.
bool wait_fd(int fd, short events, uint64_t deadline_ns) {
  for (;;) {
    const uint64_t now = mono_now_ns();
    if (now >= deadline_ns) return false;
    pollfd p{fd, events, 0};
    const int ms = static_cast<int>((deadline_ns - now + kNsPerMs - 1) / kNsPerMs);
    const int n = ::poll(&p, 1, ms);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<std::string> http_get_text(const std::string& text, uint64_t timeout_ns) {
  auto url = parse_url(text);
  if (!url) return url.error();
  if (url->scheme != "http") return make_error("only http:// endpoints are scraped");
  const uint64_t deadline = mono_now_ns() + timeout_ns;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url->port);
  if (int rc = getaddrinfo(url->host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return make_error(std::string("cannot resolve ") + quote(url->host) + ": " + gai_strerror(rc));
  }
  const int family = found->ai_family;
  sockaddr_storage addr{};
  const socklen_t addr_len = found->ai_addrlen;
  std::memcpy(&addr, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  Fd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), addr_len) != 0 &&
      errno != EINPROGRESS) {
    return make_error("connect to " + url->authority() + ": " + std::strerror(errno));
  }
  if (!wait_fd(fd.get(), POLLOUT, deadline)) {
    return make_error("connect to " + url->authority() + ": timed out");
  }
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return make_error("connect to " + url->authority() + ": " + std::strerror(err));
  const std::string request = "GET " + url->path + " HTTP/1.0\r\nHost: " + url->authority() +
                              "\r\nAccept: text/plain\r\nUser-Agent: hail-monitor\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    if (!wait_fd(fd.get(), POLLOUT, deadline)) return make_error("send: timed out");
    const ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return make_error(std::string("send: ") + std::strerror(errno));
    }
    if (n > 0) sent += static_cast<size_t>(n);
  }
  // HTTP/1.0: the server closes after the body (no chunking, no keep-alive).
  constexpr size_t kMaxBytes = 64u << 20;
  std::string response;
  char buf[16384];
  for (;;) {
    if (!wait_fd(fd.get(), POLLIN, deadline)) return make_error("read: timed out");
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return make_error(std::string("read: ") + std::strerror(errno));
    }
    response.append(buf, static_cast<size_t>(n));
    if (response.size() > kMaxBytes) return make_error("response larger than 64 MiB");
  }
  const size_t head_end = response.find("\r\n\r\n");
  if (!response.starts_with("HTTP/1.") || head_end == std::string::npos) {
    return make_error("not an HTTP response");
  }
  const size_t line_end = response.find("\r\n");
  const std::string status_line = response.substr(0, line_end);
  if (status_line.size() < 12 || status_line.compare(9, 3, "200") != 0) {
    return make_error("HTTP status " + quote(status_line.substr(9)));
  }
  return response.substr(head_end + 4);
}

PromMonitor::PromMonitor(std::string source, std::vector<std::string> names, Fetch fetch)
    : names_(std::move(names)), fetch_(std::move(fetch)) {
  series_.source = std::move(source);
  series_.kind = "prom";
}

Result<std::vector<PromColumn>> PromMonitor::scrape() const {
  auto body = fetch_();
  if (!body) return body.error();
  auto samples = parse_prom_text(*body);
  if (!samples) return samples.error();
  return prom_columns(*samples, names_);
}

Status PromMonitor::check() {
  auto columns = scrape();
  const std::string prefix = "--monitor " + quote(series_.source) + ": ";
  if (!columns) return make_error(prefix + columns.error().message);
  if (columns->empty()) {
    std::string asked;
    for (const std::string& n : names_) asked += (asked.empty() ? "" : ", ") + n;
    return make_error(prefix + "none of the series asked for (" +
                      (asked.empty() ? "node_exporter's node_cpu_seconds_total, node_memory_*, "
                                       "node_network_*; choose others with --monitor-metric"
                                     : asked) +
                      ") is in the scrape");
  }
  return ok_status();
}

// The columns are fixed by the first good scrape; series that appear later are not added.
void PromMonitor::begin(uint64_t at_ns) {
  restart_series(at_ns);
  have_previous_ = false;
  failing_ = false;
  auto columns = scrape();
  if (!columns) {
    event(at_ns, "scrape failed: " + columns.error().message);
    failing_ = true;
    return;
  }
  if (series_.metrics.empty()) {
    for (const PromColumn& c : *columns) series_.metrics.push_back(c.name);
  }
  previous_ = std::move(*columns);
  have_previous_ = true;
  previous_ns_ = at_ns;
}

void PromMonitor::sample(uint64_t at_ns, bool warmup) {
  MonitorWindow& row = add_row(at_ns, warmup);
  auto columns = scrape();
  if (!columns) {
    if (!failing_) event(at_ns, "scrape failed: " + columns.error().message);
    failing_ = true;
    return;  // the row stays kNoValue
  }
  if (failing_) event(at_ns, "scrape succeeded again");
  failing_ = false;
  if (series_.metrics.empty()) {
    for (const PromColumn& c : *columns) series_.metrics.push_back(c.name);
    row.values.assign(series_.metrics.size(), kNoValue);
  }
  std::vector<PromColumn> ordered;
  for (const std::string& name : series_.metrics) {
    PromColumn found{name, false, kNoValue, 1};
    for (const PromColumn& c : *columns) {
      if (c.name == name) found = c;
    }
    ordered.push_back(found);
  }
  const double seconds = static_cast<double>(at_ns - previous_ns_) / 1e9;
  for (size_t i = 0; i < ordered.size(); ++i) {
    const PromColumn& c = ordered[i];
    if (!c.counter) {
      row.values[i] = c.value;
    } else if (have_previous_ && i < previous_.size() && seconds > 0 &&
               c.value >= previous_[i].value) {
      // A counter that went down was reset (the exporter restarted): no rate for this window.
      row.values[i] = (c.value - previous_[i].value) / seconds * c.scale;
    }
  }
  previous_ = std::move(ordered);
  have_previous_ = true;
  previous_ns_ = at_ns;
}

}  // namespace hail
